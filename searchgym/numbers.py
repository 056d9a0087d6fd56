"""Numbers in answers: reading them ("1,200", "$3.4 million", "12%") and matching them by kind.

Years, dates and counts match only as the same integer; values an agent computes (sums,
differences, ages) only as the same number, written in any notation; quantities the world
states (revenues, populations, prices) within a relative tolerance. Part of the scoring rules:
a change here is a change of :data:`searchgym.scoring.SCORING_RULES_VERSION`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from fractions import Fraction

_MAX_SCORED_CHARS = 200_000  # answers longer than this are cut before scoring (bounded work)

#: How a numeric answer is matched, by what the number is (see :func:`numeric_match`). "exact" is
#: a computed value (a sum, a difference, an age); tasks say it through their ``operation``.
NUMBER_KINDS = ("year", "count", "quantity", "exact")
EXACT_KINDS = ("year", "count")
QUANTITY_REL_TOL = 0.005
QUANTITY_ABS_TOL = 0.5


# ------------------------------------------------------------------------------------ numbers
_SCALES = {
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
    "k": 10**3,
    "m": 10**6,
    "mn": 10**6,
    "b": 10**9,
    "bn": 10**9,
}
_NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-+])?\$?(?P<sign2>[-+])?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:[eE](?P<exp>[-+]?\d{1,3}))?"
    r"(?:\s?%|\s{0,2}(?P<scale>thousand|million|billion|trillion)\b|(?P<abbr>mn|bn|k|m|b)(?!\w))?",
    re.IGNORECASE,
)

_DIGIT = re.compile(r"\d")  # what ``_NUMBER``'s digits match (Unicode digits too)


def _written_matches(s: str) -> Iterator[tuple[re.Match[str], float, float, bool]]:
    """(match, literal value, scaled value, has a scale word) for every number written in ``s``."""
    text = str(s)[:_MAX_SCORED_CHARS]
    if _DIGIT.search(text) is None:  # every number has a digit; most lines have none
        return
    text = text.replace("\u2212", "-")
    for m in _NUMBER.finditer(text):
        try:
            literal = float(m.group("num").replace(",", ""))
            if m.group("exp"):
                literal *= 10.0 ** int(m.group("exp"))
        except (ValueError, OverflowError):
            continue
        if "-" in ((m.group("sign") or "") + (m.group("sign2") or "")):
            literal = -literal
        word = (m.group("scale") or m.group("abbr") or "").lower()
        scaled = literal * _SCALES.get(word, 1)
        if math.isfinite(scaled):
            yield m, literal, scaled, bool(word)


def _written_numbers(s: str) -> Iterator[tuple[float, float, bool]]:
    """(literal value, scaled value, has a scale word) for every number written in ``s``."""
    for _, literal, scaled, has_word in _written_matches(s):
        yield literal, scaled, has_word


def written_numbers(s: str) -> Iterator[tuple[float, float, bool]]:
    """(literal value, scaled value, has a scale word) for every number in ``s``: both readings of
    :func:`find_numbers` (``scaled=False`` and ``True``) in one pass over the text."""
    return _written_numbers(s)


def _exact_values(s: str | float | int | None) -> tuple[Fraction, Fraction, bool] | None:
    """(literal, scaled, has a scale word) of the first number in ``s``, as exact rationals;
    None when there is none or its digits are too long to convert (no value is guessed)."""
    if s is None or isinstance(s, bool):
        return None
    if isinstance(s, int | float):
        if isinstance(s, float) and not math.isfinite(s):
            return None
        value = Fraction(repr(s)) if isinstance(s, float) else Fraction(s)  # 0.1 is 1/10, as written
        return value, value, False
    first = next(_written_matches(s), None)
    if first is None:
        return None
    m = first[0]
    try:
        literal = Fraction(m.group("num").replace(",", ""))
    except ValueError:  # more digits than int() converts
        return None
    if m.group("exp"):
        literal *= Fraction(10) ** int(m.group("exp"))
    if "-" in ((m.group("sign") or "") + (m.group("sign2") or "")):
        literal = -literal
    word = (m.group("scale") or m.group("abbr") or "").lower()
    return literal, literal * _SCALES.get(word, 1), bool(word)


def exact_number(s: str | float | int | None) -> Fraction | None:
    """The exact value of the first number in ``s`` (the one :func:`parse_number` reads), or None.

    "1,234,000", "1234000.0", "1.234 million" and "1.234e6" are all exactly 1234000; a float
    argument is taken at its shortest decimal form (0.1 is 1/10, not its binary approximation).
    """
    values = _exact_values(s)
    return None if values is None else values[1]


def find_numbers(s: str, scaled: bool = True) -> list[float]:
    """Every number written in ``s``, in order ("1,200", "-3", "$3.4 million", "12%", "2e5").

    With ``scaled`` a scale word or suffix multiplies ("1.2 billion" -> 1.2e9, "45k" -> 45000;
    a bare "m"/"b" suffix reads as million/billion); without it the literal is kept (1.2).
    A percentage keeps its written value ("12%" -> 12.0). Digits glued to letters ("A320")
    are not numbers. Non-finite values are skipped.
    """
    return [value if scaled else literal for literal, value, _ in _written_numbers(s)]


def _first_number(s: str | float | int | None) -> tuple[float, float, bool] | None:
    if s is None or isinstance(s, bool):
        return None
    if isinstance(s, int | float):
        return (float(s), float(s), False) if math.isfinite(s) else None
    return next(_written_numbers(s), None)


def parse_number(s: str | float | int | None) -> float | None:
    """The first number in ``s`` (see :func:`find_numbers`), or None when there is none.

    "about 1,200 people" -> 1200.0; "$3.4 million" -> 3400000.0; "12%" -> 12.0. The first number
    is taken (never "any number in the text"), so listing many numbers cannot game a match.
    """
    first = _first_number(s)
    return None if first is None else first[1]


def number_kind_of(golds: str | float | Sequence[str | float], kind: str | None) -> str:
    """The kind that decides how a number is matched: ``kind`` when given, else guessed from gold.

    Tasks of generated worlds always state their kind. For a user's task without one, an
    integral gold value ("1962", "12,000") is a count (exact) and any other a quantity.
    """
    if kind is not None:
        if kind not in NUMBER_KINDS:
            raise ValueError(f"unknown number kind {kind!r}; accepted: {', '.join(NUMBER_KINDS)}")
        return kind
    for gold in [golds] if isinstance(golds, str | int | float) else list(golds):
        g = _first_number(gold)
        if g is not None:
            return "count" if float(g[1]).is_integer() else "quantity"
    return "quantity"


def _same_integer(x: float, g: float) -> bool:
    return float(x).is_integer() and float(g).is_integer() and int(x) == int(g)


def numeric_match(
    pred: str | float | None,
    golds: str | float | Sequence[str | float],
    kind: str | None = None,
) -> bool:
    """True when the prediction's first number p matches some gold number g, by kind of number.

    - ``"year"`` and ``"count"`` (years, dates, ages in years, employees, students, pages): p
      must be the same integer as g. 1953 never answers 1962, 2,001 never answers 2,000.
    - ``"exact"`` (a value the agent computes: a sum, a difference, an age): p must be exactly
      g, compared as exact rationals (:func:`exact_number`), so the same value in any notation
      is right ("1,234,000", "1234000.0", "1.234 million", "1.234e6", "$1,234,000") and any
      other value is wrong, a rounded one included ("1.23 million", "1,234,001"). As for
      quantities, when only one side has a scale word the written literals may match instead
      (exactly: "$246 million" answers "the combined box office in millions of dollars" whose
      gold is "246"); "1,234" never answers 1,234,000.
    - ``"quantity"`` (revenues, populations, prices, box office, as the world states them):
      ``|p - g| <= max(0.5, QUANTITY_REL_TOL * |g|)`` with QUANTITY_REL_TOL = 0.5%. Generated
      worlds write quantities in full ("1,234,000"), so copying the text is exact; the tolerance
      admits a reader's three-significant-figure rounding ("1.23 million") and nothing coarser.
      When only one side has a scale word the written literals may match too (questions state
      units: "$11 million" answers "how much, in millions of dollars?" whose gold is "11"); two
      different scale words never match ("1.2 million" is not "1.2 billion").
    - ``None``: decided by :func:`number_kind_of` from the gold value.

    Values are compared with their scale words applied ("12 thousand" is the count 12000).
    A prediction without a number never matches. Only the first number counts, so listing
    many numbers cannot game a match.
    """
    p = _first_number(pred)
    if p is None:
        return False
    kind = number_kind_of(golds, kind)
    exact_p = _exact_values(pred) if kind == "exact" else None

    def close(x: float, g: float) -> bool:
        return abs(x - g) <= max(QUANTITY_ABS_TOL, QUANTITY_REL_TOL * abs(g))

    for gold in [golds] if isinstance(golds, str | int | float) else list(golds):
        g = _first_number(gold)
        if g is None:
            continue
        if kind == "exact":
            exact_g = _exact_values(gold)
            if exact_p is not None and exact_g is not None and (
                exact_p[1] == exact_g[1] or (not (exact_p[2] and exact_g[2]) and exact_p[0] == exact_g[0])
            ):
                return True
        elif kind in EXACT_KINDS:
            if _same_integer(p[1], g[1]):
                return True
        elif close(p[1], g[1]) or (not (p[2] and g[2]) and close(p[0], g[0])):
            return True
    return False
