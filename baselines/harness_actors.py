"""The random and oracle baselines as harness actors, for single-agent and parallel suites.

A session agent (``RandomAgent``, ``OracleAgent``: ``choose_action(session)``) plays a
single-agent suite through :class:`SessionActor`; a parallel suite gets its team baseline from
:data:`TEAM_BASELINES` (``harness_actor(seed) -> Actor`` in ``team_oracle`` and ``team_random``).
"""

from __future__ import annotations

from typing import Any

from searchgym.baselines.oracle import OracleAgent
from searchgym.baselines.random_agent import RandomAgent
from searchgym.named_registry import NamedRegistry
from searchgym.suites import Suite, env_kind

#: Baseline name -> the parallel suites' actor factory, ``harness_actor(seed) -> Actor`` (lazy).
TEAM_BASELINES: NamedRegistry[str] = NamedRegistry("baseline")
TEAM_BASELINES.add("oracle", "searchgym.baselines.team_oracle:harness_actor")
TEAM_BASELINES.add("random", "searchgym.baselines.team_random:harness_actor")


class SessionActor:
    """A session agent (RandomAgent, OracleAgent) as a single-agent Actor."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent

    def reset(self) -> None:
        if hasattr(self.agent, "reset"):
            self.agent.reset()

    def act(self, env: Any, observation: Any, info: Any) -> Any:
        return self.agent.choose_action(env.unwrapped.session)


def baseline_actor(kind: str, suite: Suite, seed: int) -> Any:
    """The random or oracle Actor for ``suite`` (single-agent or parallel)."""
    make_team_actor = TEAM_BASELINES.load(kind)  # an unknown kind: an error listing the accepted ones
    if env_kind(suite) == "parallel":
        return make_team_actor(seed=seed)
    return SessionActor(OracleAgent() if kind == "oracle" else RandomAgent(seed=seed))
