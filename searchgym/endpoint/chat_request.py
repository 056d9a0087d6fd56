"""The optional fields of a chat-completions request, checked for their JSON types.

Why: the scripted server read a field of the wrong type (``"stream": "yes"``, ``"tools": "x"``)
as absent and answered 200, so a client's mistake passed unnoticed against it and failed only
against a real server, which answers 400.
"""

from __future__ import annotations


from searchgym.damaged import json_kind

#: the optional fields of a chat request this server reads or that clients commonly send, with
#: the JSON types OpenAI's API accepts for them (a bool is no number here, as in JSON)
_OPTIONAL_FIELDS: dict[str, tuple[type, ...]] = {
    "model": (str,), "stream": (bool,), "stream_options": (dict,), "tools": (list,),
    "tool_choice": (str, dict), "temperature": (int, float), "top_p": (int, float), "n": (int,),
    "max_tokens": (int,), "max_completion_tokens": (int,), "stop": (str, list), "seed": (int,),
}
_TYPE_NAMES = {str: "a string", bool: "a boolean", dict: "an object", list: "a list", int: "an integer",
               float: "a number"}


def wrong_optional_field(request: dict) -> str | None:
    """What is wrong with the first optional field of ``request`` that has the wrong JSON type
    (null counts as absent), or None."""
    for name, types in _OPTIONAL_FIELDS.items():
        value = request.get(name)
        if value is None:
            continue
        if isinstance(value, bool) and bool not in types or not isinstance(value, types):
            accepted = " or ".join(_TYPE_NAMES[t] for t in types if not (t is int and float in types))
            return f"the field {name!r} must be {accepted}, got {json_kind(value)}"
    return None


def check_system_prompt(prompt: object) -> None:
    """The endpoint agent's ``system_prompt`` is non-empty text. Why: ``--agent-option system_prompt=3``
    went out as a number, and a real server answered 400 to every request of the run."""
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError(f"system_prompt must be a non-empty text, got {prompt!r:.40}")
