"""Feature rows converted up to the last real candidate equal converting every padded row."""

from __future__ import annotations

import numpy as np

from searchgym.agents.feature_rows import feature_array, real_count
from searchgym.agents.hop_features import HopFeatures
from searchgym.agents.lexical_overlap import LexicalOverlap


def test_real_count_stops_at_the_last_non_empty_candidate():
    assert real_count(("a", "", "b", "", "")) == 3
    assert real_count(("", "")) == 0 and real_count(()) == 0 and real_count(["a"]) == 1


def test_feature_array_equals_the_padded_conversion():
    rows = [[0.5, 1.0, -2.0], [0.0, 0.25, 3.0]]
    padded = np.array(rows + [[0.0] * 3] * 3, dtype=np.float64)
    assert np.array_equal(feature_array(rows, 5, 3), padded) and feature_array(rows, 5, 3).dtype == np.float64
    assert np.array_equal(feature_array([], 2, 3), np.zeros((2, 3)))


def test_padding_rows_are_zero_and_real_rows_do_not_depend_on_padding():
    text = ("Question: Who founded Vexa Corp?\nStep 1: web_search(query=\"Vexa Corp\")\n"
            "Vexa Corp was founded by Mara.")
    candidates = ['knowledge_base(entity="Mara")  <- name from the latest result', "",
                  'answer("Mara")  <- Vexa Corp | founded by | via web_search']
    for features in (HopFeatures(), LexicalOverlap()):
        short = features.observation_features(text, candidates)
        padded = features.observation_features(text, candidates + [""] * 4)
        assert np.array_equal(padded[:3], short) and not padded[3:].any() and not short[1].any()


def test_memoised_rows_compute_once_per_observation_and_stay_bounded():
    from searchgym.agents.feature_rows import MemoisedRows

    class Counted(MemoisedRows):
        n_features = 1
        calls = 0

        def _compute(self, text, candidates):
            Counted.calls += 1
            return np.full((len(candidates), 1), float(len(text)))

    rows = Counted(cache_size=2)
    first = rows.observation_features("ab", ["x", ""])
    assert rows.observation_features("ab", ("x", "")) is first and Counted.calls == 1
    for text in ("c", "d", "e"):
        rows.observation_features(text, ["x"])
    assert len(rows._cache) == 2 and Counted.calls == 4  # the oldest were forgotten
    rows.observation_features("ab", ["x", ""])
    assert Counted.calls == 5
