"""The action value types: :class:`Action` (a tool call, an answer, a note, or wait) and
:class:`ParseError` (why agent text could not be read). Text formats live in ``actions``."""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from searchgym.shown import safe_repr

ACTION_KINDS = ("tool", "answer", "post", "wait")


#: Characters an answer may have: the leaderboard's limit on a submitted answer (its schema's
#: ``answer`` bound is this constant), so the parsers refuse a longer answer as a format error
#: naming it rather than let ``evaluate`` record, and score, an answer ``submit`` would refuse.
MAX_ANSWER_CHARS = 10_000

#: Lists/objects an argument value may nest (JSON decoders accept ~1,000; a walk that deep would
#: exhaust the stack). Checked on the way down, so a deeper value costs no more than its size.
MAX_ARGUMENT_DEPTH = 32


def _freeze(value: Any, depth: int = 0) -> Any:
    """Make a JSON-ish value hashable: lists become tuples, dicts tuples of (key, value) pairs,
    NumPy scalars Python ones.
    Raises ValueError (saying the limit) past ``MAX_ARGUMENT_DEPTH`` levels; recursion is bounded by it."""
    if not isinstance(value, dict | list | tuple | set | frozenset):
        # a NumPy scalar as the Python value it holds: np.int64(3) was refused as "must be an
        # integer, got int64", and could not be written into the transcript's JSON
        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, np.ndarray):  # was an unhashable value and a TypeError deep in the step
            return _freeze(value.tolist(), depth)
        try:
            hash(value)
        except TypeError:
            raise ValueError(f"an argument value must be JSON (a string, number, boolean, null, list or object), "
                             f"got a {type(value).__name__}") from None
        return value
    if depth >= MAX_ARGUMENT_DEPTH:
        raise ValueError(f"an argument nests lists/objects more than {MAX_ARGUMENT_DEPTH} levels deep; "
                         f"at most {MAX_ARGUMENT_DEPTH} are accepted")
    if isinstance(value, dict):
        return tuple((str(k), _freeze(v, depth + 1)) for k, v in value.items())
    if isinstance(value, list | tuple):
        return tuple(_freeze(v, depth + 1) for v in value)
    return tuple(sorted((_freeze(v, depth + 1) for v in value), key=repr))


def has_visible_text(text: str) -> bool:
    """Whether ``text`` has a character that is neither whitespace nor a control or format
    character (Unicode Cc/Cf): an answer of only ``\\x00\\x07`` or a zero-width space says nothing,
    so the parsers refuse it like an empty one. Stops at the first visible character."""
    return any(not ch.isspace() and unicodedata.category(ch) not in ("Cc", "Cf") for ch in text)


def answer_length_problem(text: str) -> str | None:
    """Why an answer is too long to record (it passes MAX_ANSWER_CHARS), or None."""
    if len(text) <= MAX_ANSWER_CHARS:
        return None
    return (f"the answer is {len(text)} characters long; at most {MAX_ANSWER_CHARS} are accepted "
            "(the leaderboard's limit on a submitted answer)")


#: The characters ``json.dumps(..., ensure_ascii=False)`` escapes in a string.
_JSON_ESCAPED = re.compile(r'[\x00-\x1f\\"]')


def _literal(value: Any) -> str:
    """``value`` as JSON (repr where JSON has no form); a string with nothing to escape is
    quoted directly, as ``json.dumps`` would write it (candidate lists render thousands)."""
    if type(value) is str and _JSON_ESCAPED.search(value) is None:
        return f'"{value}"'
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return safe_repr(value)


