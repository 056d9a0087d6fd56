"""Option values a user typed, checked against the declared type of the dataclass field they set.

Why: ``--options '{"lr": "abc"}'`` or ``--option group_size=4.5`` otherwise reaches the run and
fails deep inside it (``'<=' not supported between instances of 'float' and 'str'``), after a
run folder was made. Here it is one line naming the option, what it takes and what was given.
Only the plain annotations of the config dataclasses are read (``int``, ``float``, ``bool``,
``str``, ``dict[...]``, ``tuple[T, ...]`` and ``X | None``); any other annotation is not checked.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

#: annotation -> (test, what it takes); a bool is not accepted as a number (JSON true is no count).
_PLAIN: dict[str, tuple[Any, str]] = {
    "int": (lambda v: type(v) is int, "an integer"),
    "float": (lambda v: type(v) in (int, float) and v == v, "a number"),  # NaN (JSON's NaN) is none: a NaN loss
    "bool": (lambda v: type(v) is bool, "true or false"),
    "str": (lambda v: type(v) is str, "a string"),
}


def _takes(annotation: str, value: Any) -> str | None:
    """None when ``value`` fits ``annotation`` (or the annotation is not a plain one), else what it takes."""
    kinds = [part.strip() for part in annotation.split("|")]
    if "None" in kinds:
        if value is None:
            return None
        kinds.remove("None")
    if len(kinds) != 1:
        return None
    kind, optional = kinds[0], " or null" if "None" in annotation else ""
    if kind in _PLAIN:
        test, what = _PLAIN[kind]
        return None if test(value) else what + optional
    if kind.startswith("dict["):
        return None if isinstance(value, Mapping) else "a JSON object" + optional
    if kind.startswith("tuple[") and kind.endswith(", ...]") and kind[6:-6] in _PLAIN:
        test, what = _PLAIN[kind[6:-6]]
        fits = isinstance(value, (list, tuple)) and all(test(v) for v in value)
        return None if fits else f"a list of {what.removeprefix('an ').removeprefix('a ')}s{optional}"
    return None


def check_option_type(name: str, value: Any, annotation: Any, owner: str) -> None:
    """Raise ``ValueError`` when ``value`` does not fit the field's declared type."""
    if not isinstance(annotation, str):
        annotation = getattr(annotation, "__name__", str(annotation))
    takes = _takes(annotation, value)
    if takes is not None:
        try:  # shown as typed: options are JSON (null, true, "4")
            shown = json.dumps(value)
        except (TypeError, ValueError):
            shown = repr(value)
        raise ValueError(f"option {name!r} of {owner} takes {takes}, got {shown[:200]}")


def check_options(kind: type, options: Mapping[str, Any], owner: str) -> None:
    """Check each of ``options`` that names a field of the dataclass ``kind`` against its type."""
    fields = {f.name: f.type for f in dataclasses.fields(kind)}
    for name, value in options.items():
        if name in fields:
            check_option_type(name, value, fields[name], owner)
