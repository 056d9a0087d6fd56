"""The registrations a run depends on, as its config.json records them, against this process's: its tools
(``name=module.Class``), its env id and its task families.

Why: every env plays every registered tool, so a tool is part of a suite's definition (and hash); a
process that lacks a user's registration (a plugin not loaded, a tool registered under the main guard
of a script whose worker processes never see it) either played without it, unsaid, or failed to read
the runs with a message that named the suite, not the missing plugin.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from searchgym.registry import ENV_IDS
from searchgym.suites import BUILT_IN_TOOLS, registered_tools, tool_record
from searchgym.tools.tool_registry import tool_specs
from searchgym.world.families import FAMILIES


def tool_records() -> list[str]:
    """Every registered tool as ``name=module.Class`` (as a suite's ``registered_tools`` records them), in
    tool order, searchgym's own included."""
    return [tool_record(s) for s in tool_specs()]


def tools_lacking(expected: Sequence[str], present: Sequence[str]) -> list[str]:
    """The tools of ``expected`` (``name=module.Class`` records, as :func:`~searchgym.suites.tool_record` writes
    them: a worker's copy of the script is ``__main__`` there too) that ``present`` lacks or registers with
    another class, each as ``name (module.Class)``."""
    have = dict(_tool_record(record) for record in present)
    return [f"{name} ({path})" for name, path in map(_tool_record, expected) if have.get(name) != path]


def registrations_lacking(definition: Mapping[str, Any]) -> list[str]:
    """What a suite ``definition`` recorded by a run (its config.json's ``suite``) names that this process
    has not registered: its recorded tools (``tool word_count (mypkg.WordCount)``), its env id and its
    task families. Why: a report without the plugin that made them said "unknown suite", or that the
    runs' scores were not on their suite."""
    recorded = definition.get("registered_tools")
    lacking = [f"tool {tool}" for tool in tools_lacking(recorded, tool_records())] if _texts(recorded) else []
    env_id = definition.get("env_id")
    if isinstance(env_id, str) and env_id.removeprefix("searchgym/") not in ENV_IDS:
        lacking.append(f"env id {env_id!r}")
    named = [f for key in ("families", "train_families") if _texts(definition.get(key)) for f in definition[key]]
    lacking += [f"task family {family!r}" for family in dict.fromkeys(named) if family not in FAMILIES]
    return lacking


def tools_unrecorded(definition: Mapping[str, Any]) -> list[str]:
    """The tools this process registers beyond searchgym's own that a run's suite ``definition`` does not
    record (the run was played without them), each as ``name (module.Class)``."""
    mine = registered_tools() or []  # None: searchgym's own tools alone
    recorded = definition.get("registered_tools")
    if not _texts(recorded):  # a definition records no tools when they were searchgym's own, as registered
        recorded = [r for r in mine if (part := r.partition("="))[0] in BUILT_IN_TOOLS
                    and part[2].startswith("searchgym.tools.") and "[" not in part[2]]  # [...]: other settings
    return tools_lacking(mine, recorded)


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _tool_record(record: str) -> tuple[str, str]:
    name, _, path = record.partition("=")
    return name, path
