"""OperandSources: whose facts a calculation's operands are, read from the listed answer facts."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from searchgym.agents import make_policy
from searchgym.agents.hop_features import HopFeatures
from searchgym.agents.lexical_overlap import LexicalOverlap
from searchgym.agents.operand_features import OperandSources

TEXT = ("You are generalist_0 in a team of 2: ...\n"
        "Question: What is the combined annual revenue in millions of dollars of Glistix Systems and Zeneirk Corp?\n"
        "Blackboard: (empty)\n"
        'Step 1: web_search(query="Glistix Systems")\n'
        "Glistix Systems earns 5210 million dollars a year. In 2025, Glistix Systems reported revenue of 4050.\n")
CANDS = ['answer("5210")  <- Glistix Systems | revenue | a number | via web_search',
         'answer("4050")  <- Glistix Systems | revenue in 2025 | a number | via web_search',
         'answer("10")  <- Zeneirk Corp | revenue | a number | via blackboard note by generalist_1',
         'answer("1903")  <- Skunepou | founded year | a number | via web_search',
         'calculator(expression="5210 + 10")  <- sum of revenue',
         'calculator(expression="5210 + 4050")  <- sum of revenue',
         'calculator(expression="5210 + 1903")  <- sum of revenue',
         'calculator(expression="7 + 8")  <- sum of revenue',
         'knowledge_base(entity="Zeneirk Corp")  <- name from the question', "", ""]


def test_a_sum_over_two_asked_names_is_told_apart_from_two_figures_of_one():
    rows = OperandSources().observation_features(TEXT, CANDS)
    assert rows.shape == (len(CANDS), OperandSources.n_features)
    np.testing.assert_array_equal(rows[4], [1.0, 1.0, 0.0])  # A's revenue + B's revenue
    np.testing.assert_array_equal(rows[5], [1.0, 0.0, 0.5])  # A's revenue + A's revenue in 2025 (dated)
    np.testing.assert_array_equal(rows[6], [0.5, 0.0, 0.0])  # 1903 is a fact about a name the question lacks
    np.testing.assert_array_equal(rows[7], [0.0, 0.0, 0.0])  # figures no listed fact states
    assert not rows[[0, 1, 2, 3, 8, 9, 10]].any()  # answers, look-ups and padding: zeros


def test_memoised_and_read_from_the_observation_alone():
    sources = OperandSources()
    first = sources.observation_features(TEXT, CANDS)
    assert sources.observation_features(TEXT, tuple(CANDS)) is first
    other = sources.observation_features(TEXT.replace("Zeneirk Corp?", "Kriogla Corp?"), CANDS)
    assert other[4].tolist() == [0.5, 0.0, 0.0]  # Zeneirk Corp is no longer asked about


def test_policies_read_them_only_when_asked(make_obs):
    base = LexicalOverlap.n_features + HopFeatures.n_features
    assert make_policy("hash", seed=0).n_overlap == base  # make main's layout is unchanged
    wide = make_policy("hash", seed=0, operand_sources=True)
    assert wide.n_overlap == base + OperandSources.n_features
    obs = make_obs(TEXT, CANDS, [1] * 9 + [0, 0], n=len(CANDS))
    logits, _ = wide([obs])
    assert torch.isfinite(logits[0, :9]).all() and (logits[0, 9:] == torch.finfo(logits.dtype).min).all()
    attn = make_policy("attn", seed=0, dim=16, heads=2, hidden=16)
    assert attn.n_features == base + OperandSources.n_features
    assert make_policy("attn", seed=0, dim=16, heads=2, hidden=16, hop_features=False).n_features == 0
    with pytest.raises(ValueError, match="hop_features"):
        make_policy("attn", operand_sources=True)
