"""LexicalOverlap's per-observation features are bit for bit those of the implementation before
its speed rewrite (kept below as ``BeforeOverlap``, its code as it was, memos and all), on real
observations of a team env and on texts with tricky characters; ``generic_words`` (which its
stems read) equals the callback-based definition it replaced."""

from __future__ import annotations

import re
from itertools import pairwise

import numpy as np
import pytest
from searchgym.agents.encoder_hash import KEPT_CAPITALISED, generic_words, words
from searchgym.agents.lexical_overlap import STOP_STEMS, LexicalOverlap, question_of
from test_encoder_hash_lines import TRICKY, random_texts
from test_features_exact import team_observations

NAME_TOKEN = re.compile(r"\b[A-Z][\w-]*")
NAME_WORD = re.compile(r"\b[A-Z][a-z]+\b")


def generic_words_before(text: str) -> list[str]:
    stripped = NAME_TOKEN.sub(lambda m: m.group(0) if m.group(0).lower() in KEPT_CAPITALISED else " ", text)
    return ["<num>" if w.isdigit() else w for w in words(stripped)]


class BeforeOverlap:
    """LexicalOverlap's feature code before the rewrite (one candidate at a time)."""

    def __init__(self) -> None:
        self._pairs: dict = {}

    @staticmethod
    def grams(text: str) -> tuple[frozenset[str], frozenset[str]]:
        w = words(text)
        return frozenset(w), frozenset(pairwise(w))

    @staticmethod
    def stems(text: str) -> frozenset[str]:
        return frozenset(w[:5] for w in generic_words_before(text) if w not in STOP_STEMS and w != "<num>")

    def context(self, text: str) -> tuple:
        question = question_of(text)
        q_uni, q_bi = self.grams(question)
        order = [w[:5] for w in generic_words_before(question) if w not in STOP_STEMS and w != "<num>"]
        return ((question, q_uni, q_bi, self.stems(question), order, question.lower()), frozenset(words(text)), text)

    def features(self, context: tuple, candidate: str) -> list[float]:
        question, t_uni, text = context
        key = (question[0], candidate)
        if key not in self._pairs:
            self._pairs[key] = self.question_features(question, candidate)
        pair = self._pairs[key]
        if pair is None:
            return [0.0] * LexicalOverlap.n_features
        c_uni, f0, f1, f2, f4, f5, f7, f8, f9 = pair
        action = candidate.split("  <- ", 1)[0]
        taken = f": {action}\n" in text or text.endswith(f": {action}")
        return [f0, f1, f2, len(c_uni & t_uni) / len(c_uni), f4, f5, float(taken), f7, f8, f9]

    def question_features(self, question: tuple, candidate: str) -> tuple | None:
        c_uni, c_bi = self.grams(candidate)
        if not c_uni:
            return None
        _, q_uni, q_bi, q_stems, order, question_lower = question
        shared = len(c_uni & q_uni)
        c_stems = self.stems(candidate)
        common = len(q_stems & c_stems)
        first = next((i / max(1, len(order)) for i, stem in enumerate(order) if stem in c_stems), 1.0)
        names = [w.lower() for w in NAME_WORD.findall(candidate) if w.lower() not in STOP_STEMS]
        subject = ""
        if candidate.startswith("answer("):
            subject = candidate.split("  <- ", 1)[-1].split(" | ", 1)[0].strip().lower()
        return (c_uni, shared / len(c_uni), len(c_bi & q_bi) / len(c_bi) if c_bi else 0.0, float(np.log1p(shared)),
                common / len(q_stems) if q_stems else 0.0, common / len(c_stems) if c_stems else 0.0, first,
                sum(n in q_uni for n in names) / len(names) if names else 0.0,
                float(bool(subject) and subject in question_lower))

    def observation_features(self, text: str, candidates: list[str]) -> np.ndarray:
        context = self.context(text)
        rows = [self.features(context, c) for c in candidates]
        return np.array(rows, dtype=np.float64).reshape(len(candidates), LexicalOverlap.n_features)


def test_generic_words_equal_the_callback_definition():
    texts = TRICKY + random_texts(600, seed=11) + [
        "What WHAT wHaT Whatever What-ever And AND Andes An Anna In INN By Byron Of Off Or Ore Do Does Doesn",
        "Who-is Is IS Is- \u212aelvin The_x The9 A a-A A-b Vexa-Corp x-Vexa 9Vexa _Vexa Ιs Iſ Was WAS",
    ]
    for text in texts:
        assert generic_words(text) == generic_words_before(text), repr(text)


def test_features_equal_the_implementation_before_on_real_observations():
    observations = team_observations(episodes=16)
    assert len(observations) > 100 and sum(1 for t, _ in observations if ": " in t.split("Step 1:")[-1]) > 10
    before, after = BeforeOverlap(), LexicalOverlap()
    for text, candidates in observations + observations[::-1]:  # the second pass reads the memos
        expected = before.observation_features(text, candidates)
        got = after.observation_features(text, candidates)
        assert got.dtype == np.float64 and got.tobytes() == expected.tobytes(), text
        for j in (0, len(candidates) // 2, len(candidates) - 1):
            assert after.features(text, candidates[j]) == expected[j].tolist()


@pytest.mark.parametrize("seed", [0, 1])
def test_features_equal_the_implementation_before_on_tricky_texts(seed):
    rng = np.random.default_rng(seed)
    pieces = TRICKY + random_texts(80, seed=seed) + ["answer(\"Vexa Corp\")  <- Mara Quell | founded | a company",
                                                     'web_search(query="Vexa Corp")', "Question: Who founded Vexa Corp?"]
    before, after = BeforeOverlap(), LexicalOverlap()
    for _ in range(150):
        question = str(rng.choice(pieces))
        steps = [f"Step {k + 1}: {rng.choice(pieces)}\n{rng.choice(pieces)}" for k in range(int(rng.integers(0, 4)))]
        text = "\n".join([f"Question: {question}", *steps]) if rng.random() < 0.8 else str(rng.choice(pieces))
        taken = [s.split(": ", 1)[1].split("\n", 1)[0] for s in steps]
        candidates = [str(rng.choice(pieces + taken)) if taken else str(rng.choice(pieces)) for _ in range(8)] + [""]
        assert after.observation_features(text, candidates).tobytes() == \
            before.observation_features(text, candidates).tobytes(), (text, candidates)


def test_the_log1p_table_holds_numpys_values_and_larger_counts_fall_back():
    from searchgym.agents.lexical_overlap import _log1p

    assert all(_log1p(k) == float(np.log1p(k)) for k in range(0, 400))
