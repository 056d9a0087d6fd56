"""The reader's question parser: a question's wording -> what must be found and how it combines.

Why a parser of wording: the reader may know the world's *schema* (relation and attribute phrases,
question templates), as a pretrained model knows language, but not the task behind a question.
Every question family is a template over noun phrases ("the founder of the company that makes
X"), so a question reads back into a :class:`Plan`: entities named in the question, the relations
to follow from each, the fact wanted at the end, and how the values combine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from searchgym.world.schema import ATTRIBUTES, RELATIONS
from searchgym.world.tasks import YEARS_SINCE_QUESTIONS

#: How a plan's final values become the answer.
KINDS = ("value", "compare", "sum", "difference", "years_since", "list")


@dataclass(frozen=True)
class Path:
    """An entity described through relations: ``start`` (a name in the question), then each
    relation of ``relations`` followed in order ("the CEO of the maker of X": X, made_by, ceo)."""

    start: str
    relations: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    """What a question asks: follow each path, read ``target`` of the entity reached, combine.

    ``target`` is a relation or attribute name (``target_is_attribute`` says which); ``kind`` is
    one of :data:`KINDS`; ``smaller_wins`` orders a comparison (years: "earlier").
    """

    kind: str
    paths: tuple[Path, ...]
    target: str
    target_is_attribute: bool = False
    smaller_wins: bool = False


def _pattern(template: str, slots: dict[str, str]) -> str:
    """A template ("Who founded {s}?") as a regex body; each slot a named group."""
    parts = re.split(r"(\{\w+\})", template)
    out = []
    for part in parts:
        name = part[1:-1] if part.startswith("{") and part.endswith("}") else None
        out.append(f"(?P<{name}>{slots[name]})" if name in slots else re.escape(part))
    return "".join(out)


@lru_cache(maxsize=1)
def _noun_phrases() -> tuple[tuple[re.Pattern, str], ...]:
    return tuple((re.compile("^" + _pattern(r.noun_phrase, {"x": ".+"}) + "$"), r.name) for r in RELATIONS)


def parse_path(text: str) -> Path:
    """A noun phrase read back into a :class:`Path` (text no relation phrase fits is a name)."""
    text = text.strip()
    for pattern, relation in _noun_phrases():
        match = pattern.match(text)
        if match:
            inner = parse_path(match["x"])
            return Path(inner.start, inner.relations + (relation,))
    if not text.lower().startswith("the "):  # "the {s}" templates with a phrase: "the the award ..."
        inner = parse_path("the " + text)
        if inner.relations:
            return inner
    return Path(text)


def _attribute_predicates(field: str) -> dict[str, tuple[str, bool]]:
    """phrase -> (attribute name, is_year) for an Attribute field (noun or comparison)."""
    return {getattr(a, field): (a.name, a.is_year) for a in ATTRIBUTES if getattr(a, field)}


@lru_cache(maxsize=1)
def _templates() -> tuple[tuple[re.Pattern, str, str, bool], ...]:
    """(regex, kind, target, target_is_attribute) of every lookup, list and years-since question."""
    out = []
    for r in RELATIONS:
        for q in r.questions:
            out.append((re.compile("^" + _pattern(q, {"s": ".+"}) + "$"), "value", r.name, False))
        if r.list_question:
            out.append((re.compile("^" + _pattern(r.list_question, {"o": ".+"}) + "$"), "list", r.name, False))
    for a in ATTRIBUTES:
        for q in a.questions:
            out.append((re.compile("^" + _pattern(q, {"s": ".+"}) + "$"), "value", a.name, True))
    for name, q in YEARS_SINCE_QUESTIONS.items():
        out.append((re.compile("^" + _pattern(q, {"s": ".+"}) + "$"), "years_since", name, True))
    return tuple(out)


def _alternation(phrases) -> str:
    return "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))


@lru_cache(maxsize=1)
def _composed() -> dict[str, re.Pattern]:
    nouns = _alternation(_attribute_predicates("noun"))
    comparisons = _alternation(_attribute_predicates("comparison"))
    return {
        "bridge_attribute": re.compile(rf"^What is the (?P<noun>{nouns}) of (?P<x>.+)\?$"),
        "bridge_relation": re.compile(r"^(?:Who|What) is (?P<x>the .+)\?$"),
        "comparison": re.compile(rf"^(?:Who|Which \w+) (?P<cmp>{comparisons}): (?P<pair>.+)\?$"),
        "sum": re.compile(rf"^What is the combined (?P<noun>{nouns}) of (?P<pair>.+)\?$"),
        "difference": re.compile(rf"^By how much does the (?P<noun>{nouns}) of (?P<pair>.+)\?$"),
    }


def _split_pair(text: str, separator: str, names: tuple[str, ...]) -> tuple[str, str] | None:
    """Split "A or B" at the separator that leaves two known names (else the first split)."""
    pieces = text.split(separator)
    splits = [(separator.join(pieces[:i]), separator.join(pieces[i:])) for i in range(1, len(pieces))]
    if not splits:
        return None
    for a, b in splits:
        if parse_path(a).start in names and parse_path(b).start in names:
            return a, b
    return splits[0]


def parse_question(question: str, names: tuple[str, ...] = ()) -> Plan | None:
    """The :class:`Plan` of ``question``, or None when no template fits.

    ``names`` (the names the question mentions, as candidates list them) only settles where a
    pair splits when a name itself contains " and " or " or ".
    """
    question = " ".join(question.split())
    composed = _composed()
    match = composed["comparison"].match(question)
    if match:
        pair = _split_pair(match["pair"], " or ", names)
        predicate, is_year = _attribute_predicates("comparison")[match["cmp"]]
        if pair:
            return Plan("compare", (parse_path(pair[0]), parse_path(pair[1])), predicate, True, smaller_wins=is_year)
    for kind in ("sum", "difference"):
        match = composed[kind].match(question)
        if match:
            body = match["pair"]
            if kind == "difference":
                if not body.endswith(" exceed that of") and " exceed that of " not in body:
                    continue
                pair = tuple(body.split(" exceed that of ", 1))
            else:
                pair = _split_pair(body, " and ", names)
            if pair and len(pair) == 2:
                predicate = _attribute_predicates("noun")[match["noun"]][0]
                return Plan(kind, (Path(pair[0].strip()), Path(pair[1].strip())), predicate, True)
    for pattern, kind, target, is_attribute in _templates():
        match = pattern.match(question)
        if match:
            subject = match.groupdict().get("s") or match.groupdict().get("o") or ""
            return Plan(kind, (parse_path(subject),), target, is_attribute)
    match = composed["bridge_attribute"].match(question)
    if match:
        path = parse_path(match["x"])
        return Plan("value", (path,), _attribute_predicates("noun")[match["noun"]][0], True)
    match = composed["bridge_relation"].match(question)
    if match:
        path = parse_path(match["x"])
        if path.relations:
            return Plan("value", (Path(path.start, path.relations[:-1]),), path.relations[-1], False)
    return None
