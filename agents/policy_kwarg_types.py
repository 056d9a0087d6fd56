"""A policy's keyword arguments checked against the types its constructors declare.

Why: ``policy_kwargs={"operand_sources": "false"}`` was taken and recorded, and the non-empty
string turned the feature ON (``"no"`` left the attn policy's ``hop_features`` on): the run used
the opposite of the setting asked for, silently. The accepted types are read from the constructors'
signatures (the annotation where it is a plain one, else the default's type), not from a table, so
a new keyword argument is checked as soon as it is declared.
"""

from __future__ import annotations

import inspect
import numbers
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from searchgym.shown import safe_repr

#: Constructor parameters that are no policy kwargs (``make_policy`` sets them).
NOT_KWARGS = ("self", "device", "seed", "encoder")

#: plain type -> (test, what it takes); a bool is no number (``true`` is no count, ``1`` no switch),
#: and a path may be given where a string is (a model folder).
_PLAIN: dict[str, tuple[Callable[[Any], bool], str]] = {
    "bool": (lambda v: type(v) is bool, "a bool (true or false)"),
    "int": (lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool), "an integer"),
    "float": (lambda v: isinstance(v, numbers.Real) and not isinstance(v, bool), "a number"),
    "str": (lambda v: isinstance(v, str | os.PathLike), "a string"),
}


def keyword_parameters(builders: Iterable[Callable[..., Any]]) -> dict[str, inspect.Parameter]:
    """The keyword parameters of ``builders`` by name, a later builder's over an earlier one's."""
    found: dict[str, inspect.Parameter] = {}
    for build in builders:
        for p in inspect.signature(build).parameters.values():
            if p.name not in NOT_KWARGS and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                found[p.name] = p
    return found


def _plain_annotation(annotation: Any) -> tuple[str, bool] | None:
    """(plain type, None allowed) of an annotation such as ``int`` or ``"str | None"``; None for any other."""
    if annotation is inspect.Parameter.empty:
        return None
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    kinds = [part.strip() for part in text.split("|")]
    optional = "None" in kinds
    kinds = [kind for kind in kinds if kind != "None"]
    return (kinds[0], optional) if len(kinds) == 1 and kinds[0] in _PLAIN else None


def accepted_type(parameter: inspect.Parameter) -> tuple[str, bool] | None:
    """(plain type, None allowed) that ``parameter`` takes: its annotation where that is plain, else its
    default's type; None where neither says (anything is then accepted, the constructor's own checks stand)."""
    default_none = parameter.default is None
    annotated = _plain_annotation(parameter.annotation)
    if annotated is not None:
        return annotated[0], annotated[1] or default_none
    kind = type(parameter.default).__name__
    return (kind, False) if kind in _PLAIN else None


def check_kwarg_types(policy: str, kwargs: Mapping[str, Any], builders: Iterable[Callable[..., Any]]) -> None:
    """TypeError naming the first of ``kwargs`` whose value is not of the type its constructor parameter
    takes, what was given and what is accepted. A name no constructor has is left to their own error
    (it names the accepted ones)."""
    parameters = keyword_parameters(builders)
    for name, value in kwargs.items():
        takes = accepted_type(parameters[name]) if name in parameters else None
        if takes is None or (value is None and takes[1]):
            continue
        test, what = _PLAIN[takes[0]]
        if not test(value):
            what += " or None (null)" if takes[1] else ""
            raise TypeError(f"{name} of the {policy} policy must be {what}; got {safe_repr(value, 80)} "
                            f"({type(value).__name__})")
