"""Team roles as data: who may call which tool and who may submit the team's answer.

A role is ``{"name": str, "tools": [tool names], "can_answer": bool}`` (a :class:`Role` is
accepted too). Every role may also ``post`` a note to the blackboard and ``wait``: those are
team actions, not tools. Two presets:

- ``"roles"``: ``lead`` (ask_for_clarification; posts notes; submits the answer), ``searcher``
  (web_search, knowledge_base) and ``analyst`` (calculator, current_time): each tool's
  registration names the members that get it;
- ``"generalists"``: ``team_size`` agents (default 3) named ``generalist_0`` ... with every tool,
  each of whom may answer.

:func:`resolve_roles` validates a team once, with errors that say what was wrong and what is
accepted (unknown tools, duplicate names, nobody able to answer, malformed entries).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from searchgym.envs.config import check_int
from searchgym.shown import safe_repr
from searchgym.tools.tool_registry import PRESET_ROLES, TOOL_NAMES, tool_specs

PRESETS = ("roles", "generalists")
DEFAULT_TEAM_SIZE = 3
MAX_TEAM_SIZE = 32
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_KEYS = ("name", "tools", "can_answer")


@dataclass(frozen=True)
class Role:
    """One team member's permissions; ``name`` is also its PettingZoo agent id."""

    name: str
    tools: tuple[str, ...]
    can_answer: bool = False

    def describe(self) -> str:
        tools = ", ".join(self.tools) or "no tools"
        return f"{self.name} ({tools}{'; submits the answer' if self.can_answer else ''})"


#: The member of the "roles" preset who submits the answer.
PRESET_ANSWERER = "lead"
#: The members of the "roles" preset (the tool registry's ``PRESET_ROLES``, the one list of them, which
#: ``ToolSpec.roles`` is checked against) and whether each submits the answer; a tool's registration
#: names the members that get it.
PRESET_MEMBERS = tuple((name, name == PRESET_ANSWERER) for name in PRESET_ROLES)


def roles_preset() -> tuple[Role, ...]:
    """The "roles" preset, with each member's tools read from the tool registry."""
    members = {name for name, _ in PRESET_MEMBERS}
    for spec in tool_specs():
        unknown = sorted(set(spec.roles) - members)
        if unknown:
            raise ValueError(f"tool {spec.name!r} is registered for unknown role(s) {unknown}; the roles preset "
                             f"has {', '.join(sorted(members))}")
    return tuple(Role(name, tuple(s.name for s in tool_specs() if name in s.roles), can_answer)
                 for name, can_answer in PRESET_MEMBERS)


#: The "roles" preset as the tools registered at import make it (:func:`roles_preset` is current).
ROLES_PRESET = roles_preset()


def generalists(team_size: int = DEFAULT_TEAM_SIZE) -> tuple[Role, ...]:
    """``team_size`` members with every tool, each able to answer."""
    team_size = check_int("team_size", team_size, 1, MAX_TEAM_SIZE)  # NumPy ints too
    return tuple(Role(f"generalist_{i}", tuple(TOOL_NAMES), can_answer=True) for i in range(team_size))


def _role_from(entry: object, index: int) -> Role:
    if isinstance(entry, Role):
        entry = {"name": entry.name, "tools": list(entry.tools), "can_answer": entry.can_answer}
    if not isinstance(entry, Mapping):
        raise ValueError(f"role #{index} must be a dict with keys {', '.join(_KEYS)}, got {type(entry).__name__}")
    unknown = sorted(set(entry) - set(_KEYS))
    if unknown:
        raise ValueError(f"role #{index} has unknown key(s) {unknown}; accepted: {', '.join(_KEYS)}")
    name = entry.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"role #{index}: name must be lower case letters, digits and '_' (starting with a "
                         f"letter, at most 32 characters), got {name!r}")
    tools = entry.get("tools", ())
    if isinstance(tools, str) or not isinstance(tools, Sequence) or not all(isinstance(t, str) for t in tools):
        # an item that is no string: before, a list item failed hashing in the registry (unhashable type: 'list')
        raise ValueError(f"role {name!r}: tools must be a list of tool names (strings), got {safe_repr(tools, 80)}")
    unknown_tools = [t for t in tools if t not in TOOL_NAMES]
    if unknown_tools:
        raise ValueError(f"role {name!r}: unknown tool(s) {unknown_tools}; accepted: {', '.join(TOOL_NAMES)} "
                         "(post and wait are team actions every role has)")
    if len(set(tools)) != len(tools):
        raise ValueError(f"role {name!r}: a tool is listed twice in {list(tools)}")
    can_answer = entry.get("can_answer", False)
    if not isinstance(can_answer, bool):
        raise ValueError(f"role {name!r}: can_answer must be True or False, got {can_answer!r}")
    return Role(name, tuple(t for t in TOOL_NAMES if t in tools), can_answer)


def resolve_roles(roles: str | Sequence[object] = "roles", team_size: int | None = None) -> tuple[Role, ...]:
    """Validated roles from a preset name or a list of role dicts (see the module docstring)."""
    if isinstance(roles, str):
        if roles not in PRESETS:
            raise ValueError(f"unknown roles preset {roles!r}; accepted: {', '.join(PRESETS)} or a list of "
                             "{'name', 'tools', 'can_answer'} dicts")
        if roles == "generalists":
            return generalists(DEFAULT_TEAM_SIZE if team_size is None else team_size)
        if team_size is not None:
            raise ValueError("team_size applies to roles='generalists' only (the 'roles' preset has 3 members)")
        return roles_preset()
    if team_size is not None:
        raise ValueError("team_size applies to roles='generalists' only; a role list sets its own size")
    if not isinstance(roles, Sequence) or not roles:
        raise ValueError(f"roles must be a preset name ({', '.join(PRESETS)}) or a non-empty list of role "
                         f"dicts, got {roles!r}")
    if len(roles) > MAX_TEAM_SIZE:
        raise ValueError(f"a team has at most {MAX_TEAM_SIZE} roles, got {len(roles)}")
    resolved = tuple(_role_from(entry, i) for i, entry in enumerate(roles))
    names = [r.name for r in resolved]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise ValueError(f"role names must be unique; repeated: {', '.join(duplicated)}")
    if not any(r.can_answer for r in resolved):
        raise ValueError("no role can submit the answer; give at least one role can_answer=True")
    return resolved
