"""make main's command re-run with a subset of its methods: ``--option init=sft`` is a no-op for the
supervised base and the baselines (a value no learner accepts is still refused), and an ``sft`` run is
told apart from another only by what the base reads, not by ``init``, a learner's option or the budget.
A folder written by make main's command (sft's config.json recording init=sft, lr and the budget) is
still finished for it: no rebuild, no "different run".

Before: ``--methods sft --option init=sft`` was "unknown option 'init'", and ``--methods sft`` without
it (or with another --budget) in that folder was "holds a different run"."""

from __future__ import annotations

import shutil
from types import SimpleNamespace

import pytest
from harness_helpers import TINY_QA, compare_args

from searchgym.cli import main
from searchgym.fileio import read_json
from searchgym.harness.identity_reads import compared_settings
from searchgym.harness.learner_init import INITS
from searchgym.harness.methods import METHODS, MethodRef, parse_methods
from searchgym.harness.preflight import check_comparison

pytestmark = pytest.mark.timeout(300)
SFT = ["--option", "sft_tasks=3", "--option", "sft_epochs=1"]
#: make main's shape: the base, a learner from it, a baseline; init=sft and a learner's options for all.
MAIN = [*compare_args("sft,grpo,random", budget=40), *SFT, "--option", "init=sft", "--option", "lr=0.001",
        "--option", "group_size=2", "--option", "tasks_per_iteration=2", "--option", "eval_every=2",
        "--option", "eval_tasks=1"]
SFT_RUN = ("runs", "sft", "seed0")


@pytest.fixture(scope="module")
def main_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("main") / "out"
    assert main([*MAIN, "--out", str(out)]) == 0
    assert read_json(out.joinpath(*SFT_RUN, "config.json"))["options"]["init"] == "sft"  # as this code records it
    return out


def _files(out):
    return {str(p.relative_to(out)): p.stat().st_mtime_ns for p in sorted((out / "bases").rglob("*"))
            if p.is_file() and p.name != ".lock"} | {"config": out.joinpath(*SFT_RUN, "config.json").read_bytes()}


@pytest.mark.parametrize("extra", [
    [],  # without init=sft, the learners' options and make main's budget
    ["--option", "init=sft"],  # as make main's command gives it
    ["--option", "init=sft", "--budget", "7"],
])
def test_sft_alone_finds_its_finished_run_in_make_mains_folder(main_folder, tmp_path, capsys, extra):
    out = tmp_path / "out"
    shutil.copytree(main_folder, out)
    before = _files(out)
    assert main([*compare_args("sft"), *SFT, *extra, "--out", str(out)]) == 0
    assert "runs: 0 done now, 1 already finished, 0 failed" in capsys.readouterr().out
    assert _files(out) == before  # no base rebuilt, the run's record untouched


def test_an_option_the_base_reads_still_tells_runs_apart(main_folder, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(main_folder, out)
    assert main([*compare_args("sft"), "--option", "sft_tasks=4", "--option", "sft_epochs=1", "--out", str(out)]) == 2
    assert "holds a different run (options.sft_tasks: 3 there, 4 now); use another" in capsys.readouterr().err


def test_init_is_a_no_op_for_the_base_and_the_baselines_but_checked():
    def check(methods: str, **options) -> None:
        check_comparison(SimpleNamespace(suite=TINY_QA, methods=parse_methods(methods), options=options,
                                         policy="hash", seeds=[0], budget=0))

    check("sft", init="sft", sft_tasks=3)
    check("sft,random", init="scratch")
    check("random,reader", init="sft")
    check("oracle", **{"train.init": "sft"})
    for methods in ("sft", "sft,reader", "random"):
        with pytest.raises(ValueError, match=r"^unknown init 'sfft' \(--option init\); accepted: scratch, sft$"):
            check(methods, init="sfft")
    with pytest.raises(ValueError, match="method 's': unknown option 'init'"):  # its own brackets: as before
        check("s=sft[init=sft]")
    with pytest.raises(ValueError, match="unknown option 'lr'"):  # a learner's other options: as before
        check("sft", init="sft", lr=0.001)


def test_only_a_method_that_names_what_it_reads_leaves_the_rest_out():
    recorded = {"options": {"init": "sft", "lr": 0.001, "sft_tasks": 3}, "budget": 40, "trains": True}
    now = {"options": {"sft_tasks": 3}, "budget": 0}
    there, here = compared_settings(recorded, now, MethodRef("sft", METHODS["sft"]))
    assert there == {"options": {"sft_tasks": 3}, "trains": True} and here == {"options": {"sft_tasks": 3}}
    there, here = compared_settings(recorded, now, MethodRef("grpo", METHODS["grpo"]))
    assert (there, here) == (recorded, now)  # a learner: every option and the budget count, as before
    there, here = compared_settings({**recorded, "trains": False}, now, MethodRef("random", METHODS["random"]))
    assert there["options"] == here["options"] == {} and "budget" not in there  # random reads no option at all


def test_the_inits_known_without_torch_are_the_trainers():
    from searchgym.agents.train import INITS as TRAINER_INITS

    assert INITS == TRAINER_INITS
