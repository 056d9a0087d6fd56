"""The text of a chat message's content, read one way everywhere.

Why a layer-0 file: the endpoint agent, the scripted endpoint, the TRL reward and the guided
decoder's admissible replies (an agent, below the endpoint) all read a message's content, which
the OpenAI format allows as a string or a list of content parts; each reading it its own way
(``str(content)`` made a list of parts its Python repr) gave them different texts.
"""

from __future__ import annotations

from typing import Any


def message_text(content: Any) -> str:
    """A chat message's content as text: a string, or the text of a list of content parts (``[{"type":
    "text", "text": ...}]``, a bare string counting as its text; a part with no string text adds nothing:
    a client's ``{"text": 5}`` was a TypeError, and no reply); anything else (None too) is no text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p["text"] if isinstance(p, dict) and isinstance(p.get("text"), str)
                       else p if isinstance(p, str) else "" for p in content)
    return ""
