"""Candidate policies and the supervised base are refused on envs they cannot read, before any folder.

Before: `searchgym train --method sft --env SearchQA-v0` (or a numeric env, or `compare --suite
searchqa-text-v2 --methods sft`) ended in a traceback, ``AttributeError: 'str' object has no attribute
'get'``, deep in the reader; a learner failed at its first batch ("observation 0 must be a dict ...").
Both left a run folder that then refused the corrected command as "a different run"."""

from __future__ import annotations

import pytest

from searchgym.cli import main
from searchgym.harness.compare import Comparison
from searchgym.harness.methods import parse_methods
from searchgym.harness.preflight import check_candidate_env, check_comparison
from searchgym.suites import Suite, get_suite


@pytest.mark.parametrize(("method", "env", "what"), [
    ("sft", "SearchQA-v0", "text mode"),
    ("cw_grpo", "TeamSearch-v0", "text mode"),
    ("grpo", "SearchQA-Tags-v0", "text mode"),
])
def test_train_refuses_a_candidate_policy_on_an_env_it_cannot_read(tmp_path, capsys, method, env, what):
    out = tmp_path / "run"
    code = main(["train", "--method", method, "--env", env, "--budget", "20", "--world-size", "tiny",
                 "--test-size", "2", "--no-progress", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"method '{method}': --policy hash chooses among candidates, and {env} is {what}" in err
    assert "SearchQA-Candidates-v0" in err and "--policy llm" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()  # the corrected command is not refused as "a different run"


@pytest.mark.parametrize("method", ["reader", "oracle", "random", "sft", "cw_grpo"])
def test_no_built_in_method_plays_a_numeric_env(tmp_path, capsys, method):
    """Before: the reader scored 0.000 and the oracle 0.200 on SearchQA-Numeric-Easy-v0 (its slots are not
    the env's candidate indices), written as results; sft ended in a traceback."""
    out = tmp_path / "run"
    code = main(["train", "--method", method, "--env", "SearchQA-Numeric-Easy-v0", "--budget", "20",
                 "--world-size", "tiny", "--test-size", "2", "--no-progress", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert f"method '{method}': SearchQA-Numeric-Easy-v0 is numeric (a Box for Stable-Baselines3" in err
    assert "use SearchQA-Candidates-Easy-v0, the same env with candidate observations" in err
    assert len(err.strip().splitlines()) == 1


def test_compare_refuses_sft_and_learners_on_a_text_suite_before_any_run(tmp_path):
    comparison = Comparison(get_suite("searchqa-text-v2"), parse_methods("random,sft"), [0], 10, tmp_path / "c")
    with pytest.raises(ValueError, match="method 'sft': --policy hash chooses among candidates, and SearchQA-v0"):
        check_comparison(comparison)
    assert not (tmp_path / "c").exists()


def test_candidate_envs_and_a_suite_that_turns_an_env_to_candidates_pass():
    for env in ("SearchQA-Candidates-v0", "TeamSearch-Generalists-Candidates-v0", "GroupSearch-Candidates-v0"):
        check_candidate_env(Suite("p-v0", 0, env, {}, world_size="tiny"), "hash")
    check_candidate_env(Suite("p-v0", 0, "SearchQA-v0", {"action_mode": "candidates"}, world_size="tiny"), "attn")
    with pytest.raises(ValueError, match="TeamSearch-Candidates-v0 is text mode"):
        check_candidate_env(Suite("p-v0", 0, "TeamSearch-Candidates-v0", {"action_mode": "text"}), "hash")
