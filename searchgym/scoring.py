"""Answer scoring and reward composition.

Scores follow the conventions of the QA literature so that numbers are comparable with papers:
SQuAD answer normalisation, exact match and token F1 (max over gold aliases); numbers match by
what they are (years and counts as the same integer, a value the agent computes exactly, a
quantity the world states within 0.5%: see :func:`numeric_match` and :func:`match_kind`); list
answers score set F1 (completeness counts). The rules carry a
version, :data:`SCORING_RULES_VERSION`, that every suite's content hash covers. ``compose_reward``
turns an answer score and the step's mistakes into the reward components an env reports.
The process judge is :mod:`searchgym.judge` (it uses this module, not the other way round).
"""

from __future__ import annotations

import numbers
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from searchgym.numbers import (  # noqa: F401  (re-exported: the scoring API)
    EXACT_KINDS,
    NUMBER_KINDS,
    QUANTITY_ABS_TOL,
    QUANTITY_REL_TOL,
    _MAX_SCORED_CHARS,
    exact_number,
    find_numbers,
    number_kind_of,
    numeric_match,
    parse_number,
)
from searchgym.shown import safe_repr

if TYPE_CHECKING:
    from searchgym.world.model import Task

__all__ = [
    "ANSWER_METRICS",
    "AnswerScore",
    "LOOKUP_OPERATIONS",
    "RewardConfig",
    "compose_reward",
    "exact_match",
    "exact_number",
    "find_numbers",
    "match_kind",
    "normalize_answer",
    "NUMBER_KINDS",
    "SCORING_RULES_VERSION",
    "number_kind_of",
    "numeric_match",
    "parse_number",
    "score_answer",
    "set_f1",
    "split_list",
    "token_f1",
]

ANSWER_METRICS = ("auto", "em", "f1")
#: Version of the rules below; every suite's content hash covers it, so a change of rules is a
#: change of every suite's hash (and of suite versions: an edited ``-v0`` never exists).
#: v1: numbers matched within max(0.5, 1% of gold) whatever they counted.
#: v2: years and counts match only as the same integer; quantities within 0.5%.
#: v3: a computed value (sum, difference, age: any ``operation`` but a look-up) matches only
#: exactly; the 0.5% stays for quantities the world states (v2 took a sum off by one as right).
SCORING_RULES_VERSION = "scoring-v3"
#: Task operations whose numeric answer is a figure the world states. Any other operation
#: (``sum``, ``difference``, ``years_since``, ...) computes its answer from stated figures,
#: and a computed answer is right only when exact (:func:`match_kind`).
LOOKUP_OPERATIONS = ("value",)

# ------------------------------------------------------------------------------ normalisation
_ASCII_PUNCT = set(string.punctuation)
_DROP_ASCII_PUNCT = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def _is_punct(ch: str) -> bool:
    return ch in _ASCII_PUNCT or unicodedata.category(ch).startswith("P")


#: Texts up to this length are memoised by ``normalize_answer`` (longer ones are rare and large).
_MEMO_CHARS = 256


def normalize_answer(s: str) -> str:
    """SQuAD normalisation: lower case, drop punctuation, drop articles a/an/the, collapse spaces.

    Unicode punctuation (curly quotes, dashes) is dropped too; for ASCII text this is exactly
    the official SQuAD v1.1 evaluation script. Short texts are memoised: scoring one answer
    normalises it and each gold alias three to four times (em, F1, set F1), and answers and
    aliases recur across episodes.
    """
    text = str(s)
    return _normalized(text) if len(text) <= _MEMO_CHARS else _normalize(text)


@lru_cache(maxsize=1 << 16)
def _normalized(text: str) -> str:
    return _normalize(text)


def _normalize(s: str) -> str:
    s = s[:_MAX_SCORED_CHARS].lower()
    if s.isascii():  # the common case, without a Python-level loop over characters
        s = s.translate(_DROP_ASCII_PUNCT)
    else:
        s = "".join(ch for ch in s if not _is_punct(ch))
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def _aliases(golds: str | Sequence[str]) -> list[str]:
    return [golds] if isinstance(golds, str) else [str(g) for g in golds]


def exact_match(pred: str, golds: str | Sequence[str]) -> float:
    """1.0 when the normalised prediction equals the normalised form of any alias, else 0.0."""
    p = normalize_answer(pred)
    return float(any(p == normalize_answer(g) for g in _aliases(golds)))


def _f1_one(pred_tokens: list[str], gold_tokens: list[str]) -> float:
    if not pred_tokens or not gold_tokens:  # SQuAD v2 convention: both empty is a match
        return float(pred_tokens == gold_tokens)
    same = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred_tokens), same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def token_f1(pred: str, golds: str | Sequence[str]) -> float:
    """SQuAD token F1 between the normalised prediction and each alias; the best alias counts."""
    pred_tokens = normalize_answer(pred).split()
    return max((_f1_one(pred_tokens, normalize_answer(g).split()) for g in _aliases(golds)), default=0.0)


