"""How an env plays, declared by its class in ``metadata`` and read by everything that runs it.

Three keys, so that a new env class is one file plus its registration:

- ``answer_rule``: whose answer the harness scores. ``"single"`` (one agent), ``"majority"``
  (independent attempts: the members' vote, as ``GroupSearchEnv``) or ``"team"`` (one answer for
  the team, as ``TeamSearchEnv``).
- ``group_by``: how the learners group trajectories by default (``searchgym.agents.grouping``).
  ``"episode"``: one episode's agents are one group (independent attempts at one task);
  ``"agent"``: each agent with itself across a task's episodes (a shared team reward).
- ``team_actions``: the agents may ``post`` to a blackboard and ``wait`` (the endpoint agents
  offer those actions; the scripted endpoint keeps one script per role).

>>> from searchgym.envs.team import TeamSearchEnv
>>> play_rules(TeamSearchEnv)
PlayRules(answer_rule='team', group_by='agent', team_actions=True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ANSWER_RULES = ("single", "majority", "team")
DECLARED_GROUPINGS = ("episode", "agent")


@dataclass(frozen=True)
class PlayRules:
    """An env's declaration (see the module docstring)."""

    answer_rule: str
    group_by: str = "agent"
    team_actions: bool = False

    def __post_init__(self) -> None:
        if self.answer_rule not in ANSWER_RULES:
            raise ValueError(f"answer_rule must be one of {', '.join(ANSWER_RULES)}, got {self.answer_rule!r}")
        if self.group_by not in DECLARED_GROUPINGS:
            raise ValueError(f"group_by must be one of {', '.join(DECLARED_GROUPINGS)}, got {self.group_by!r}")


def play_rules(env: Any) -> PlayRules:
    """The rules an env (class or instance; a wrapper is looked through) declares in ``metadata``."""
    base = getattr(env, "unwrapped", env) if not isinstance(env, type) else env
    metadata: Mapping[str, Any] = getattr(base, "metadata", None) or {}
    if "answer_rule" not in metadata:
        name = base.__name__ if isinstance(base, type) else type(base).__name__
        raise ValueError(f"{name} does not say how it plays: declare metadata['answer_rule'] (one of "
                         f"{', '.join(ANSWER_RULES)}), and for several agents 'group_by' "
                         f"({', '.join(DECLARED_GROUPINGS)}) and 'team_actions' (bool); see searchgym.envs.play_rules")
    return PlayRules(str(metadata["answer_rule"]), str(metadata.get("group_by", "agent")),
                     bool(metadata.get("team_actions", False)))
