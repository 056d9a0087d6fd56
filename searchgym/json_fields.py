"""The fields of a JSON file we read back, checked before a report, a recipe or a resume uses them.

Why: a file that parses is not yet a file we wrote. ``"success": "yes"``, ``"train_seconds": "x"``
or ``"dev_agreement"`` missing ended in ``could not convert string to float: 'yes'``, ``Unknown
format code 'f'`` or ``error: 'dev_agreement'``, naming no file; ``NaN`` and ``1e999`` (which
``json`` reads) were written into tables as ``nan`` and ``inf``. Each check here gives one line
that names the field, what it holds and what belongs there; callers put it in a
:class:`~searchgym.damaged.DamagedFile` with the file's name and remedy.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from searchgym.damaged import DELETE_AND_RERUN, DamagedFile


@dataclass(frozen=True)
class Kind:
    """What a field must hold: ``what`` is how a message says it, ``test`` decides it."""

    what: str
    test: Callable[[Any], bool]


def is_number(value: Any) -> bool:
    """A finite int or float, not a bool (``True`` is an int to Python, not a number to a table), and
    not an int past a float's range (before: ``"steps": 1e400`` written as 401 digits ended in
    "OverflowError: int too large to convert to float", a traceback naming no file)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


NUMBER = Kind("a finite number", is_number)
INT = Kind("a whole number", lambda v: isinstance(v, int) and not isinstance(v, bool))
COUNT = Kind("a whole number >= 0", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0)
SCORE = Kind("a finite number or true/false", lambda v: isinstance(v, bool) or is_number(v))
FLAG = Kind("true or false", lambda v: isinstance(v, bool))
TEXT = Kind("text", lambda v: isinstance(v, str))
OBJECT = Kind("an object", lambda v: isinstance(v, dict))
NUMBERS = Kind("a list of finite numbers", lambda v: isinstance(v, list) and all(is_number(x) for x in v))
OBJECTS = Kind("a list of objects", lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v))


def optional(kind: Kind) -> Kind:
    """``kind`` or null."""
    return Kind(f"{kind.what} or null", lambda v: v is None or kind.test(v))


#: The most characters a refused number takes in a message (a float's repr is at most 24).
MAX_NUMBER_TEXT = 24


def number_text(value: float) -> str:
    """A finite number as a message shows it, at most :data:`MAX_NUMBER_TEXT` characters: a float's
    shortest repr (``0.9``), an int's digits, a long one in ``1.23457e+300`` form."""
    text = repr(value)
    return text if len(text) <= MAX_NUMBER_TEXT else f"{value:.6g}"


def shown(value: Any) -> str:
    """How a message names a JSON value it refuses: "a string ('yes')", "NaN", "a number (7)", "a list",
    "null". A number shows its value (before: "a number where a number in 0..1 belongs", not which)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else f"{'-' if value < 0 else ''}infinity"
    if isinstance(value, str):
        return f"a string ({value[:40]!r})"
    if isinstance(value, int) and not is_number(value):
        return "a number too large to be a float"
    if isinstance(value, (int, float)):
        kind = "a negative number" if value < 0 else "a number with a fraction" if isinstance(value, float) \
            else "a number"
        return f"{kind} ({number_text(value)})"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__


_ABSENT = object()


def field_problem(record: Mapping[str, Any], required: Mapping[str, Kind] | None = None,
                  present: Mapping[str, Kind] | None = None) -> str:
    """What is wrong with ``record`` ("" when nothing): each ``required`` field must be there and of
    its kind; each ``present`` field only when it is there. A dotted name ("dev.all.success") looks
    inside objects (an object on the way that is missing counts as the field missing)."""
    for name, kind, needed in [*((n, k, True) for n, k in (required or {}).items()),
                               *((n, k, False) for n, k in (present or {}).items())]:
        value: Any = record
        for depth, part in enumerate(name.split(".")):
            if not isinstance(value, Mapping):
                return f"its {'.'.join(name.split('.')[:depth])!r} is {shown(value)} where an object belongs"
            if part not in value:
                value = _ABSENT
                break
            value = value[part]
        if value is _ABSENT:
            if needed:
                return f"lacks {name!r} ({kind.what})"
        elif not kind.test(value):
            return f"its {name!r} is {shown(value)} where {kind.what} belongs"
    return ""


def check_fields(path: str | os.PathLike, record: Mapping[str, Any], required: Mapping[str, Kind] | None = None,
                 present: Mapping[str, Kind] | None = None, remedy: str = DELETE_AND_RERUN) -> None:
    """:func:`field_problem` as a :class:`DamagedFile` naming ``path``."""
    problem = field_problem(record, required, present)
    if problem:
        raise DamagedFile(path, problem, remedy)
