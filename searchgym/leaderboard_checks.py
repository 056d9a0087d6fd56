"""The checks on a submission's bytes and values that JSON Schema cannot make.

A hostile file can hold what ``json.loads`` accepts but the board cannot use: ``NaN`` and
``Infinity`` (every comparison with NaN is False, so a NaN metric would pass a tolerance check),
an integer of thousands of digits (Python refuses to convert it past 4,300 digits), a lone
UTF-16 surrogate (``"\\ud800"``: valid JSON, but no UTF-8 file can hold it, so the page could
not be written), control and bidirectional-override characters (they rewrite how a row reads),
and names like ``"random\\n"`` (Python's ``$`` matches before a final newline, so a schema
pattern ``^...$`` checked with ``re.search`` lets it through). Each is rejected with a reason.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from searchgym.bounded_json import loads_shallow

#: Digits an integer may have (int64 has 19; every count and seed here fits in 18).
MAX_INT_DIGITS = 18
#: Characters no submitted string may hold: C0/C1 controls (newlines and tabs included), unpaired
#: surrogates, and bidirectional embeddings, overrides and isolates.
FORBIDDEN_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


class SubmissionRejected(ValueError):
    """A submission failed verification; the message says why."""


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise SubmissionRejected(f"the number {text[:40]} is out of range; only finite numbers are accepted")
    return value


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise SubmissionRejected(f"an integer has {digits} digits; at most {MAX_INT_DIGITS} are accepted")
    return int(text)


def _no_constant(name: str) -> Any:
    raise SubmissionRejected(f"{name} is not a number JSON allows; only finite numbers are accepted")


def parse_submission(data: bytes) -> Any:
    """The submission's JSON, refusing non-finite numbers and oversized integers as it parses."""
    try:
        return loads_shallow(data.decode("utf-8"), parse_float=_finite_float, parse_int=_bounded_int,
                             parse_constant=_no_constant)
    except SubmissionRejected:
        raise
    except UnicodeDecodeError as exc:
        raise SubmissionRejected(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise SubmissionRejected(f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:  # nested deeper than a submission ever is
        raise SubmissionRejected(f"invalid JSON: {exc}") from None


def _describe(char: str) -> str:
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        return f"an unpaired surrogate U+{code:04X}"
    if code in (0x202A, 0x202B, 0x202C, 0x202D, 0x202E) or 0x2066 <= code <= 0x2069:
        return f"a bidirectional control character U+{code:04X}"
    return f"a control character U+{code:04X}"


def check_values(submission: Any) -> None:
    """Every string (keys too) free of FORBIDDEN_CHARS, every number finite and bounded; iterative,
    so any nesting costs time linear in the size."""
    pending: list[tuple[str, Any]] = [("", submission)]
    while pending:
        where, value = pending.pop()
        if isinstance(value, Mapping):
            for key, item in value.items():
                path = f"{where}/{key}" if where else str(key)
                _check_string(str(key), f"a key at {where or '(top level)'}")
                pending.append((path, item))
        elif isinstance(value, list | tuple):
            pending.extend((f"{where}/{i}", item) for i, item in enumerate(value))
        elif isinstance(value, str):
            _check_string(value, where or "(top level)")
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, float) and not math.isfinite(value):
            raise SubmissionRejected(f"{where}: {value} is not finite; only finite numbers are accepted")
        elif isinstance(value, int) and len(str(abs(value))) > MAX_INT_DIGITS:
            raise SubmissionRejected(f"{where}: an integer of more than {MAX_INT_DIGITS} digits is not accepted")


def _check_string(text: str, where: str) -> None:
    found = FORBIDDEN_CHARS.search(text)
    if found is not None:
        raise SubmissionRejected(f"{where}: the text holds {_describe(found.group())} at position {found.start()}; "
                                 "control, bidirectional-override and unpaired surrogate characters are not accepted")


def clean_text(text: str) -> str:
    """``text`` with every FORBIDDEN_CHARS character replaced by a space (for answers a run wrote)."""
    return FORBIDDEN_CHARS.sub(" ", text)


@lru_cache(maxsize=4)
def _validator_class() -> Any:
    """Draft 2020-12 with ``pattern`` read as ECMA-262 reads it: an anchored ``^...$`` must match
    the whole string (``re.fullmatch``), not stop before a final newline."""
    import jsonschema

    def pattern(validator: Any, regex: str, instance: Any, schema: Mapping[str, Any]) -> Any:
        if not validator.is_type(instance, "string"):
            return
        anchored = regex.startswith("^") and regex.endswith("$") and not regex.endswith("\\$")
        matched = re.fullmatch(regex[1:-1], instance) if anchored else re.search(regex, instance)
        if matched is None:
            yield jsonschema.ValidationError(f"{instance[:80]!r} does not match {regex!r}")

    base = jsonschema.Draft202012Validator
    return jsonschema.validators.extend(base, {"pattern": pattern})


def check_schema(submission: Any, schema: Mapping[str, Any]) -> None:
    import jsonschema

    validator = _validator_class()(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(submission))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        message = error.message if len(error.message) <= 300 else error.message[:300] + "..."
        if error.validator == "pattern" or error.validator == "not":
            message = f"value does not match the accepted form ({error.schema.get('description') or error.validator})"
        raise SubmissionRejected(f"schema violation at {where}: {message}")
