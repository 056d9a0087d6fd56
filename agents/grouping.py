"""Which trajectories form one GRPO group: the one rule both learners (candidate and LLM) use.

An env declares its natural grouping in ``metadata["group_by"]`` (:mod:`searchgym.envs.play_rules`):
``"episode"`` for independent attempts at one task (``GroupSearchEnv``: an episode's K agents are
one group) and ``"agent"`` for a team with a shared reward (``TeamSearchEnv``: each agent with itself
across a task's G episodes). A trainer may ask for:

- ``"auto"``: one episode per task groups by episode, else the env's declaration;
- ``"episode"`` / ``"agent"``: that grouping (``"role"`` is ``"agent"``: an agent is its role);
- ``"team"``: every agent of a task's episodes in one group (needs a team, not independent attempts).

>>> resolve_grouping("auto", "agent", episodes_per_task=4), resolve_grouping("role", "agent", 4)
('agent', 'agent')
>>> resolve_grouping("auto", "agent", episodes_per_task=1)
'episode'
"""

from __future__ import annotations

#: The groupings a trainer may ask for.
GROUPINGS = ("auto", "episode", "agent", "role", "team")
#: The one group of a task under ``"team"``.
TEAM_GROUP = "team"


def resolve_grouping(group_by: str, env_grouping: str, episodes_per_task: int) -> str:
    """The effective grouping ("episode", "agent" or "team") of a collection, checked.

    ``env_grouping`` is the env's declaration, ``env.metadata.get("group_by", "agent")``.
    """
    if group_by not in GROUPINGS:
        raise ValueError(f"unknown group_by {group_by!r}; accepted: {', '.join(GROUPINGS)}")
    if group_by == "auto":
        return "episode" if episodes_per_task == 1 else env_grouping
    if group_by in ("role", "team") and env_grouping == "episode":
        raise ValueError(f"group_by={group_by!r} compares the agents of one team across a task's episodes; this env's "
                         "agents are independent attempts grouped per episode (metadata group_by='episode'): use "
                         "group_by='auto'")
    return "agent" if group_by == "role" else group_by
