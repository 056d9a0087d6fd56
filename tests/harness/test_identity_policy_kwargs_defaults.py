"""``policy_kwargs`` that only write out the policy's own constructor defaults are the run without them,
in either order, for the methods that build a policy with them (the learners, and the supervised base).

Before: after ``compare --methods grpo``, the same command with ``--option 'policy_kwargs={"hidden":
128}'`` (the hash policy's own hidden size) was refused: "holds a different run (options.policy_kwargs:
None there, {'hidden': 128} now)", and the reverse, though it builds the very same policy. The
defaults are each policy's own (the attention policy's ``hidden`` is not the hash policy's); another
value, and a method that builds no policy, still tell runs apart; config.json records what was given.
"""

from __future__ import annotations

import inspect
import json
from dataclasses import replace

import pytest
from harness_helpers import TINY_QA

from searchgym.harness.methods import resolve_method
from searchgym.harness.runner import DifferentRun, RunSpec, check_identity

pytestmark = pytest.mark.timeout(300)


def _own_default(policy: str, name: str):
    """The default of kwarg ``name`` in ``policy``'s own constructor signature (not written out here)."""
    from searchgym.agents.attention_policy import AttentionPolicy
    from searchgym.agents.policy import CandidatePolicy

    kind = AttentionPolicy if policy == "attn" else CandidatePolicy
    return inspect.signature(kind).parameters[name].default


def _folder(tmp_path, method: str, recorded: dict, policy: str = "hash", budget: int = 40) -> RunSpec:
    """A finished-looking run folder of ``method`` whose config.json records ``recorded`` as its options."""
    spec = RunSpec(TINY_QA, resolve_method(method), 0, budget, tmp_path, "cpu", policy=policy,
                   options=recorded)
    spec.run_dir.mkdir(parents=True)
    (spec.run_dir / "config.json").write_text(json.dumps({**spec.identity(), "suite": TINY_QA.definition(),
                                                          "trains": True}))
    return spec


def _both_orders_are_one_run(tmp_path, method: str, given: dict, policy: str = "hash",
                             budget: int = 40) -> None:
    for i, (recorded, now) in enumerate(((given, {}), ({}, given))):
        spec = _folder(tmp_path / f"{method}{policy}{i}", method, recorded, policy, budget)
        assert check_identity(replace(spec, options=now)) == 1  # before: DifferentRun
        assert json.loads(spec.run_dir.joinpath("config.json").read_text())["options"] == recorded


@pytest.mark.parametrize("spelling", ["policy_kwargs", "train.policy_kwargs"])
def test_a_learners_policy_kwargs_at_the_hash_policys_defaults_are_the_run_without_them(tmp_path, spelling):
    given = {spelling: {"hidden": _own_default("hash", "hidden"),
                        "operand_sources": _own_default("hash", "operand_sources")}}
    _both_orders_are_one_run(tmp_path, "grpo", given)


def test_the_attention_policys_own_defaults_are_read(tmp_path):
    hidden = _own_default("attn", "hidden")
    assert hidden != _own_default("hash", "hidden")  # so the test tells the two policies' defaults apart
    given = {"policy_kwargs": {"hidden": hidden, "heads": _own_default("attn", "heads")}}
    _both_orders_are_one_run(tmp_path, "grpo", given, policy="attn")
    with pytest.raises(DifferentRun, match=r"options\.policy_kwargs: absent there, \{'hidden': "):
        check_identity(replace(_folder(tmp_path / "hash", "grpo", {}),
                               options={"policy_kwargs": {"hidden": hidden}}))


def test_only_the_kwargs_at_their_defaults_are_left_out(tmp_path):
    spec = _folder(tmp_path / "a", "grpo", {"policy_kwargs": {"hidden": _own_default("hash", "hidden"),
                                                              "comparison_facts": True}})
    assert check_identity(replace(spec, options={"policy_kwargs": {"comparison_facts": True}})) == 1
    with pytest.raises(DifferentRun, match=r"\(options\.policy_kwargs\.hidden: absent there, 7 now\); use"):
        check_identity(replace(spec, options={"policy_kwargs": {"hidden": 7, "comparison_facts": True}}))
    # a default's value of another type is not the default (the base's key keeps it too)
    with pytest.raises(DifferentRun):
        check_identity(replace(_folder(tmp_path / "b", "grpo", {}),
                               options={"policy_kwargs": {"hidden": float(_own_default("hash", "hidden"))}}))


def test_the_supervised_base_given_its_policys_defaults_is_the_run_without_them(tmp_path):
    _both_orders_are_one_run(tmp_path, "sft", {"policy_kwargs": {"hidden": _own_default("hash", "hidden")}},
                             budget=0)
    _both_orders_are_one_run(tmp_path / "empty", "sft", {"policy_kwargs": {}}, budget=0)


def test_a_method_that_says_nothing_of_what_it_reads_still_counts_them(tmp_path):
    spec = _folder(tmp_path, "fast=harness_helpers:fast_learner", {}, budget=0)  # a user's method says nothing
    with pytest.raises(DifferentRun, match=r"options\.policy_kwargs: absent there"):
        check_identity(replace(spec, options={"policy_kwargs": {"hidden": _own_default("hash", "hidden")}}))
