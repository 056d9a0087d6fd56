"""The harness's episodes of an :class:`~searchgym.agents.llm_rollout.LLMActor` end at ``max_turns``.

Why: the harness steps the env until the env ends the episode, and an actor only writes actions, so
the test split ran to the env's own limit (12 steps where training and the dev curve stopped at
``max_turns`` 3). As :func:`~searchgym.agents.llm_rollout.collect_llm_single` and
:func:`~searchgym.agents.llm_eval.evaluate_llm` end an episode there (truncated, no answer, the env's
``no_answer_score``), the actor has the env itself truncate it after the last allowed turn: a reply
that answers still ends it as an answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any


class TurnLimit:
    """Lowers the step limit of the episode being played; a team's round limit is restored by
    :meth:`release` (the actor's next episode), a session's goes with the session at ``reset``."""

    def __init__(self) -> None:
        self._team: tuple[Any, int] | None = None  # (team env, its own max_rounds)

    def end_after_step(self, base: Any, agents: Iterable[str]) -> None:
        """The env truncates the episode of ``agents`` after its coming step, unless it ends before."""
        if hasattr(base, "session"):  # single agent
            _end_session(base.session)
        elif hasattr(base, "max_rounds"):  # a team ends by rounds, every agent together
            if self._team is None:
                self._team = (base, base.max_rounds)
            base.max_rounds = min(base.max_rounds, base.round + 1)
        else:  # a group: each agent is an episode of its own
            for agent in agents:
                _end_session(base.sessions[agent])

    def release(self) -> None:
        if self._team is not None:
            base, max_rounds = self._team
            base.max_rounds, self._team = max_rounds, None


def _end_session(session: Any) -> None:
    # a copy of the config for this session only: the env's own (and the next episode's) is unchanged
    session.config = replace(session.config, max_steps=min(session.config.max_steps, session.steps + 1))
