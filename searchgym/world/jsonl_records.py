"""Reading a user's JSONL file as records that a JSON Schema accepts, each error naming ``file:line``.

Why: these files come from outside (a corpus export, a QA data set), and a loader that coerces
with ``str()`` turns ``null`` or ``5`` into a page or question that reads "None" or "5" and no one
notices. Here a line is checked before it is used: UTF-8 (the bytes of a line, so a bad byte
names its line), JSON without ``NaN``/``Infinity`` or repeated keys, shallow nesting (a deeply
nested line made ``json.loads`` raise ``RecursionError``), an object the schema accepts, strings
that are valid Unicode (no unpaired surrogates), and an ``id`` no earlier line used.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from searchgym.bounded_json import MAX_DEPTH, loads_shallow

_SURROGATE = re.compile("[\ud800-\udfff]")
#: Only an escape can put a surrogate into text decoded from UTF-8.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class RecordError(ValueError):
    """A line of a user's JSONL file that is not a valid record; the message starts with ``file:line``."""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        raise ValueError(f"key(s) {repeated} appear more than once in one object")
    return dict(pairs)


@lru_cache(maxsize=8)
def _validator(schema_json: str) -> Any:
    import jsonschema

    schema = json.loads(schema_json)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _schema_error(row: Any, schema: Mapping[str, Any], forms: Mapping[str, str], validator: Any) -> str | None:
    """Why ``row`` fails ``schema`` (one sentence naming the field and what it must be), or None."""
    if validator.is_valid(row):
        return None
    required = list(schema.get("required", ()))
    if not isinstance(row, dict):
        return f"expected a JSON object with keys {required}, got {_shown(row)}"
    missing = [k for k in required if k not in row]
    if missing:
        return f"missing key(s) {missing}; expected {required}"
    import jsonschema

    error = jsonschema.exceptions.best_match(validator.iter_errors(row))
    field = str(error.absolute_path[0]) if error.absolute_path else ""
    if field in forms:
        return f"{field!r} must be {forms[field]}, got {_shown(row[field])}"
    return error.message[:200]


def _unicode_error(row: dict[str, Any], fields: tuple[str, ...]) -> str | None:
    for field in fields:
        values = row.get(field)
        for value in values if isinstance(values, list) else [values]:
            found = _SURROGATE.search(value) if isinstance(value, str) else None
            if found is not None:
                return (f"{field!r} holds an unpaired surrogate U+{ord(found.group()):04X} at position "
                        f"{found.start()}; text must be valid Unicode")
    return None


#: The longest line read (a page of a corpus export is far shorter). Why: one 60 MB line took 1.8 GB
#: and 14 s to load, so a few hundred MB of someone else's file could exhaust the machine.
MAX_LINE_BYTES = 16 * 1024 * 1024


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line; a byte that is not UTF-8 or a line over
    :data:`MAX_LINE_BYTES` is an error naming its line."""
    with path.open("rb") as handle:
        number = 0
        while raw := handle.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise RecordError(f"{path}:{number}: a line of more than {MAX_LINE_BYTES // 2**20} MiB; split the "
                                  "record (a page or a task per line, each at most that long)")
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise RecordError(f"{path}:{number}: not UTF-8 text ({exc.reason} at byte {exc.start} of the line)"
                                  ) from None
            if line.strip():
                yield number, line


def read_records(path: str | Path, schema: Mapping[str, Any], forms: Mapping[str, str],
                 kind: str, check: Callable[[dict[str, Any]], str | None] | None = None) -> list[dict[str, Any]]:
    """Every line of ``path`` as a dict that ``schema`` accepts, with unique ``id``s.

    ``forms`` says, per field, what it must be (the error text); ``kind`` names a record ("page");
    ``check`` says what else is wrong with a record the schema accepts (None: nothing)."""
    if str(path) == "":  # before: reported as "not a regular file: ." (Path("") is the current folder)
        raise FileNotFoundError(f"the {kind}s file path is empty; give the path of a JSONL file")
    path = Path(path)
    if not path.is_file():  # before: a device or a folder there was "no such JSONL file" too
        what = "no such JSONL file" if not path.exists() else "not a regular file (a JSONL file is read from a file)"
        raise FileNotFoundError(f"{what}: {path}")
    validator = _validator(json.dumps(schema, sort_keys=True))
    rows: list[dict[str, Any]] = []
    first_line: dict[str, int] = {}
    for number, line in _lines(path):
        where = f"{path}:{number}"
        try:
            row = loads_shallow(line, MAX_DEPTH, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        except ValueError as exc:  # too deep, NaN/Infinity, a repeated key
            raise RecordError(f"{where}: not accepted JSON: {exc}") from None
        problem = _schema_error(row, schema, forms, validator)
        if problem is None and _SURROGATE_ESCAPE.search(line):
            problem = _unicode_error(row, tuple(forms))
        if problem is None and check is not None:
            problem = check(row)
        if problem is not None:
            raise RecordError(f"{where}: {problem}")
        if row["id"] in first_line:
            raise RecordError(f"{where}: duplicate {kind} id {row['id']!r} (first on line {first_line[row['id']]}); "
                              f"every {kind} id must be unique")
        first_line[row["id"]] = number
        rows.append(row)
    if not rows:
        raise RecordError(f"{path}: no {kind}s: expected one JSON object per line")
    return rows


__all__ = ["RecordError", "read_records"]