# -------------------------------------------------------------------------------------- lists
_LIST_SEPARATORS = re.compile(r"[,;\n&]| and ", re.IGNORECASE)
_SOFT_SEPARATORS = re.compile(r"[,;\n&]")
_ENUMERATION = re.compile(r"^(?:[-*\u2022]|\d{1,3}[.)])\s+")
_LEADING_AND = re.compile(r"^and\s+", re.IGNORECASE)


def _clean_element(part: str) -> str:
    part = part.strip().strip("[]\"'")
    part = _ENUMERATION.sub("", part.strip())
    return _LEADING_AND.sub("", part).strip()


def split_list(pred: str) -> list[str]:
    """Split a list answer on commas, semicolons, newlines, " and " and "&".

    Each element loses a leading "and" (the Oxford comma: "A, B, and C"), list bullets or
    numbering ("- A", "2. B") and surrounding brackets/quotes; empty elements are dropped.
    """
    parts = (_clean_element(p) for p in _LIST_SEPARATORS.split(str(pred)[:_MAX_SCORED_CHARS]))
    return [p for p in parts if p]


def _split_against(pred: str, alias_index: dict[str, set[int]]) -> list[str]:
    """split_list, except that a chunk that is itself a gold alias is not split on " and "."""
    elements: list[str] = []
    for chunk in _SOFT_SEPARATORS.split(str(pred)[:_MAX_SCORED_CHARS]):
        whole = _clean_element(chunk)
        if normalize_answer(whole) in alias_index:
            elements.append(whole)
        else:
            elements.extend(split_list(chunk))
    return [e for e in elements if e]


def set_f1(pred: str | Sequence[str], items: Sequence[Sequence[str]]) -> float:
    """F1 between the predicted elements and the gold items (each item a tuple of aliases).

    A predicted element matches a gold item when its normalised text equals any alias; each
    element matches at most one item and each item at most one element (maximum matching).
    Repeating an element neither helps nor hurts (duplicates are merged). Precision = matched /
    predicted elements, recall = matched / gold items. No gold items: 1.0 only for an empty
    prediction.
    """
    alias_index: dict[str, set[int]] = {}
    for i, aliases in enumerate(items):
        for alias in _aliases(aliases):
            alias_index.setdefault(normalize_answer(alias), set()).add(i)
    raw = _split_against(pred, alias_index) if isinstance(pred, str) else [str(p) for p in pred]
    predicted = list(dict.fromkeys(n for n in (normalize_answer(r) for r in raw) if n))
    if not items or not predicted:
        return float(not items and not predicted)
    owner: dict[int, int] = {}  # gold item -> predicted element (Kuhn's augmenting paths)

    def augment(e: int, visited: set[int]) -> bool:
        for item in alias_index.get(predicted[e], ()):
            if item not in visited:
                visited.add(item)
                if item not in owner or augment(owner[item], visited):
                    owner[item] = e
                    return True
        return False

    matched = sum(augment(e, set()) for e in range(len(predicted)) if predicted[e] in alias_index)
    if matched == 0:
        return 0.0
    precision, recall = matched / len(predicted), matched / len(items)
    return 2 * precision * recall / (precision + recall)


# ------------------------------------------------------------------------------- answer score
@dataclass(frozen=True)
class AnswerScore:
    """Every metric for one answer; ``score`` is the one the reward uses, ``success`` the strict one.

    ``em``/``f1`` compare with ``task.answers``; ``numeric`` is 1.0 when the numbers match
    (0.0 when gold or prediction has no number); ``set_f1`` compares with the list items
    (for a non-list task the answer is one item whose aliases are ``task.answers``).
    """

    em: float
    f1: float
    numeric: float
    set_f1: float
    score: float
    success: bool


def _gold_items(task: Task) -> tuple[tuple[str, ...], ...]:
    if task.answer_items:
        return tuple(tuple(item) for item in task.answer_items)
    if task.answer_type == "list" and task.answers:
        return tuple((e,) for e in split_list(task.answers[0]))
    return (tuple(task.answers),) if task.answers else ()


def match_kind(task: Task) -> str | None:
    """How ``task``'s numeric answer is matched (a kind of :func:`numeric_match`).

    The task record decides, never the question's wording: a numeric task whose ``operation``
    computes its answer (not in :data:`LOOKUP_OPERATIONS`) is matched ``"exact"``, because its
    value is exact and nothing about it was rounded by the world; a look-up is matched by its
    ``number_kind`` (a stated quantity keeps its 0.5%); None lets the gold value decide.
    """
    if task.answer_type == "number" and getattr(task, "operation", "value") not in LOOKUP_OPERATIONS:
        return "exact"
    return getattr(task, "number_kind", None)


