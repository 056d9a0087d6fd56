"""HopFeatures: where each candidate's name stands in the search, read from the observation alone."""

from __future__ import annotations

import numpy as np
from searchgym.agents import make_policy
from searchgym.agents.hop_features import HopFeatures, Transcript, split_candidate

TEXT = ("You are generalist_1 in a team of 2: ...\n"
        "Question: Which company was founded earlier: the company that makes Shioriom X5 or the company that "
        "makes Stotrur Pro 890?\n"
        "Blackboard: (empty)\n"
        'Step 1: knowledge_base(entity="Stotrur Pro 890")\n'
        "Stotrur Pro 890 (product)\n"
        "- release year: 2011\n"
        'Step 2: web_search(query="Shioriom X5")\n'
        "[1] Shioriom X5 (https://wiki.searchgym.example/product/shioriom-x5)\n"
        "Shioriom X5 is made by Kelvaro Works.\n")
CANDS = ['knowledge_base(entity="Shioriom X5")  <- name from the question',
         'web_search(query="Stotrur Pro 890")  <- name from the question',
         'knowledge_base(entity="Stotrur Pro 890")  <- name from the question',
         'knowledge_base(entity="Kelvaro Works")  <- name from the latest result | made by of Shioriom X5',
         'answer("2011")  <- Stotrur Pro 890 | release year | a number | via knowledge_base',
         'calculator(expression="2011 - 1990")  <- difference of founded year',
         'calculator(expression="1990 - 2011")  <- difference of founded year',
         "wait()  <- let teammates work this round", ""]


def features() -> np.ndarray:
    return HopFeatures().observation_features(TEXT, CANDS)


def test_split_candidate_reads_kind_argument_and_provenance():
    assert split_candidate(CANDS[3]) == ("knowledge_base", "Kelvaro Works", "name from the latest result | made by of Shioriom X5")
    assert split_candidate(CANDS[7])[:2] == ("wait", "")


def test_transcript_reads_rank_steps_and_result_bodies():
    seen = Transcript(TEXT)
    assert seen.rank == 1
    assert seen.steps == [("knowledge_base", "Stotrur Pro 890"), ("web_search", "Shioriom X5")]
    assert "Kelvaro Works" in seen.latest and "release year" not in seen.latest and "release year" in seen.results


def test_question_order_other_tool_and_revealed_names():
    f = features()
    assert f[0, 0] == 1 and f[0, 1] == 0  # Shioriom X5: the question's first name
    assert f[1, 0] == 0 and f[1, 1] == 1  # Stotrur Pro 890: a later one
    assert (f[:8, 2] == 1).all()  # generalist_1
    assert f[1, 4] == 1 and f[2, 4] == 0  # web_search of a name only the knowledge base was asked about
    assert f[2, 3] == 0.5  # looked up once before
    assert f[3, 5] == 1 and f[3, 6] == 1 and f[0, 6] == 1 and f[1, 6] == 0  # revealed by the latest result
    assert f[0, 8] == 1  # another candidate states a fact about Shioriom X5 (made by of ...)
    assert f[4, 9] == 1  # an answer about a name looked up
    assert f[5, 11] == 1 and f[6, 11] == 0  # operands in descending order
    assert f[5, 12] == 0.5  # 2011 is a listed fact's value, 1990 is not
    assert np.all(f[8] == 0)  # padding
    assert np.all(f[:8, 10] == 2 / 8)


def test_hash_policy_scores_with_the_features_and_is_deterministic():
    policy = make_policy("hash", device="cpu", seed=0)
    assert policy.n_overlap == 10 + HopFeatures.n_features
    obs = {"text": TEXT, "candidates": tuple(CANDS), "action_mask": np.array([1] * 8 + [0], dtype=np.int8)}
    a, _ = policy([obs])
    b, _ = make_policy("hash", device="cpu", seed=0)([obs])
    assert a.shape == (1, 9) and bool((a[0, 8] < -1e30)) and np.allclose(a.detach().numpy(), b.detach().numpy())


def test_facts_about_marks_for_each_name_the_candidates_that_state_its_facts():
    about = HopFeatures().facts_about(CANDS)
    assert about.shape == (len(CANDS), len(CANDS)) and about.dtype == bool
    # "made by of Shioriom X5" (candidate 3) is the one fact listed about Shioriom X5
    np.testing.assert_array_equal(np.flatnonzero(about[0]), [3])
    # Stotrur Pro 890's release year (candidate 4) is stated for both of its look-ups, never for itself
    for j in (1, 2):
        np.testing.assert_array_equal(np.flatnonzero(about[j]), [4])
    assert not about[4].any() and not about[3].any()  # no candidate states a fact about "2011" or Kelvaro Works
    assert not about[-1].any() and not about[:, -1].any()  # padding
    assert np.all(np.diag(about) == 0)


def test_fact_context_reads_only_admissible_candidates():
    import torch
    from searchgym.agents.policy import pool_facts
    e_cand = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [3.0, 3.0]]])
    about = torch.tensor([[[False, True, True], [False, False, False], [False, False, False]]])
    pooled = pool_facts(torch.zeros(1, 2), e_cand, about, torch.tensor([[True, True, False]]))
    torch.testing.assert_close(pooled[0, 0], torch.tensor([0.0, 1.0]))  # candidate 2 is masked out
    torch.testing.assert_close(pooled[0, 1:], torch.zeros(2, 2))  # nothing stated about them
    both = pool_facts(torch.tensor([[1.0, 0.0]]), e_cand, about, torch.ones(1, 3, dtype=torch.bool))
    weights = torch.softmax(torch.tensor([0.0, 3.0]), 0)  # the query weighs fact 2 by e^3 against fact 1
    torch.testing.assert_close(both[0, 0], weights[0] * e_cand[0, 1] + weights[1] * e_cand[0, 2])
