"""What a "holds a different run" refusal names: each setting config.json records that the command's
differs from, by its own key, and never nothing.

Why: the whole options dict was shown twice (3,162 characters for one LLM option), a changed world
only as its suite hash; an option given as ``null`` where the other side had none at all, or a suite
definition recorded before one of its fields existed, named nothing ("holds a different run ()", or
two hashes); and two suites of one definition whose tasks, world or scoring rules another searchgym
made showed two hashes with no word of why. A key one side lacks is shown as absent there, never as
None (which is what a key recorded as ``null`` shows): "options.x: None there, 3 now" was shown for
an option the folder's run was never given, and "policy_format: None there, 2 now" for a folder made
before policy layouts were recorded, which now says an older searchgym made it.
"""

from __future__ import annotations

from typing import Any

from searchgym.shown import safe_repr

#: config.json fields that must be equal for a run directory to be resumed or reused (every run records them).
IDENTITY_KEYS = ("suite_id", "suite_hash", "method", "method_path", "seed", "budget", "policy", "policy_format",
                 "options")
#: How a key one side lacks is shown on that side.
ABSENT = "absent"
#: Why a folder lacks a key that every run's config.json records now (IDENTITY_KEYS).
OLDER = "a folder made by an older searchgym"
#: Why two suites of one recorded definition have two hashes.
SAME_DEFINITION = ("the same suite definition: its tasks, world or scoring rules differ, as another "
                   "searchgym version makes them")
#: Why a suite hash is all a folder shows of its suite.
NO_DEFINITION = "config.json records no suite definition to compare"
MOST_LINES = 8


def changes(there: Any, now: Any, name: str) -> list[str]:
    """``name: X there, Y now`` for each differing leaf of two JSON values (dicts compared key by key; a
    key one side lacks is a difference, that side shown as absent, and a null value as None)."""
    if not (isinstance(there, dict) and isinstance(now, dict)):
        return [f"{name}: {safe_repr(there, 80)} there, {safe_repr(now, 80)} now"]
    lines = []
    for key in dict.fromkeys([*there, *now]):
        if key in there and key in now:
            if there[key] != now[key]:
                lines += changes(there[key], now[key], f"{name}.{key}")
        else:
            lines.append(f"{name}.{key}: {_shown(there, key)} there, {_shown(now, key)} now")
    return lines


def _shown(values: dict, key: str) -> str:
    return safe_repr(values[key], 80) if key in values else ABSENT


def _absent_there(recorded: dict, given: dict, key: str) -> str:
    """The line of a key one side lacks; a key every run records now that config.json lacks says an older
    searchgym made the folder."""
    why = f" ({OLDER})" if key not in recorded and key in IDENTITY_KEYS else ""
    return f"{key}: {_shown(recorded, key)} there{why}, {_shown(given, key)} now"


def suite_changes(recorded: dict, mine: dict, definition: dict) -> list[str]:
    """The suite's changed fields (its recorded definition against ``definition``); where none
    changed, its hashes with why they differ."""
    suite = recorded.get("suite")
    named = changes(suite, definition, "suite") if isinstance(suite, dict) else []
    if named:
        return named
    why = SAME_DEFINITION if isinstance(suite, dict) else NO_DEFINITION
    return [f"suite_hash: {safe_repr(recorded.get('suite_hash'), 80)} there, "
            f"{safe_repr(mine.get('suite_hash'), 80)} now ({why})"]


def shown_options(compared: Any, given: Any, other: Any) -> Any:
    """The options as a refusal shows them: those compared, and those given at their default where the
    other side's differ (``lr: 0.003 there, 0.01 now``, not ``None there``)."""
    if not (isinstance(compared, dict) and isinstance(given, dict) and isinstance(other, dict)):
        return compared
    return {**{key: value for key, value in given.items() if key in other}, **compared}


def what_differs(there: dict, mine: dict, keys: list[str], definition: dict,
                 recorded: dict, given: dict) -> list[str]:
    """The lines of a refusal: ``there`` and ``mine`` as compared (:mod:`~.identity_reads`), ``keys``
    those that differ, ``definition`` the command's suite, ``recorded`` and ``given`` the settings as
    config.json and the command hold them."""
    lines = []
    for key in keys:
        if key == "suite_hash":
            lines += suite_changes(there, mine, definition)
        elif (key in recorded) != (key in given):
            lines.append(_absent_there(recorded, given, key))
        elif key == "options":
            lines += changes(shown_options(there.get(key), recorded.get(key), mine.get(key)),
                             shown_options(mine.get(key), given.get(key), there.get(key)), key)
        else:
            lines += changes(there.get(key), mine.get(key), key)
    return lines[:MOST_LINES] + ([f"and {len(lines) - MOST_LINES} more"] if len(lines) > MOST_LINES else [])