def score_answer(task: Task, prediction: str | None, metric: str = "auto") -> AnswerScore:
    """Score ``prediction`` against ``task`` according to its ``answer_type``.

    - ``"number"``: score = success = numeric match (:func:`numeric_match`) by :func:`match_kind`
      (exact for a computed value, else by ``task.number_kind``);
    - ``"list"``: score = set F1 over ``answer_items``; success = set F1 == 1;
    - ``"entity"``, ``"text"`` (and any other type, e.g. user JSONL tasks): score = token F1
      (``metric="auto"`` or ``"f1"``) or exact match (``metric="em"``); success = exact match.
    ``metric`` only affects entity/text answers. A missing answer (None) scores 0 everywhere.
    """
    if metric not in ANSWER_METRICS:
        raise ValueError(f"unknown answer metric {metric!r}; accepted: {', '.join(ANSWER_METRICS)}")
    if prediction is None:
        return AnswerScore(em=0.0, f1=0.0, numeric=0.0, set_f1=0.0, score=0.0, success=False)
    prediction = str(prediction)
    em = exact_match(prediction, task.answers)
    f1 = token_f1(prediction, task.answers)
    numeric = float(numeric_match(prediction, task.answers, match_kind(task)))
    items = _gold_items(task)
    sf1 = set_f1(prediction, items)
    if task.answer_type == "number":
        score, success = numeric, bool(numeric)
    elif task.answer_type == "list":
        score, success = sf1, sf1 == 1.0
    else:
        score, success = (em if metric == "em" else f1), bool(em)
    return AnswerScore(em=em, f1=f1, numeric=numeric, set_f1=sf1, score=score, success=success)


# ------------------------------------------------------------------------------------ rewards
#: The largest cost or score a RewardConfig takes: sums over any episode stay finite.
MAX_REWARD_AMOUNT = 1e6

@dataclass(frozen=True)
class RewardConfig:
    """How a step's reward is composed (all costs are non-negative amounts that are subtracted).

    ``answer_metric`` is what envs pass to :func:`score_answer`; ``no_answer_score`` is the
    answer component of the last step of an episode that ends without an answer.
    """

    answer_metric: str = "auto"
    step_cost: float = 0.01
    invalid_cost: float = 0.05
    format_cost: float = 0.05
    no_answer_score: float = 0.0

    def __post_init__(self) -> None:
        if self.answer_metric not in ANSWER_METRICS:
            raise ValueError(
                f"unknown answer_metric {self.answer_metric!r}; accepted: {', '.join(ANSWER_METRICS)}"
            )
        # A bool is no amount (True cost 1.0 silently); a string no_answer_score failed in math.isfinite
        # ("must be real number, not str"); a numpy float32 was refused as "not a finite number".
        for name in ("step_cost", "invalid_cost", "format_cost", "no_answer_score"):
            value = getattr(self, name)
            number = isinstance(value, numbers.Real) and not isinstance(value, bool)
            # bounded: 1e308 passed as finite, and one step's sum of two such costs was -inf
            if not (number and abs(value) <= MAX_REWARD_AMOUNT and (value >= 0 or name == "no_answer_score")):
                low = -MAX_REWARD_AMOUNT if name == "no_answer_score" else 0
                why = "" if name == "no_answer_score" else " (it is subtracted)"
                raise ValueError(f"{name} must be a number in {low:g}..{MAX_REWARD_AMOUNT:g}{why}, "
                                 f"got {safe_repr(value, 40)}")
            if type(value) not in (int, float):  # a numpy scalar: a plain float, as rewards are
                object.__setattr__(self, name, float(value))


def compose_reward(
    answer: AnswerScore | None,
    invalid: bool,
    format_error: bool,
    config: RewardConfig | None = None,
    *,
    unanswered: bool = False,
) -> dict[str, float]:
    """The reward of one step, by component; ``total`` is their sum.

    - ``step_cost``: every step pays ``-config.step_cost`` (answering steps included);
    - ``invalid_cost``: ``-config.invalid_cost`` when the action was invalid (the tool reported
      an error, or the tool is not allowed to this agent);
    - ``format_cost``: ``-config.format_cost`` when a text action could not be parsed;
    - ``answer``: ``answer.score`` on the answering step only (pass None on other steps); on the
      last step of an episode that ends without an answer pass ``unanswered=True`` to pay
      ``config.no_answer_score`` instead.
    """
    config = config or RewardConfig()
    components: dict[str, Any] = {
        "answer": float(answer.score)
        if answer is not None
        else (config.no_answer_score if unanswered else 0.0),
        "step_cost": -float(config.step_cost),
        "invalid_cost": -float(config.invalid_cost) if invalid else 0.0,
        "format_cost": -float(config.format_cost) if format_error else 0.0,
    }
    components = {k: float(v) + 0.0 for k, v in components.items()}  # + 0.0 turns -0.0 into 0.0
    components["total"] = sum(components.values())
    return components

