"""An agent from ``--agent module:factory``: the user's code, whose failures are one line naming it."""

from __future__ import annotations

import traceback
from typing import Any


def raised(exc: BaseException) -> str:
    """``KeyError: 'x' (at file:line)``: what the user's code raised and where."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


class UserActor:
    """An ``--agent module:factory`` actor whose ``act`` failing is one line naming the agent, the
    exception and where. Before: an act that raised ``KeyError("agent bug")`` printed "error: 'agent bug'"."""

    def __init__(self, actor: Any, agent: str) -> None:
        self._actor, self._agent = actor, agent

    def act(self, env: Any, observation: Any, info: Any) -> Any:
        try:
            return self._actor.act(env, observation, info)
        except Exception as exc:
            raise ValueError(f"--agent {self._agent}: its act raised {raised(exc)}") from exc

    def __getattr__(self, name: str) -> Any:  # reset, close, unfinished_reason ... as the agent has them
        if name.startswith("__") or name in ("_actor", "_agent"):
            raise AttributeError(name)
        return getattr(self._actor, name)
