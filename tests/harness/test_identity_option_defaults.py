"""An option given at the value its method takes without it is the run without it, in either order.

Before: after ``compare --methods grpo``, the same command with ``--option lr=0.003`` (the trainer
config's own lr) was refused: "holds a different run (options.lr: None there, 0.003 now)", and the
reverse. config.json still records the options as given; an option at another value, a trainer's
own option (``method.*``, recorded as given) and a method that says nothing of its defaults still
tell runs apart.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import pytest
from harness_helpers import TINY_QA, compare_args, compared_folder

from searchgym.cli import main
from searchgym.fileio import read_json
from searchgym.harness.identity_reads import compared_settings, option_defaults
from searchgym.harness.methods import METHODS, MethodRef, load_method, resolve_method
from searchgym.harness.runner import DifferentRun, RunSpec, check_identity

pytestmark = pytest.mark.timeout(300)
#: A tiny grpo run; every option here is at another value than its default.
SMALL = ["--option", "group_size=2", "--option", "tasks_per_iteration=2", "--option", "eval_every=2",
         "--option", "eval_tasks=1"]
RUN = ("runs", "grpo", "seed0")


def _folder(tmp_path, method: str, recorded: dict, budget: int = 40) -> RunSpec:
    """A finished-looking run folder of ``method`` whose config.json records ``recorded`` as its options."""
    spec = RunSpec(TINY_QA, resolve_method(method), 0, budget, tmp_path, "cpu", options=recorded)
    spec.run_dir.mkdir(parents=True)
    (spec.run_dir / "config.json").write_text(json.dumps({**spec.identity(), "suite": TINY_QA.definition(),
                                                          "trains": True}))
    return spec


@pytest.fixture(scope="module")
def given_default(tmp_path_factory):
    """A grpo comparison whose command gave lr at the trainer config's default."""
    args = [*compare_args("grpo", budget=16), *SMALL, "--option", "lr=0.003"]
    return compared_folder(tmp_path_factory, args, "lr_default")


