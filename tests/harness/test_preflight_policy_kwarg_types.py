"""Every entry point refuses a policy kwarg of the wrong type before any run starts. Before:
``compare ... --option 'policy_kwargs={"operand_sources": "false"}'`` trained with the features ON
and recorded "false" in config.json; ``dim: "big"`` and ``dim: 0`` were refused with two different
ranges (0..4096 and >= 1)."""

from __future__ import annotations

import pytest
from harness_helpers import TINY_QA

from searchgym.agents.policy import make_policy
from searchgym.cli import main
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.harness.option_bounds import option_out_of_bounds

COMPARE = ["compare", "--suite", TINY_QA.id, "--methods", "cw_grpo", "--seeds", "1", "--budget", "20",
           "--device", "cpu", "--no-progress"]
TRAIN = ["train", "--method", "grpo", "--env", "SearchQA-Candidates-Easy-v0", "--world-size", "tiny",
         "--test-size", "2", "--budget", "8", "--device", "cpu", "--no-progress"]


@pytest.mark.parametrize(("policy", "kwargs", "expected"), [
    ("hash", '{"operand_sources": "false"}', "operand_sources of the hash policy must be a bool (true or false); "
                                             "got 'false' (str)"),
    ("attn", '{"hop_features": "no"}', "hop_features of the attn policy must be a bool (true or false); got 'no'"),
])
def test_compare_refuses_a_switch_given_as_text_before_any_run(policy, kwargs, expected, tmp_path, capsys):
    out = tmp_path / "out"
    assert main([*COMPARE, "--policy", policy, "--option", f"policy_kwargs={kwargs}", "--out", str(out)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("searchgym compare: error: method 'cw_grpo': policy_kwargs") and expected in line, line
    assert not (out / "runs").exists()


def test_train_refuses_it_too(tmp_path, capsys):
    out = tmp_path / "run"
    assert main([*TRAIN, "--option", 'policy_kwargs={"comparison_facts": 1}', "--out", str(out)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "comparison_facts of the hash policy must be a bool (true or false); got 1 (int)" in line, line
    assert not (out / "config.json").exists()


def test_a_python_comparison_refuses_it_too(tmp_path):
    comparison = Comparison(suite=TINY_QA, methods=parse_methods("cw_grpo"), seeds=[0], budget=20, out=tmp_path,
                            device="cpu", progress=False, options={"policy_kwargs": {"overlap_features": "no"}})
    with pytest.raises(ValueError, match="overlap_features of the hash policy must be a bool"):
        run_comparison(comparison)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("value", [0, "big", 5000])
def test_a_policy_size_is_said_with_one_range(value):
    """The bounds a run's options are read with say what make_policy takes: 1 and up."""
    line = option_out_of_bounds({"dim": value}, "policy_kwargs", "the bounds of a policy's options")
    assert line is not None and line.endswith("for dim: an int in 1..4096"), line
    if value != 5000:  # make_policy has no upper bound: a size of 5000 is built from Python
        with pytest.raises((TypeError, ValueError), match=r"^dim must be an integer >= 1 \(a size\)"):
            make_policy("attn", seed=0, dim=value)