@dataclass(frozen=True)
class Action:
    """One action. ``arguments`` are (key, value) pairs sorted by key (so equal calls are equal
    whatever order the agent wrote them in); ``provenance`` says where a candidate came from and
    is not part of equality."""

    kind: str
    tool: str | None = None
    arguments: tuple[tuple[str, Any], ...] = ()
    text: str | None = None
    provenance: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.kind not in ACTION_KINDS:
            raise ValueError(f"unknown action kind {self.kind!r}; accepted: {', '.join(ACTION_KINDS)}")
        if (self.kind == "tool") != (isinstance(self.tool, str) and bool(self.tool)):
            raise ValueError("a tool action needs a tool name, and only a tool action has one")
        if self.kind != "tool" and self.arguments:
            raise ValueError(f"a {self.kind} action takes no arguments")
        if self.kind in ("answer", "post"):
            if not isinstance(self.text, str) or not self.text.strip():
                raise ValueError(f"a {self.kind} action needs non-empty text")
            object.__setattr__(self, "text", self.text.strip())
        elif self.text is not None:
            raise ValueError(f"a {self.kind} action has no text")
        pairs = [(str(k), _freeze(v)) for k, v in self.arguments]
        if len({k for k, _ in pairs}) != len(pairs):
            raise ValueError(f"duplicate argument names in {[k for k, _ in pairs]}")
        object.__setattr__(self, "arguments", tuple(sorted(pairs, key=lambda kv: kv[0])))

    def __hash__(self) -> int:
        """Computed once (candidate lists hash the same actions step after step)."""
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = self.__dict__["_hash"] = hash((self.kind, self.tool, self.arguments, self.text))
        return cached

    def __getstate__(self) -> dict[str, Any]:
        """The fields only: memos (the hash, a candidate's text) are per process, never pickled."""
        return {name: self.__dict__[name] for name in _FIELDS}

    @classmethod
    def call(cls, tool: str, /, **arguments: Any) -> Action:
        if cls is Action and type(tool) is str and tool and all(type(v) is str for v in arguments.values()):
            # what validation makes of string arguments: the pairs sorted by name (names are unique)
            pairs = tuple(sorted(arguments.items(), key=_first)) if len(arguments) > 1 else tuple(arguments.items())
            return _checked("tool", tool, pairs, None, "")
        return cls(kind="tool", tool=tool, arguments=tuple(arguments.items()))

    @classmethod
    def answer(cls, text: str, provenance: str = "") -> Action:
        if cls is Action and type(text) is str:
            stripped = text.strip()
            if stripped:  # what validation makes of a non-empty answer (an empty one raises there)
                return _checked("answer", None, (), stripped, provenance)
        return cls(kind="answer", text=text, provenance=provenance)

    @classmethod
    def post(cls, text: str, provenance: str = "") -> Action:
        return cls(kind="post", text=text, provenance=provenance)

    @classmethod
    def wait(cls) -> Action:
        return cls(kind="wait")

    def with_provenance(self, provenance: str) -> Action:
        """The same action with a provenance (``call`` cannot take one: it could be an argument).

        The copy is not validated again: every other field is the validated one of ``self``."""
        if not isinstance(provenance, str):
            raise TypeError(f"provenance must be a str, got {type(provenance).__name__}")
        copy = object.__new__(type(self))
        state = copy.__dict__
        for name in _FIELDS:
            state[name] = self.__dict__[name]
        state["provenance"] = provenance
        return copy

    @property
    def args(self) -> dict[str, Any]:
        return dict(self.arguments)

    def render(self) -> str:
        """One canonical line: ``web_search(query="Vexa Corp")``, ``answer("Mara Quell")``, ``wait()``."""
        if self.kind == "tool":
            return f"{self.tool}({', '.join(f'{k}={_literal(v)}' for k, v in self.arguments)})"
        if self.kind == "wait":
            return "wait()"
        return f"{self.kind}({_literal(self.text)})"

    def describe(self) -> str:
        """``render()`` plus ``"  <- provenance"``: what a candidate-mode policy reads."""
        return f"{self.render()}  <- {self.provenance}" if self.provenance else self.render()


_FIELDS = tuple(f.name for f in fields(Action))


def _first(pair: tuple) -> object:
    return pair[0]


def _checked(kind: str, tool: str | None, arguments: tuple, text: str | None, provenance: str) -> Action:
    """An Action from fields that are already what ``__post_init__`` would make of them (the
    classmethods check that first): the same object, without running the checks again (a new
    result lists dozens of new answers and calls)."""
    action = object.__new__(Action)
    action.__dict__.update(kind=kind, tool=tool, arguments=arguments, text=text, provenance=provenance)
    return action


@dataclass(frozen=True)
class ParseError:
    """Why a text action could not be read (a value, never raised), with the accepted forms."""

    message: str

    def __str__(self) -> str:
        return self.message


class EndEpisode(str):
    """An action that ends a single-agent episode where it is, truncated without an answer: the
    harness steps the env no more (an env stepped with it reads its text, an unparseable action).
    Why: an LLM out of tokens sent "(out of tokens)" each step until its turn limit, where its
    rollouts end the episode at once."""
