"""A policy's keyword arguments checked against the types its constructors declare.

Why: ``policy_kwargs={"operand_sources": "false"}`` was taken and recorded, and the non-empty
string turned the feature ON (``"no"`` left the attn policy's ``hop_features`` on): the run used
the opposite of the setting asked for, silently. The accepted types are read from the constructors'
signatures (the annotation where it is a plain one, else the default's type), not from a table, so
a new keyword argument is checked as soon as it is declared. An argument that takes an object only
Python can pass (a torch dtype, a tokenizer) has no plain annotation: its constructor declares the
type in :data:`DECLARED_TYPES` (before: ``dtype=5`` or ``tokenizer=3`` failed late, in the library).
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
#: The attribute in which a constructor declares what a kwarg without a plain annotation takes:
#: ``{name: (test, what it takes)}``; it stands before the annotation and the default.
DECLARED_TYPES = "accepted_kwarg_types"

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


def _none_allowed(parameter: inspect.Parameter) -> bool:
    """None is the default, or the annotation names it (``"torch.dtype | None"``)."""
    annotation = parameter.annotation
    text = annotation if isinstance(annotation, str) else str(annotation)
    return parameter.default is None or "None" in (part.strip() for part in text.split("|"))


def accepted_tests(builders: Iterable[Callable[..., Any]]) -> dict[str, tuple[Callable[[Any], bool], str, bool]]:
    """(test, what it takes, None allowed) of each keyword parameter of ``builders`` that says its type (a
    later builder's over an earlier one's): its constructor's declaration, else :func:`accepted_type`."""
    found: dict[str, tuple[Callable[[Any], bool], str, bool]] = {}
    for build in builders:
        declared = getattr(build, DECLARED_TYPES, None) or {}
        for name, parameter in keyword_parameters([build]).items():
            found.pop(name, None)
            if name in declared:
                test, what = declared[name]
                found[name] = (test, what, _none_allowed(parameter))
            elif (takes := accepted_type(parameter)) is not None:
                found[name] = (*_PLAIN[takes[0]], takes[1])
    return found


def check_kwarg_types(policy: str, kwargs: Mapping[str, Any], builders: Iterable[Callable[..., Any]]) -> None:
    """TypeError naming the first of ``kwargs`` whose value is not of the type its constructor parameter
    takes, what was given and what is accepted. A name no constructor has is left to their own error
    (it names the accepted ones)."""
    tests = accepted_tests(builders)
    for name, value in kwargs.items():
        if name not in tests or (value is None and tests[name][2]):
            continue
        test, what, none_allowed = tests[name]
        if not test(value):
            what += " or None (null)" if none_allowed else ""
            raise TypeError(f"{name} of the {policy} policy must be {what}; got {safe_repr(value, 80)} "
                            f"({type(value).__name__})")
