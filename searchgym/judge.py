"""The process judge: per-round signals computed exactly from the task's gold evidence.

The CW-GRPO paper (arXiv 2604.14267) asks an LLM judge, for each round k of a search episode,
whether the round retrieved new gold evidence (u_k) and whether its reasoning was consistent
with the progress so far (v_k); a round's contribution is c_k = u_k * v_k. searchgym knows the
gold evidence of every task, so the same signals are computed here, deterministically and for
free, with no judge model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from searchgym.action_types import Action
from searchgym.numbers import written_numbers
from searchgym.scoring import find_numbers, normalize_answer, split_list
from searchgym.tools.tool_registry import TOOL_REGISTRY, tool_spec
from searchgym.world.model import Task

__all__ = ["FREE_CONSTANTS", "STOPWORDS", "ProcessJudge", "RoundSignals", "content_tokens"]

# Function words carry no grounding: sharing "of" with the question proves nothing.
STOPWORDS = frozenset(
    """i me my we our you your he him his she her it its they them their this that these those
    am is are was were be been being have has had do does did doing will would shall should can
    could may might must and but or nor if then else so than too very of at by for with about
    against between into through during before after above below to from up down in out on off
    over under again further once here there when where why how what which who whom whose all any
    both each few more most other some such no not only own same just as also many much please
    find tell give me name""".split()
)
# Numbers a calculation may use without having observed them (halving, percentages, ...).
FREE_CONSTANTS = frozenset(float(x) for x in (*range(11), 100))


@dataclass(frozen=True)
class RoundSignals:
    """What the judge says about one round: new gold evidence (u_k) and consistency (v_k)."""

    new_gold_ids: tuple[str, ...]
    new_gold: bool
    consistent: bool
    reason: str

    @property
    def contribution(self) -> float:
        """The paper's c_k = u_k * v_k: 1.0 for a consistent round that found new gold evidence."""
        return float(self.new_gold and self.consistent)


def content_tokens(text: str) -> set[str]:
    """Normalised words of ``text`` minus stopwords."""
    return {t for t in normalize_answer(text).split() if t not in STOPWORDS}


@dataclass(frozen=True)
class ReadText:
    """What the judge keeps of one observation: its normalised text, content words and numbers."""

    normalized: str
    tokens: frozenset[str]
    numbers: frozenset[float]
    #: `` normalised text ``: a whole-word ``in`` test (built once: every answer check reads it)
    padded: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "padded", f" {self.normalized} ")


@lru_cache(maxsize=1 << 13)
def read_text(text: str) -> ReadText:
    """Read an observation once (memoised: the same results and notes recur across rounds,
    readers and episodes, so each distinct text is normalised and scanned for numbers once)."""
    normalized, tokens, _ = _words_of(text)
    return ReadText(normalized, tokens, _numbers_of_text(text))


@lru_cache(maxsize=1 << 13)
def _words_of(text: str) -> tuple[str, frozenset[str], str]:
    """(normalised text, content words, `` normalised text ``): ``read_text`` without the numbers,
    which a check of words does not need (the judge reads an observation's words and its numbers
    only when a check needs them)."""
    normalized = normalize_answer(text)
    return normalized, frozenset([t for t in normalized.split() if t not in STOPWORDS]), f" {normalized} "


@lru_cache(maxsize=1 << 13)
def _numbers_of_text(text: str) -> frozenset[float]:
    """``read_text(text).numbers`` alone."""
    return frozenset(_numbers_in(text))


@lru_cache(maxsize=1 << 13)
def _numbers_of(text: str, scaled: bool) -> tuple[float, ...]:
    """``find_numbers(text, scaled)`` memoised (expressions and answers recur across episodes)."""
    return tuple(find_numbers(text, scaled=scaled))


@lru_cache(maxsize=1 << 13)
def _phrases(text: str, is_list: bool) -> tuple[tuple[str, ...], tuple[str | None, ...]]:
    """(the answer's elements, `` needle `` of each, None for one that normalises to nothing),
    memoised: agents give the same answers again."""
    parts = tuple(split_list(text)) if is_list else (text,)
    return parts, tuple(f" {n} " if (n := normalize_answer(p)) else None for p in parts)


def _numbers_in(text: str) -> set[float]:
    """Every number of ``text`` with and without its scale word (``find_numbers`` scaled and
    not), read in one pass."""
    found: set[float] = set()
    for literal, scaled, _ in written_numbers(text):
        found.add(abs(scaled))
        found.add(abs(literal))
    return found


def _near(x: float, observed: set[float], rel: float, absolute: float) -> bool:
    if x in observed:  # the common case, without a loop: |x - x| is within any tolerance
        return True
    return any(abs(x - o) <= max(absolute, rel * abs(o)) for o in observed)


