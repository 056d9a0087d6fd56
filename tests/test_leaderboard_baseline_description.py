"""A baseline's submission is described without a policy: random, the reader and the oracle play none of
``--policy``'s (before: "random (...), policy hash, seed 0, no training"); a learner's names its policy."""

from __future__ import annotations

from harness_helpers import TINY_QA

from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.leaderboard import build_submission


def test_a_baselines_description_names_no_policy(tmp_path):
    methods = "random,fast=harness_helpers:fast_learner"
    run_comparison(Comparison(suite=TINY_QA, methods=parse_methods(methods), seeds=[0], budget=8, out=tmp_path,
                              device="cpu", progress=False))
    random_run = build_submission(tmp_path / "runs" / "random" / "seed0")["method"]["description"]
    assert random_run.startswith("random (") and random_run.endswith("), seed 0, no training")
    assert "policy" not in random_run
    learner = build_submission(tmp_path / "runs" / "fast" / "seed0")["method"]["description"]
    assert learner.endswith("), policy hash, seed 0, trained with searchgym compare")
