"""LexicalOverlap: exact word overlap between a candidate and the observation, as policy features.

Why its own module: the candidate policies (``policy``, ``attention_policy``) and the critics read
the same features; what they are and how they are memoised (per text, per (question,
candidate) and per observation) is one concept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from searchgym.observation_format import question_line

from .encoder_hash import generic_word_tuple, words
from .encoders import BoundedCache
from .feature_rows import feature_array, real_count


def question_of(text: str) -> str:
    """The observation's "Question: ..." line (as the envs write it), else the whole text."""
    return question_line(text, missing=text)


_MISSING = object()
NAME_WORD = re.compile(r"\b[A-Z][a-z]+\b")
STOP_STEMS = frozenset("a an the of in is was by to and or did does do via answer web_search knowledge_base".split())


class LexicalOverlap:
    """Exact word overlap between a candidate and the question / the whole observation.

    Why: with hashed or sentence embeddings, <e_obs, e_cand> measures shared words only through
    noisy random projections (on a synthetic "which company makes P?" task the raw inner product
    of 128-d hashed embeddings finds the right answer among 4 only 62% of the time), while
    exact overlap is the main signal the env offers. Features per candidate (all 0 for ""):
    [share of its unigrams in the question, share of its bigrams in the question,
     log(1 + #shared unigrams with the question), share of its unigrams anywhere in the text,
     share of the question's generic word stems in the candidate, and the reverse share,
     1 if the same action was already taken (on a ``Step k:`` line of the transcript),
     where the first shared stem stands in the question (0 = its first content word, 1 = none),
     share of the candidate's names that the question names, and
     1 for an answer whose provenance subject is named in the question]
    (generic = without names and numbers; see ``encoder_hash.generic_words``).

    Why the last three: in "What is the population of the city where X is based?" the relation
    asked for comes first and the hop last; the first-hop value ("X | campus city") shares the
    question's name, the answer ("Nakar | population") its leading relation. Name overlap and
    relation overlap are separate features so that a policy can tell the two apart.
    """

    n_features = 10

    def __init__(self, cache_size: int = 200_000, observation_cache_size: int = 8192) -> None:
        self._grams = BoundedCache(cache_size)
        # (text, candidates) -> [N, F] features: rollouts compute them, the update epochs reuse them
        self._observations = BoundedCache(observation_cache_size)
        self._contexts = BoundedCache(observation_cache_size)
        # (question, candidate) -> the features that do not depend on the rest of the text
        self._pairs = BoundedCache(cache_size)
        self._line_words = BoundedCache(cache_size)  # a line of an observation -> its unigrams
        self._candidates = BoundedCache(cache_size)  # a candidate -> what its features read of it

    def grams(self, text: str) -> tuple[frozenset[str], frozenset[str]]:
        found = self._grams.get(text)
        if found is None:
            found = _grams_of(text)
            self._grams.put(text, found)
        return found

    def _context(self, text: str) -> tuple:
        """What every candidate of one observation is compared with, computed once per text: the
        question and its unigrams, bigrams, stems (set and order) and lower-cased form, the whole
        text's unigrams, and the text itself."""
        found = self._contexts.get(text)
        if found is None:
            question = question_of(text)
            q_uni, q_bi = self.grams(question)
            found = ((question, q_uni, q_bi, self.stems(question), self._stem_order(question), question.lower()),
                     self._text_words(text), text)
            self._contexts.put(text, found)
        return found

    def _text_words(self, text: str) -> frozenset[str]:
        """``frozenset(words(text))`` from memoised lines: no word spans a line break and the
        lower-casing stops at one (as in ``encoder_hash.LineHasher``), and a transcript is mostly
        lines of earlier observations."""
        lines, parts = self._line_words, []
        for line in text.split("\n"):
            found = lines.get(line)
            if found is None:
                found = frozenset(words(line))
                lines.put(line, found)
            parts.append(found)
        return frozenset().union(*parts)

    def features(self, text: str, candidate: str) -> list[float]:
        return self._features(self._context(text), candidate)

    def observation_features(self, text: str, candidates: Sequence[str]) -> np.ndarray:
        """[len(candidates), n_features] float64 for one observation (memoised)."""
        key = (text, tuple(candidates))
        found = self._observations.get(key)
        if found is None:
            found = self._compute(self._context(text), candidates)
            self._observations.put(key, found)
        return found

    def _compute(self, context: tuple, candidates: Sequence[str]) -> np.ndarray:
        """``_features`` of every candidate (the same loop, inlined: it runs for every candidate
        of every observation a policy reads); padding "" and a candidate that comes back within
        the observation are worked out once."""
        question, t_uni, text = context
        q_text, pairs = question[0], self._pairs
        seen: dict[str, list[float]] = {}
        rows = []
        for candidate in candidates[:real_count(candidates)]:
            row = seen.get(candidate)
            if row is None:
                pair = pairs.get((q_text, candidate), _MISSING)
                if pair is _MISSING:
                    pair = self._question_features(question, candidate)
                    pairs.put((q_text, candidate), pair)
                if pair is None:
                    row = [0.0] * self.n_features
                else:
                    c_uni, f0, f1, f2, f4, f5, f7, f8, f9, taken_inside, taken_at_end = pair
                    taken = taken_inside in text or text.endswith(taken_at_end)
                    row = [f0, f1, f2, len(c_uni & t_uni) / len(c_uni), f4, f5, float(taken), f7, f8, f9]
                seen[candidate] = row
            rows.append(row)
        return feature_array(rows, len(candidates), self.n_features)

    def _features(self, context: tuple, candidate: str) -> list[float]:
        return self._compute(context, (candidate,))[0].tolist()

    def _question_features(self, question: tuple, candidate: str) -> tuple | None:
        """(the candidate's unigrams, then its features that depend on the question alone, then
        the two strings ``already_taken`` looks for): the same candidates come back step after
        step and in every episode of a task, so they are computed once per (question, candidate);
        None for "" (all features 0)."""
        c_uni, c_bi, c_stems, names, subject, taken = self._candidate(candidate)
        if not c_uni:
            return None
        _, q_uni, q_bi, q_stems, order, question_lower = question
        shared = len(c_uni & q_uni)
        common = len(q_stems & c_stems)
        return (c_uni,
                shared / len(c_uni),
                len(c_bi & q_bi) / len(c_bi) if c_bi else 0.0,
                _log1p(shared),
                common / len(q_stems) if q_stems else 0.0,
                common / len(c_stems) if c_stems else 0.0,
                _first_position(order, c_stems),
                _share_named(names, q_uni),
                float(_named_in(subject, question_lower)),
                *taken)

    def _candidate(self, candidate: str) -> tuple:
        """What a candidate's features read of it, whatever the question (one memo look-up): its
        unigrams, bigrams, stems, name words, answer subject, and the strings ``already_taken``
        looks for."""
        found = self._candidates.get(candidate)
        if found is None:
            found = (*_grams_of(candidate), _stems_of(candidate), _names_of(candidate),
                     _answer_subject(candidate).lower(), _taken_needles(candidate))
            self._candidates.put(candidate, found)
        return found

    def _stem_order(self, question: str) -> list[str]:
        """The question's generic word stems in order (what ``first_position`` walks)."""
        key = ("order", question)
        order = self._grams.get(key)
        if order is None:
            order = _stem_list(question)
            self._grams.put(key, order)
        return order

    def _names(self, candidate: str) -> list[str]:
        """The candidate's lower-cased capitalised name words (``name_share``'s), memoised."""
        key = ("names", candidate)
        found = self._grams.get(key)
        if found is None:
            found = _names_of(candidate)
            self._grams.put(key, found)
        return found

    def _subject(self, candidate: str) -> str:
        """An answer candidate's lower-cased provenance subject ("" otherwise), memoised."""
        key = ("subject", candidate)
        found = self._grams.get(key)
        if found is None:
            found = _answer_subject(candidate).lower()
            self._grams.put(key, found)
        return found

    def first_position(self, question: str, candidate_stems: frozenset[str]) -> float:
        """Relative position in the question of the first stem the candidate shares (1.0: none)."""
        return _first_position(self._stem_order(question), candidate_stems)

    def name_share(self, question: str, candidate: str) -> float:
        """Share of the candidate's capitalised name words that the question contains."""
        return _share_named(self._names(candidate), self.grams(question)[0])

    @staticmethod
    def subject_named(question: str, candidate: str) -> bool:
        """An answer candidate whose fact's subject (first provenance field) the question names."""
        return _named_in(_answer_subject(candidate).lower(), question.lower())

    @staticmethod
    def already_taken(text: str, candidate: str) -> bool:
        """Was this exact action taken before? (its rendering appears on a ``Step k:`` line)."""
        inside, at_end = _taken_needles(candidate)
        return inside in text or text.endswith(at_end)

    def stems(self, text: str) -> frozenset[str]:
        """5-letter prefixes of the text's generic words (no names, no numbers): "founded" and
        "founder" meet at "found", "attend" and "attended" at "atten"."""
        key = ("stems", text)
        found = self._grams.get(key)
        if found is None:
            found = _stems_of(text)
            self._grams.put(key, found)
        return found