class ProcessJudge:
    """Judges the rounds of one episode of ``task``; call :meth:`judge` once per round, after the
    tool ran.

    Signals for a round:

    - ``new_gold_ids``: gold fact ids (``task.gold_fact_ids``) in the round's ``evidence_ids``
      that no earlier round revealed, in the order given; ``new_gold`` says whether there is any.
    - ``consistent`` holds when every check passes (``reason`` names the first that fails):

      1. the action parsed (``action`` is not None);
      2. the tool call succeeded (``ok``);
      3. it is not an exact repeat of an earlier action of this episode (``wait`` may repeat);
      4. it is grounded in what the agent had seen before this round (the question and earlier
         observations), as the tool's registration says (``ToolSpec.grounding``):

         - ``"always"`` (``current_time``, ``ask_for_clarification``): always grounded;
         - ``"numbers"`` (``calculator``): every number of the expression was observed or is in the question
           (up to sign and a 1e-6 relative tolerance; a scale word counts both ways:
           "3.4 million" grounds 3.4 and 3400000), except the free constants 0-10 and 100;
           at least one number must have been observed ("2 + 2" is not grounded);
         - ``"words"`` (any other tool): its string arguments share at least one content word (normalised,
           stopwords removed) with the question or earlier observations;
         - ``answer``: its normalised text occurs (as whole words) in an earlier observation or
           the question; for list tasks every element must; for number tasks the answer's
           number (with or without its scale word) must be close to an observed number (within
           0.5 or 1%: this checks where the number came from, not whether it is right, which
           scoring decides);
         - ``post``: the note shares a content word, like a tool argument; ``wait``: always.

    After judging, the round's ``observation_text`` joins the observed text.
    """

    def __init__(self, task: Task) -> None:
        self.task = task
        self._gold = task.gold_fact_ids
        self._seen_gold: set[str] = set()
        self._previous: set[Action] = set()  # a repeat is an equal action: Action hashes what it compares
        question = read_text(task.question)
        # What was seen, one reading per observation (judging a round adds one, nothing is merged).
        # An observation is kept as its text until a check needs its reading (``_read``): checks
        # stop at the first reading that grounds an action, and an episode's last one is never read.
        self._readings: list[ReadText | str] = [question]
        self._number_union: tuple[int, set[float]] = (1, set(question.numbers))

    @property
    def seen_gold_ids(self) -> frozenset[str]:
        return frozenset(self._seen_gold)

    def judge(
        self, action: Action | None, evidence_ids: Sequence[str], ok: bool, observation_text: str
    ) -> RoundSignals:
        """Signals for this round, then remember its evidence, action and observation."""
        gold, seen = self._gold, self._seen_gold
        new_ids = tuple(dict.fromkeys([e for e in evidence_ids if e in gold and e not in seen]))
        failure = self._failed_check(action, ok)
        self._seen_gold.update(new_ids)
        if action is not None:
            self._previous.add(action)
        self._readings.append(str(observation_text))  # read when a check needs it (see _observed_phrase)
        return RoundSignals(
            new_gold_ids=new_ids,
            new_gold=bool(new_ids),
            consistent=failure is None,
            reason=failure or "consistent",
        )

    # ----------------------------------------------------------------------------- checks
    def _failed_check(self, action: Action | None, ok: bool) -> str | None:
        if action is None:
            return "unparseable action"
        if action.kind == "wait":
            return None
        if not ok:
            return "the tool call failed"
        if action in self._previous:
            return f"repeats an earlier action: {action.render()}"
        if action.kind == "answer":
            return self._answer_failure(str(action.text))
        if action.kind == "post":
            return (
                None
                if self._shares_word(str(action.text))
                else "not grounded: the note shares no word with what was seen"
            )
        return self._tool_failure(action)

    def _tool_failure(self, action: Action) -> str | None:
        spec = tool_spec(action.tool) if action.tool in TOOL_REGISTRY else None
        grounding = spec.grounding if spec is not None else "words"
        if grounding == "always":
            return None
        if grounding == "numbers":
            expression = str(action.args.get(spec.grounding_argument, ""))
            numbers = [abs(x) for x in _numbers_of(expression, False)]
            if not numbers:
                return f"not grounded: the {action.tool} expression uses no number"
            seen = self._numbers
            observed = [_near(x, seen, 1e-6, 1e-9) for x in numbers]
            unseen = [
                x for x, seen in zip(numbers, observed, strict=True) if not seen and x not in FREE_CONSTANTS
            ]
            if unseen:
                return f"not grounded: the numbers {unseen} were never observed"
            return None if any(observed) else "not grounded: the expression uses no observed number"
        strings = " ".join(v for v in action.args.values() if isinstance(v, str))
        if not _words_of(strings)[1]:
            return "not grounded: the arguments have no content word"
        if not self._shares_word(strings):
            return "not grounded: no argument word appears in the question or earlier observations"
        return None

    def _answer_failure(self, text: str) -> str | None:
        if self.task.answer_type == "number":
            readings = _numbers_of(text, True)[:1] + _numbers_of(text, False)[:1]
            if any(_near(abs(x), self._numbers, 0.01, 0.5) for x in readings):
                return None
            return f"not grounded: the answer's number in {text!r} was never observed"
        parts, needles = _phrases(text, self.task.answer_type == "list")
        unseen = [p for p, needle in zip(parts, needles, strict=True) if not self._observed_phrase(needle)]
        if unseen or not parts:
            return f"not grounded: {unseen or [text]} never appeared in the question or observations"
        return None

    # An observation not read yet is its text: its words (``_words_of``) and its numbers
    # (``_numbers_of_text``) are read, each once (memoised), when a check first needs them.
    def _observed_phrase(self, padded: str | None) -> bool:
        """Whether `` needle `` (None: an empty one) occurs in a reading, as whole words."""
        if padded is None:
            return False
        for reading in self._readings:
            if padded in (_words_of(reading)[2] if reading.__class__ is str else reading.padded):
                return True
        return False

    def _shares_word(self, text: str) -> bool:
        tokens = _words_of(text)[1]
        for reading in self._readings:
            if not tokens.isdisjoint(_words_of(reading)[1] if reading.__class__ is str else reading.tokens):
                return True
        return False

    @property
    def _numbers(self) -> set[float]:
        """Every number observed so far: the union kept, extended by the readings added since a
        check last needed it (not merged again from every reading). Never to be changed by a caller."""
        merged, union = self._number_union
        if merged != len(self._readings):
            union.update(*(_numbers_of_text(r) if r.__class__ is str else r.numbers for r in self._readings[merged:]))
            self._number_union = (len(self._readings), union)
        return union
