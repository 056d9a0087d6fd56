"""ComparisonStanding: which option's figure is the largest or smallest, read from the facts seen."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from searchgym.agents import make_policy
from searchgym.agents.comparison_features import ComparisonStanding, comparison_plan
from searchgym.agents.hop_features import HopFeatures
from searchgym.agents.lexical_overlap import LexicalOverlap
from searchgym.baselines.reader import ReaderPolicy
from searchgym.baselines.reader_plan import parse_question

from searchgym.suites import get_suite, make_env

TEXT = ("You are generalist_1 in a team of 2: ...\n"
        "Question: Which company has more employees: the company that makes Gipeim-200 or the company that "
        "makes Glufy 960?\n"
        "Blackboard: (empty)\n"
        'Step 1: web_search(query="Glufy 960")\n'
        "[1] Glufy 960 (https://wiki.searchgym.example/product/glufy-960)\n"
        "Glufy 960 is a product. Chaetheix Systems manufactures Glufy 960.\n\n"
        "[2] Chaetheix Systems (https://wiki.searchgym.example/company/chaetheix-systems)\n"
        "Chaetheix Systems is a company. Chaetheix Systems employs 2990 people.\n\n"
        "[3] Qytreish Dynamics (https://wiki.searchgym.example/company/qytreish-dynamics)\n"
        "Qytreish Dynamics is a company. Qytreish Dynamics employs 8330 people. Qytreish Dynamics makes Zeishaes Pro 630.\n"
        'Step 2: web_search(query="Gipeim-200")\n'
        "[1] Gipeim-200 (https://wiki.searchgym.example/product/gipeim-200)\n"
        "Gipeim-200 is a product. Qytreish Group manufactures Gipeim-200.\n"
        'Step 3: knowledge_base(entity="Qytreish Group")\n'
        "Qytreish Group (company)\n"
        "- founded year: 1934\n"
        "- employees: 320 (as of 2034)\n")
CANDS = ['answer("Chaetheix Systems")  <- Glufy 960 | made by | a company | via web_search',
         'answer("Qytreish Group")  <- Gipeim-200 | made by | a company | via web_search',
         'answer("Qytreish Dynamics")  <- Zeishaes Pro 630 | made by | a company | via web_search',
         'answer("8330")  <- Qytreish Dynamics | employees | a number | via web_search',
         'knowledge_base(entity="Chaetheix Systems")  <- name from the latest result', "", ""]


def test_the_plan_is_the_readers_and_only_comparisons_have_one():
    plan = comparison_plan("Which city was founded earlier: the birthplace of A or the birthplace of B?")
    assert (plan.target, plan.smaller_wins, [p.relations for p in plan.paths]) == (
        "founded_year", True, [("born_in",), ("born_in",)])
    assert comparison_plan("Which film grossed more: Night over K or The Last S?").smaller_wins is False
    assert comparison_plan("What is the population of the city where A was born?") is None
    assert comparison_plan("") is None


def test_a_figure_of_the_described_entity_is_not_an_options_figure():
    """"The city where U is based": the university U's own founding year is not a city's."""
    text = ("Question: Which city was founded earlier: the city where Zecush Institute of Technology is based "
            "or the city where University of Taepru is based?\n"
            'Step 1: knowledge_base(entity="Zecush Institute of Technology")\n'
            "Zecush Institute of Technology (university)\n- founded year: 1890\n- campus city: Hethous\n"
            'Step 2: knowledge_base(entity="Hethous")\n'
            "Hethous (city)\n- founded year: 1850\n")
    cands = ['answer("Hethous")  <- Zecush Institute of Technology | campus city | a city | via knowledge_base',
             'answer("Zecush Institute of Technology")  <- name from the question',
             'knowledge_base(entity="University of Taepru")  <- name from the question']
    rows = ComparisonStanding().observation_features(text, cands)
    np.testing.assert_array_equal(rows[0], [0.5, 1.0, 1.0, 0.0, 0.0])  # one option's year known: no rank
    np.testing.assert_array_equal(rows[1], [0.5, 1.0, 0.0, 0.0, 0.0])  # 1890 is the university's, no option's


def test_the_options_figures_are_ranked_and_a_name_off_the_question_is_not():
    rows = ComparisonStanding().observation_features(TEXT, CANDS)
    assert rows.shape == (len(CANDS), ComparisonStanding.n_features)
    np.testing.assert_array_equal(rows[0], [1.0, 0.0, 1.0, 1.0, 0.0])  # Chaetheix Systems: 2990, the larger
    np.testing.assert_array_equal(rows[1], [1.0, 0.0, 1.0, 0.0, 1.0])  # Qytreish Group: 320 (its knowledge-base entry), the smaller
    np.testing.assert_array_equal(rows[2], [1.0, 0.0, 0.0, 0.0, 0.0])  # 8330, but makes neither product: not an option
    np.testing.assert_array_equal(rows[3], [1.0, 0.0, 0.0, 0.0, 0.0])  # a figure, not an option
    np.testing.assert_array_equal(rows[4], [1.0, 0.0, 0.0, 0.0, 0.0])
    assert not rows[5:].any()  # padding


def test_one_figure_known_ranks_nothing_and_a_question_that_compares_nothing_gives_zeros():
    one = TEXT.replace("- employees: 320 (as of 2034)\n", "")
    rows = ComparisonStanding().observation_features(one, CANDS)
    np.testing.assert_array_equal(rows[0], [0.5, 0.0, 1.0, 0.0, 0.0])
    assert not rows[1, 1:].any()  # Qytreish Group's head count is no longer known
    earlier = ComparisonStanding().observation_features(TEXT.replace("has more employees", "was founded earlier"), CANDS)
    np.testing.assert_array_equal(earlier[:2], [[0.5, 1.0, 0.0, 0.0, 0.0], [0.5, 1.0, 1.0, 0.0, 0.0]])  # 1934 alone
    bridge = TEXT.replace("Which company has more employees: the company that makes Gipeim-200 or the company that "
                          "makes Glufy 960?", "What is the number of employees of the company that makes Glufy 960?")
    assert not ComparisonStanding().observation_features(bridge, CANDS).any()  # not a comparison


def test_the_readers_comparison_answers_are_the_ones_the_features_rank_first():
    """On real quick-v2 comparisons, the reader's answer is the largest figure ("more") or the
    smallest ("earlier") as the features state it: the move they let a policy learn."""
    suite = get_suite("quick-v2")
    env = make_env(suite, "train")
    tasks = [t for t in suite.tasks("train") if t.family == "comparison"][:12]
    reader, standing = ReaderPolicy(), ComparisonStanding()
    answers = agree = 0
    for i, task in enumerate(tasks):
        obs, _ = env.reset(seed=i, options={"task_id": task.id})
        column = 4 if parse_question(task.question).smaller_wins else 3
        while env.agents:
            actions = {a: reader.choose(obs[a]) for a in env.agents}
            for agent, k in actions.items():
                if obs[agent]["candidates"][k].startswith("answer("):
                    answers += 1
                    agree += standing.observation_features(obs[agent]["text"], obs[agent]["candidates"])[k, column] == 1
            obs, *_ = env.step(actions)
    assert answers >= 10 and agree >= 0.9 * answers


def test_policies_read_them_only_when_asked(make_obs):
    base = LexicalOverlap.n_features + HopFeatures.n_features
    assert make_policy("hash", seed=0).n_overlap == base
    wide = make_policy("hash", seed=0, comparison_facts=True)
    assert wide.n_overlap == base + ComparisonStanding.n_features
    obs = make_obs(TEXT, CANDS, [1] * 5 + [0, 0], n=len(CANDS))
    logits, _ = wide([obs])
    assert torch.isfinite(logits[0, :5]).all() and (logits[0, 5:] == torch.finfo(logits.dtype).min).all()
    with pytest.raises(ValueError, match="overlap_features"):
        make_policy("hash", comparison_facts=True, overlap_features=False)


def test_the_attn_policy_reads_them_too(make_obs):
    plain = make_policy("attn", seed=0, dim=16, heads=2, hidden=16)
    wide = make_policy("attn", seed=0, dim=16, heads=2, hidden=16, comparison_facts=True)
    assert wide.n_features == plain.n_features + ComparisonStanding.n_features
    logits, _ = wide([make_obs(TEXT, CANDS, [1] * 5 + [0, 0], n=len(CANDS))])
    assert torch.isfinite(logits[0, :5]).all()
    with pytest.raises(ValueError, match="hop_features"):
        make_policy("attn", comparison_facts=True, hop_features=False)


def test_an_options_namesake_is_no_option():
    """Two entities share a plain name: the one the question's path reaches has the figure, its
    namesake in another answer has none (keyed by the plain name, both had it); the plain form of the
    option's name still finds it."""
    oslo = "Chaetheix Systems (Oslo)"
    text = TEXT.replace("Chaetheix Systems manufactures", f"{oslo} manufactures").replace(
        "Chaetheix Systems is a company. Chaetheix Systems employs", f"{oslo} is a company. {oslo} employs")
    cands = [f'answer("{oslo}")  <- Glufy 960 | made by | a company | via web_search',
             'answer("Chaetheix Systems (Lima)")  <- Zeishaes Pro 630 | made by | a company | via web_search',
             'answer("Chaetheix Systems")  <- name from a result | via web_search',
             'answer("Qytreish Group")  <- Gipeim-200 | made by | a company | via web_search']
    rows = ComparisonStanding().observation_features(text, cands)
    np.testing.assert_array_equal(rows[0], [1.0, 0.0, 1.0, 1.0, 0.0])  # 2990, the larger
    np.testing.assert_array_equal(rows[1], [1.0, 0.0, 0.0, 0.0, 0.0])  # the namesake: no figure
    np.testing.assert_array_equal(rows[2], [1.0, 0.0, 1.0, 1.0, 0.0])  # the unqualified name: the option's
    np.testing.assert_array_equal(rows[3], [1.0, 0.0, 1.0, 0.0, 1.0])  # 320, the smaller
