"""A baseline's run is told apart only by what it reads: random and the oracle read none of a
comparison's options, the reader only its own, and none of them plays ``--policy``'s policy.

Before: a baseline's run recorded the learners' options and policy, so in make main's folder
`compare --methods random` alone was "a different run (options.init: 'sft' there, absent now ...)",
and giving the options back was refused too ("random takes no options"); another --policy likewise."""

from __future__ import annotations

import pytest
from harness_helpers import TINY_QA

from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.harness.runner import DifferentRun


def compared(out, methods: str, options: dict, policy: str = "hash"):
    return run_comparison(Comparison(suite=TINY_QA, methods=parse_methods(methods), seeds=[0], budget=8, out=out,
                                     device="cpu", progress=False, options=options, policy=policy))


def statuses(result) -> dict[str, str]:
    return {o.label: o.status for o in result.outcomes}


def test_baselines_run_alone_reuse_the_runs_made_beside_a_learner(tmp_path):
    learner = {"lr": 0.001, "init": "scratch"}
    made = compared(tmp_path, "random,oracle,reader,fast=harness_helpers:fast_learner", learner)
    assert set(statuses(made).values()) == {"done"}
    again = compared(tmp_path, "random,oracle,reader", {})  # no learner: no options, another policy
    assert statuses(again) == {"random": "skipped", "oracle": "skipped", "reader": "skipped"}
    other_policy = compared(tmp_path, "random,oracle", {}, policy="attn")
    assert statuses(other_policy) == {"random": "skipped", "oracle": "skipped"}


def test_the_readers_own_options_still_tell_its_runs_apart(tmp_path):
    compared(tmp_path, "reader", {})
    with pytest.raises(DifferentRun, match="options.lookup_order: absent there, 'web_search,knowledge_base' now"):
        compared(tmp_path, "reader", {"lookup_order": "web_search,knowledge_base"})