def test_a_finished_run_is_found_without_the_default_it_was_given(given_default, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(given_default, out)
    config = out.joinpath(*RUN, "config.json").read_bytes()
    assert json.loads(config)["options"]["lr"] == 0.003  # config.json records what the command gave
    capsys.readouterr()
    assert main([*compare_args("grpo", budget=16), *SMALL, "--out", str(out)]) == 0  # before: 2, different
    assert "runs: 0 done now, 1 already finished, 0 failed" in capsys.readouterr().out
    assert out.joinpath(*RUN, "config.json").read_bytes() == config  # the record untouched


def test_the_same_command_finds_the_folder_it_wrote(given_default, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(given_default, out)
    capsys.readouterr()
    assert main([*compare_args("grpo", budget=16), *SMALL, "--option", "lr=0.003", "--out", str(out)]) == 0
    assert "runs: 0 done now, 1 already finished, 0 failed" in capsys.readouterr().out


@pytest.mark.parametrize("given", [{"lr": 0.003}, {"train.lr": 0.003}, {"loss.eps_high": 0.2, "eps_low": 0.2},
                                   {"aggregation": "seq-mean-token-mean"},
                                   {"init": "scratch", "sft_tasks": 1000},
                                   {"policy_kwargs": {}, "minibatch_size": None}])
def test_either_order_is_one_run(tmp_path, given):
    for recorded, now in ((given, {}), ({}, given)):
        folder = tmp_path / f"{len(recorded)}"
        spec = _folder(folder, "grpo", recorded)
        assert check_identity(replace(spec, options=now)) == 1  # before: DifferentRun, "None there" or "now"


def test_an_option_at_another_value_is_still_another_run(tmp_path):
    spec = _folder(tmp_path / "a", "grpo", {})
    with pytest.raises(DifferentRun, match=r"\(options\.lr: absent there, 0\.01 now\); use another"):
        check_identity(replace(spec, options={"lr": 0.01}))
    spec = _folder(tmp_path / "b", "grpo", {"lr": 0.003, "group_size": 2})
    # the value given is shown, not "absent there"
    with pytest.raises(DifferentRun, match=r"\(options\.lr: 0\.003 there, 0\.01 now\); use another"):
        check_identity(replace(spec, options={"lr": 0.01, "group_size": 2}))


def test_the_defaults_are_each_methods_own(tmp_path):
    for i, (method, default) in enumerate((("mappo", {"update_epochs": 5}),  # its spec's, over the trainer's
                                           ("grpo_role", {"group_by": "role"}),
                                           ("dr_grpo", {"loss.norm_length": "env_step_limit"}),
                                           ("mappo", {"aggregation": "token-mean"}),
                                           ("mappo", {"value_head": True}))):
        assert check_identity(replace(_folder(tmp_path / f"{i}mine", method, {}), options=default)) == 1
        with pytest.raises(DifferentRun):  # the same value is grpo's non-default
            check_identity(replace(_folder(tmp_path / f"{i}grpo", "grpo", {}), options=default))


def test_the_defaults_are_read_from_the_trainer_config():
    from searchgym.agents.losses import LossConfig
    from searchgym.agents.train import TrainConfig

    defaults = option_defaults(load_method(resolve_method("grpo")))
    assert defaults["lr"] == defaults["train.lr"] == TrainConfig().lr
    assert defaults["eps_high"] == defaults["loss.eps_high"] == LossConfig().eps_high
    assert "env_id" not in defaults and "seed" not in defaults  # the harness sets them, never an option


def test_a_trainers_own_option_still_tells_runs_apart(tmp_path):
    # MAPPO's centralised=True is its config's default, but the trainer config records the option as given
    # (a checkpoint made without it is not resumed with it): not left out
    assert "centralised" not in option_defaults(load_method(resolve_method("mappo")))
    assert "method.centralised" not in option_defaults(load_method(resolve_method("mappo")))
    with pytest.raises(DifferentRun, match=r"options\.centralised: absent there, True now"):
        check_identity(replace(_folder(tmp_path / "mappo", "mappo", {}), options={"centralised": True}))
    # one its spec sets is in every run's trainer config: given at that value, the run is the same
    ippo = _folder(tmp_path / "ippo", "ippo", {})
    assert check_identity(replace(ippo, options={"method.centralised": False})) == 1


def test_the_base_leaves_its_default_settings_out(tmp_path):
    spec = _folder(tmp_path / "a", "sft", {"sft_tasks": 1000, "sft.sft_epochs": 16}, budget=0)
    assert check_identity(replace(spec, options={})) == 1
    with pytest.raises(DifferentRun, match=r"options\.sft_tasks: 1000 there, 4 now"):
        check_identity(replace(spec, options={"sft_tasks": 4}))


def test_make_mains_options_are_compared_as_before():
    recorded = {"options": {"init": "sft", "lr": 0.001, "sft_tasks": 3, "group_size": 2}, "budget": 40}
    there, here = compared_settings(recorded, {**recorded, "options": {**recorded["options"]}},
                                    MethodRef("grpo", METHODS["grpo"]))
    assert there == here == recorded  # the same options: not loaded, nothing left out
    there, here = compared_settings(recorded, {**recorded, "options": {**recorded["options"], "lr": 0.01}},
                                    MethodRef("grpo", METHODS["grpo"]))
    assert there["options"] == recorded["options"] and here["options"]["lr"] == 0.01  # none at its default


def test_a_method_whose_defaults_cannot_be_read_counts_every_option(monkeypatch):
    # a Ray driver without the trainer's extras: every option counts, as before
    def unreadable():
        raise ImportError("No module named 'torch'")

    method = load_method(resolve_method("grpo"))
    monkeypatch.setattr(type(method), "option_defaults", lambda self: unreadable())
    assert option_defaults(method) == {}
    recorded = {"options": {"lr": 0.003}, "budget": 40}
    monkeypatch.setattr("searchgym.harness.identity_reads.load_method", lambda ref: method)
    now = {"options": {}, "budget": 40}
    there, here = compared_settings(recorded, now, MethodRef("grpo", METHODS["grpo"]))
    assert there["options"] == {"lr": 0.003} and here["options"] == {}


def test_a_method_that_says_nothing_of_its_defaults_counts_every_option(tmp_path):
    method = "fast=harness_helpers:fast_learner"  # a user's method (random reads no option at all)
    assert option_defaults(load_method(resolve_method(method))) == {}
    spec = _folder(tmp_path, method, {"epsilon": 0.1}, budget=0)
    with pytest.raises(DifferentRun, match=r"options\.epsilon: 0\.1 there, absent now"):
        check_identity(replace(spec, options={}))


def test_config_json_of_a_run_given_a_default_records_it(given_default):
    assert read_json(given_default.joinpath(*RUN, "config.json"))["options"] == {
        "group_size": 2, "tasks_per_iteration": 2, "eval_every": 2, "eval_tasks": 1, "lr": 0.003}
