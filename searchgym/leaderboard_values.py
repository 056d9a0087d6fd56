"""A submission's bytes and values, checked as they are parsed and before the schema.

Why: a hostile file can hold what ``json.loads`` accepts but the board cannot use: ``NaN`` and
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
from typing import Any

from searchgym.action_types import MAX_ANSWER_CHARS
from searchgym.bounded_json import loads_shallow
from searchgym.harness.written_text import read_answer

#: Digits an integer may have (int64 has 19; every count and seed here fits in 18).
MAX_INT_DIGITS = 18
_INT_LIMIT = 10**MAX_INT_DIGITS  # the least int of more digits
#: Characters no submitted string may hold: C0/C1 controls (newlines and tabs included), unpaired
#: surrogates, and bidirectional embeddings, overrides and isolates.
FORBIDDEN_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")
#: The most items of any list or object (the schema's largest, predictions' maxItems).
MAX_ITEMS = 100_000


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
    """Every string (keys too) free of FORBIDDEN_CHARS, every number finite and bounded, every list and object
    of at most MAX_ITEMS (before the schema); iterative, a path made only for a container or a refusal."""
    pending: list[tuple[str, Any, Any, bool]] = [("", None, submission, False)]  # parent, key, value, in a list
    while pending:
        parent, key, value, listed = pending.pop()
        if (value is None or isinstance(value, bool) or (type(value) is str and not FORBIDDEN_CHARS.search(value))
                or (type(value) is int and abs(value) < _INT_LIMIT) or (type(value) is float and math.isfinite(value))):
            continue
        where = parent if key is None else f"{parent}/{key}" if parent or listed else str(key)
        if isinstance(value, Mapping | list | tuple) and len(value) > MAX_ITEMS:
            raise SubmissionRejected(f"{where or '(top level)'}: {len(value)} {'keys' if isinstance(value, Mapping) else 'items'}"
                                     f", where at most {MAX_ITEMS} are accepted in any object or list")
        if isinstance(value, Mapping):
            for name, item in value.items():
                if FORBIDDEN_CHARS.search(str(name)):
                    _check_string(str(name), f"a key at {where or '(top level)'}")
                pending.append((where, name, item, False))
        elif isinstance(value, list | tuple):
            pending.extend((where, i, item, True) for i, item in enumerate(value))
        elif isinstance(value, str):
            _check_string(value, where or "(top level)")
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
    """``text`` with every FORBIDDEN_CHARS character replaced by a space (not for a run's answer, which a
    space may score differently: :func:`run_answer_text`)."""
    return FORBIDDEN_CHARS.sub(" ", text)


#: A surrogate code point in a run's answer, as read back from predictions.jsonl (``read_answer``).
_RUN_SURROGATE = re.compile("[\ud800-\udfff]")
#: What the board holds for such a surrogate: a character the scorer reads as it reads a surrogate
#: (no space, punctuation, digit nor word character), which a UTF-8 file can hold.
SURROGATE_STAND_IN = "\ufffd"
#: What the board holds for a whitespace control (a tab, a carriage return, and \x1c-\x1f and \x85, which
#: Python splits words on too): a space the scorer reads as it reads them, where " " is not (" and " separates
#: list items, "and\t" does not).
SPACE_STAND_IN = "\u00a0"
#: What the board holds for a newline in a list task's answer: the scorer splits list items on a newline
#: and on ";", and normalisation drops ";" where it reads a newline as a space. In any other task's answer
#: a newline is SPACE_STAND_IN (a ";" would end a number before its scale word: "12\nmillion" is 12e6).
LIST_NEWLINE = SPACE_STAND_IN + ";"
#: Each character FORBIDDEN_CHARS finds (but surrogates and newlines), in a run's answer: a whitespace control
#: as SPACE_STAND_IN; another C0 control or DEL as its Control Pictures symbol ("\x00" as U+2400), which the
#: scorer reads as it reads the control (neither space, punctuation, digit nor word character) and which keeps
#: two controls apart (two items differing in them are two items); a C1 or bidirectional control as U+FFFD.
_STAND_INS = {code: SPACE_STAND_IN if chr(code).isspace() else chr(0x2400 + code) if code < 0x20 else
              "\u2421" if code == 0x7F else SURROGATE_STAND_IN
              for code in (*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def run_answer_text(answer: str, answer_type: str | None = None) -> str:
    """A run's answer (as predictions.jsonl holds it) as a submission holds it, scoring as ``evaluate`` scored
    the agent's answer: read back as the agent gave it (``searchgym.harness.written_text.read_answer``: the
    escape text ``\\udXXX`` there is a surrogate, ``\\\\udXXX`` the six characters the agent wrote), each
    surrogate as U+FFFD; every other character no submission may hold as its stand-in (:data:`_STAND_INS`;
    a newline of a list task's answer as :data:`LIST_NEWLINE`, or as ";" where that would make the answer
    longer than a submission takes: items are then split as before, but words either side of a ";" are
    read as one word). Why: the escape text was scored instead ("\\ud800" before "1953" hid the number
    evaluate matched), and each control was a space, which made a list written one item per line one item,
    and "Paris\\x00" right; then six characters ``\\udXXX`` the agent wrote were scored as a surrogate."""
    text = _RUN_SURROGATE.sub(SURROGATE_STAND_IN, read_answer(answer))
    if answer_type == "list" and "\n" in text:
        spaced = text.replace("\n", LIST_NEWLINE)
        text = spaced if len(spaced) <= MAX_ANSWER_CHARS else text.replace("\n", ";")
    return text.translate(_STAND_INS)
