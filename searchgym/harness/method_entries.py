"""The grammar of a ``--methods`` entry: ``name``, ``module:callable`` or ``label=name[k=v;k2=v2]``.

Why a module of its own: the entry's text rules (labels, bracketed options, commas between entries)
are read by ``compare``, ``evaluate`` and the leaderboard, apart from what a method is
(:mod:`searchgym.harness.methods`, which resolves an entry's name)."""

from __future__ import annotations

import json
import re
from typing import Any

#: A method label names a folder and a leaderboard row: no slashes, no "..", no spaces.
LABEL_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")
_WITH_OPTIONS = re.compile(r"^(?P<head>[^\[\]]+)\[(?P<options>[^\[\]]+)\]$")
#: In an option's value, a comma followed by another option's ``KEY=``: options separated by "," instead of ";".
_COMMA_OPTION = re.compile(r",\s*[A-Za-z_][\w.]*\s*=")


def parse_option_value(text: str) -> Any:
    """An option's value: JSON when it parses (3, 0.5, true, null), else the text itself."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def split_options(entry: str) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """``"label=name[k=v;k2=v2]"`` -> (``"label=name"``, ((k, v), (k2, v2))); no brackets: no options."""
    if "[" not in entry and "]" not in entry:
        return entry, ()
    if _unclosed(entry):  # before: "options go in brackets after a labelled method", for 'grpo[' too
        raise ValueError(f"method entry {entry!r}: its '[' is not closed; options go in brackets closed by ']', "
                         f"after a labelled method, e.g. grpo_kl=grpo[lr=0.001;loss.kl_coef=0.01]")
    match = _WITH_OPTIONS.match(entry)
    if match is None or "=" not in match["head"]:
        raise ValueError(f"method entry {entry!r}: options go in brackets after a labelled method, "
                         f"e.g. grpo_team=grpo[group_by=team;lr=0.001]")
    options = []
    for item in match["options"].split(";"):
        key, sep, value = item.strip().partition("=")
        if not sep or not key.strip():
            raise ValueError(f"method entry {entry!r}: an option looks like KEY=VALUE, got {item!r}")
        if _COMMA_OPTION.search(value):
            raise ValueError(f"method entry {entry!r}: separate the options in brackets with ';' (',' separates "
                             f"methods), e.g. grpo_team=grpo[group_by=team;lr=0.001]")
        if any(key.strip() == seen for seen, _ in options):  # before: the last one won, silently
            raise ValueError(f"method entry {entry!r}: option {key.strip()!r} is given twice; give it once")
        options.append((key.strip(), parse_option_value(value.strip())))
    return match["head"], tuple(options)


def _unclosed(entry: str) -> bool:
    """Whether a '[' of ``entry`` has no ']' after it to close it."""
    depth = 0
    for char in entry:
        depth = max(0, depth + (char == "[") - (char == "]"))
    return depth > 0


def check_label(label: str) -> str:
    if not LABEL_PATTERN.match(label) or ".." in label:
        raise ValueError(f"method label {label!r} is not accepted: use letters, digits and . _ + - "
                         f"(up to 64 characters, starting with a letter or digit, no '..')")
    return label


def split_entries(text: str) -> list[str]:
    """``--methods`` cut at the commas between entries, not at those inside an entry's brackets. Why:
    ``g=grpo[lr=0.01,group_size=4]`` was cut into ``g=grpo[lr=0.01`` and ``group_size=4]``, whose
    error said options go in brackets (they did); a JSON value's commas were cut the same way."""
    entries, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char == "[") - (char == "]")
        if char == "," and depth <= 0:
            entries.append(text[start:i])
            start = i + 1
    return [*entries, text[start:]]