def _grams_of(text: str) -> tuple[frozenset[str], frozenset[tuple[str, str]]]:
    w = words(text)
    return frozenset(w), frozenset(pairwise(w))


def _stem_list(text: str) -> list[str]:
    """5-letter prefixes of the text's generic words, in order (no names, numbers or stop stems)."""
    return [w[:5] for w in generic_word_tuple(text) if w not in STOP_STEMS and w != "<num>"]


def _stems_of(text: str) -> frozenset[str]:
    return frozenset(_stem_list(text))


def _names_of(candidate: str) -> list[str]:
    return [w.lower() for w in NAME_WORD.findall(candidate) if w.lower() not in STOP_STEMS]


def _taken_needles(candidate: str) -> tuple[str, str]:
    """What a ``Step k:`` line that took this action shows: ": action" and a line break, or the text's end."""
    action = candidate.split("  <- ", 1)[0]
    return f": {action}\n", f": {action}"


#: ``float(np.log1p(k))`` for the small counts of shared words (the same numbers, looked up)
_LOG1P = tuple(float(np.log1p(k)) for k in range(256))


def _log1p(count: int) -> float:
    return _LOG1P[count] if count < len(_LOG1P) else float(np.log1p(count))


def _first_position(order: Sequence[str], candidate_stems: frozenset[str]) -> float:
    for i, stem in enumerate(order):
        if stem in candidate_stems:
            return i / max(1, len(order))
    return 1.0


def _share_named(names: Sequence[str], question_words: frozenset[str]) -> float:
    return sum(n in question_words for n in names) / len(names) if names else 0.0


def _answer_subject(candidate: str) -> str:
    """The first provenance field of an ``answer(...)`` candidate ("" for any other)."""
    if not candidate.startswith("answer("):
        return ""
    return candidate.split("  <- ", 1)[-1].split(" | ", 1)[0].strip()


def _named_in(subject_lower: str, question_lower: str) -> bool:
    return bool(subject_lower) and subject_lower in question_lower
