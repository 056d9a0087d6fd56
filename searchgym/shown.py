"""Values as an error message or a transcript shows them, without an error of their own.

Why: ``repr`` and ``json.dumps`` raise on an int past Python's limit for int-to-str conversion
(4,300 digits by default), so ``env.step(10**5000)`` crashed half-way through the step, while
writing "index ... is out of range".
"""

from __future__ import annotations

import math
from typing import Any


def huge_int(value: int) -> str:
    """An int ``str`` refuses, as its sign and about how many digits it has."""
    digits = int(abs(value).bit_length() * math.log10(2)) + 1  # the true count or one more
    return f"{'-' if value < 0 else ''}<an integer of about {digits} digits>"


def safe_repr(value: Any, limit: int | None = None) -> str:
    """``repr(value)`` cut to ``limit`` characters; an int too long to write is described instead,
    and so is a container holding one."""
    try:
        text = repr(value)
    except ValueError as exc:  # the digit limit (a custom __repr__ may raise it too)
        text = huge_int(value) if isinstance(value, int) else f"<a {type(value).__name__} that cannot be written: {exc}>"
    return text if limit is None else text[:limit]


def kind_of(value: Any) -> str:
    """What an error says it got instead: "an int", "a list", "None" (was "a int", "a NoneType")."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


#: C0 and C1 control characters and DEL, but newline and tab: what a terminal would act on.
_CONTROLS = {code: f"\\x{code:02x}" for code in (*range(0x00, 0x20), *range(0x7F, 0xA0)) if chr(code) not in "\n\t"}


def terminal_safe(text: str) -> str:
    """``text`` with control characters written as ``\\x1b`` and so on. Why: a page of someone else's
    corpus holding ESC sequences cleared the screen or set the window title when human-mode
    rendering printed it."""
    return text.translate(_CONTROLS)
