"""``sft_tasks`` above the train split's size is the run with the split's size, or without it: the base
demonstrates the whole split either way (the same base, by key), so the run is the same, in either order.

Before: ``--option sft_tasks=5000`` on a suite of 112 train tasks found the finished run without it "a
different run (options.sft_tasks: None there, 5000 now)", though both share one base. With DAgger
rounds, whose tasks start after the first ``sft_tasks``, the value given still tells runs apart, as
does one below the split.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from harness_helpers import TINY_QA

from searchgym.harness.identity_reads import option_defaults
from searchgym.harness.methods import load_method, resolve_method
from searchgym.harness.option_defaults import sft_settings_as_built
from searchgym.harness.runner import DifferentRun, RunSpec, check_identity
from searchgym.suites import tasks

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def n_train() -> int:
    return len(tasks(TINY_QA, "train"))


def _folder(tmp_path, method: str, recorded: dict, budget: int = 0) -> RunSpec:
    """A finished-looking run folder of ``method`` whose config.json records ``recorded`` as its options."""
    spec = RunSpec(TINY_QA, resolve_method(method), 0, budget, tmp_path, "cpu", options=recorded)
    spec.run_dir.mkdir(parents=True)
    (spec.run_dir / "config.json").write_text(json.dumps({**spec.identity(), "suite": TINY_QA.definition(),
                                                          "trains": True}))
    return spec


def test_the_premise_both_build_one_base(n_train):
    from searchgym.agents.imitation import SFTConfig

    from searchgym.harness.base_key import base_key

    assert n_train < SFTConfig().sft_tasks  # the default's 1000 is the whole split here too
    keys = {base_key(TINY_QA, 0, "hash", SFTConfig(sft_tasks=n)) for n in (n_train, n_train + 1, 5000, 1000)}
    assert len(keys) == 1


@pytest.mark.parametrize("given", [{"sft_tasks": 5000}, {"sft.sft_tasks": 5000}, {"sft_tasks": "split"}])
def test_the_base_above_the_split_is_the_run_without_it_in_either_order(tmp_path, n_train, given):
    given = {key: n_train if value == "split" else value for key, value in given.items()}
    for i, (recorded, now) in enumerate(((given, {}), ({}, given))):
        spec = _folder(tmp_path / str(i), "sft", recorded)
        assert check_identity(replace(spec, options=now)) == 1  # before: DifferentRun
        assert json.loads(spec.run_dir.joinpath("config.json").read_text())["options"] == recorded


def test_two_values_above_the_split_are_one_run(tmp_path, n_train):
    spec = _folder(tmp_path, "sft", {"sft_tasks": 5000})
    assert check_identity(replace(spec, options={"sft_tasks": n_train + 1})) == 1


def test_a_learner_from_the_base_above_the_split_is_the_run_without_it(tmp_path):
    spec = _folder(tmp_path / "a", "grpo", {"init": "sft", "sft_tasks": 5000}, budget=40)
    assert check_identity(replace(spec, options={"init": "sft"})) == 1  # before: DifferentRun
    spec = _folder(tmp_path / "b", "grpo", {"init": "sft"}, budget=40)
    assert check_identity(replace(spec, options={"init": "sft", "sft.sft_tasks": 5000})) == 1


def test_below_the_split_or_with_dagger_rounds_the_value_still_tells_runs_apart(tmp_path, n_train):
    spec = _folder(tmp_path / "below", "sft", {})
    with pytest.raises(DifferentRun, match=rf"\(options\.sft_tasks: absent there, {n_train - 1} now\); use"):
        check_identity(replace(spec, options={"sft_tasks": n_train - 1}))
    spec = _folder(tmp_path / "dagger", "sft", {"sft_dagger_rounds": 1})
    # the refusal shows the value given, not the one the build reads
    with pytest.raises(DifferentRun, match=r"\(options\.sft_tasks: absent there, 5000 now\); use"):
        check_identity(replace(spec, options={"sft_dagger_rounds": 1, "sft_tasks": 5000}))


def test_a_split_larger_than_the_default_keeps_the_default_apart():
    defaults = option_defaults(load_method(resolve_method("sft")))
    # 1500 train tasks: 5000 and 1500 demonstrate all of them, the default's 1000 does not
    assert sft_settings_as_built({"sft_tasks": 5000}, 1500, defaults) == {"sft_tasks": 1500}
    assert sft_settings_as_built({"sft_tasks": 1000}, 1500, defaults) == {"sft_tasks": 1000}
    assert sft_settings_as_built({"sft_tasks": 0}, 1500, defaults) == {"sft_tasks": 0}  # refused: as given
    assert sft_settings_as_built({"lr": 0.1}, 1500, defaults) == {"lr": 0.1}
    # without DAgger rounds their task count is never read: the default's stands for it, as in the base's key
    assert sft_settings_as_built({"sft_dagger_tasks": 7}, 1500, defaults) == {
        "sft_dagger_tasks": defaults["sft_dagger_tasks"]}
