"""Text as a run's JSONL files hold it (an answer in ``predictions.jsonl``, every string of
``transcripts.jsonl``), and read back exactly.

Why: ``json.dumps`` writes an unpaired UTF-16 surrogate (a cut emoji, bytes decoded with surrogateescape,
a server's ``"\\ud800"``) as the JSON escape ``\\ud800``, which strict JSON readers (pyarrow's, jq) refuse:
no row of the file could be read there. So each surrogate code point is written as its escape text, the six
characters ``\\udXXX`` (hex in lower case), which every reader takes. That text alone was ambiguous: an agent
that wrote those six characters itself was read back as a surrogate (and scored as one on the board). So a
run of backslashes just before such a surrogate, or before the text ``udXXX`` itself, is written doubled:
read back, an odd run ends in a surrogate, an even one is literal backslashes. Any other text, backslashes
and control characters included, is written as it is (and read as it was written before this scheme).
"""

from __future__ import annotations

import re
from typing import Any

#: A surrogate code point after any backslashes, or backslashes before the text of a surrogate's escape.
#: The look-behind starts a match only at the first backslash of a run (one pass, however long the run).
_TO_WRITE = re.compile(r"(?<!\\)(\\*)([\ud800-\udfff])|(?<!\\)(\\+)(?=ud[89a-f][0-9a-f]{2})")
#: A run of backslashes before the text ``udXXX``: odd, its last one starts a surrogate's escape.
_TO_READ = re.compile(r"(?<!\\)(\\+)(ud[89a-f][0-9a-f]{2})")


def _write(found: re.Match) -> str:
    if found.group(2) is None:  # backslashes before the text "udXXX"
        return found.group(3) * 2
    return found.group(1) * 2 + f"\\u{ord(found.group(2)):04x}"


def _read(found: re.Match) -> str:
    slashes, code = len(found.group(1)), found.group(2)
    return "\\" * (slashes // 2) + (chr(int(code[1:], 16)) if slashes % 2 else code)


def written_answer(answer: str | None) -> str | None:
    """``answer`` as a file holds it: each surrogate code point (paired or not) as its escape text
    ``\\udXXX``, backslashes just before such a code point or before the text ``udXXX`` doubled; every
    other character as it is. :func:`read_answer` gives ``answer`` back."""
    if answer is None or ("\\" not in answer and answer.isascii()):
        return answer
    return _TO_WRITE.sub(_write, answer)


def read_answer(text: Any) -> Any:
    """The text :func:`written_answer` wrote, as it was given (anything but a string as it is). A file
    written before backslashes were doubled reads as before: ``\\udXXX`` is the surrogate."""
    if not isinstance(text, str) or "\\" not in text:
        return text
    return _TO_READ.sub(_read, text)


def written_strings(value: Any) -> Any:
    """``value`` (a JSON row) with every string in it, keys included, as :func:`written_answer` writes it."""
    if isinstance(value, str):
        return written_answer(value)
    if isinstance(value, dict):
        return {written_strings(k): written_strings(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [written_strings(v) for v in value]
    return value


def read_strings(value: Any) -> Any:
    """``value`` read from a row :func:`written_strings` wrote: every string, keys included, as given."""
    if isinstance(value, str):
        return read_answer(value)
    if isinstance(value, dict):
        return {read_strings(k): read_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [read_strings(v) for v in value]
    return value


__all__ = ["read_answer", "read_strings", "written_answer", "written_strings"]
