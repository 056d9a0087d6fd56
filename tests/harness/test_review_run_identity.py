"""A run folder whose record of its run is gone or damaged never resumes another run's files: a
checkpoint records its run's config, and one of another seed or options is refused (left as it is, and
so is the folder's config.json); a finished run without config.json is damage, not a run to show; a
folder where the run writes a file at its end is refused before any work."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from harness_helpers import TINY_QA

from searchgym.damaged import DamagedFile, OtherRunsFile
from searchgym.harness.methods import METHODS, MethodRef, resolve_method
from searchgym.harness.runner import RunSpec, execute_run, is_done

pytestmark = pytest.mark.timeout(300)
OPTIONS = {"group_size": 2, "tasks_per_iteration": 2, "eval_every": 2, "eval_tasks": 1}
FAST = "harness_helpers:fast_learner"
CALLED: list[int] = []


def _cw_grpo(out: Path, seed: int = 0, **options) -> RunSpec:
    return RunSpec(TINY_QA, MethodRef("cw_grpo", METHODS["cw_grpo"]), seed, 40, out, "cpu",
                   options={**OPTIONS, **options}, folder=out)


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory) -> Path:
    """A cw_grpo run folder as a kill leaves it: a checkpoint and metrics rows, no DONE."""
    folder = tmp_path_factory.mktemp("run") / "run"
    assert execute_run(_cw_grpo(folder)).status == "done"
    for name in ("DONE", "result.json", "predictions.jsonl"):
        (folder / name).unlink()
    return folder


def _copy(interrupted: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    shutil.copytree(interrupted, folder)
    return folder


def _without_config(interrupted: Path, tmp_path: Path, how: str) -> Path:
    """A copy of the interrupted run whose config.json is ``"missing"`` or ``"damaged"``."""
    folder = _copy(interrupted, tmp_path)
    if how == "missing":
        (folder / "config.json").unlink()
    else:
        (folder / "config.json").write_text('{"cut')
    return folder


def _contents(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != ".lock"}


@pytest.mark.parametrize("config_json", ["missing", "damaged"])
def test_another_runs_checkpoint_is_refused_and_the_folder_left_as_it_was(interrupted, tmp_path, config_json):
    """Before: with config.json missing or damaged, `--seed 1` resumed seed 0's checkpoint and kept its
    metrics rows, and recorded the mix as the new command's run."""
    folder = _without_config(interrupted, tmp_path, config_json)
    before = _contents(folder)
    with pytest.raises(OtherRunsFile) as caught:
        execute_run(_cw_grpo(folder, seed=1))
    text = str(caught.value)
    assert text.startswith(f"{folder / 'checkpoint' / 'checkpoint.pt'}: was written by another run (")
    assert "(seed: 0 there, 1 now)" in text and "\n" not in text  # the seed, env and policy name a run
    assert _contents(folder) == before  # checkpoint, rows and config.json (or its absence) untouched
    # and the command that made the folder resumes it
    assert execute_run(_cw_grpo(folder)).status == "done" and is_done(folder)


@pytest.mark.parametrize("config_json", ["missing", "damaged"])
def test_a_checkpoint_of_other_options_is_refused_when_config_json_cannot_say(interrupted, tmp_path, config_json):
    """Before: only the seed, env and policy were compared, so with config.json lost `--option lr=0.01`
    resumed lr 0.003's checkpoint and recorded the mix as a run of lr 0.01."""
    folder = _without_config(interrupted, tmp_path, config_json)
    before = _contents(folder)
    with pytest.raises(OtherRunsFile) as caught:
        execute_run(_cw_grpo(folder, lr=0.01))
    assert "(lr: 0.003 there, 0.01 now)" in str(caught.value)
    assert _contents(folder) == before


def test_a_finished_checkpoint_is_scored_again_by_argmax_in_another_folder(interrupted, tmp_path):
    """The README's argmax scores: a run's checkpoint copied into a folder run with decoding=greedy
    resumes (decoding is how the trained policy is scored, not what it trains)."""
    folder = tmp_path / "greedy"
    shutil.copytree(interrupted / "checkpoint", folder / "checkpoint")
    assert execute_run(_cw_grpo(folder, decoding="greedy")).status == "done" and is_done(folder)


def test_the_same_run_still_resumes_from_its_checkpoint(interrupted, tmp_path):
    folder = _copy(interrupted, tmp_path)
    (folder / "config.json").unlink()
    rows = (folder / "metrics.jsonl").read_bytes()
    assert execute_run(_cw_grpo(folder)).status == "done"
    assert (folder / "metrics.jsonl").read_bytes() == rows  # every iteration came from the checkpoint


def test_a_trainer_resumed_with_another_budget_goes_on(interrupted, tmp_path):
    """The budget is no part of a checkpoint's identity (a trainer may be resumed to train longer)."""
    from searchgym.agents.train import Trainer

    from searchgym.harness.method_specs import build_config
    from searchgym.harness.methods import RunContext
    from searchgym.method_table import METHOD_SPECS

    folder = _copy(interrupted, tmp_path)
    spec = METHOD_SPECS["cw_grpo"]
    ctx = RunContext(suite=TINY_QA, seed=0, budget=400, device="cpu", run_dir=folder, policy="hash",
                     log=lambda row: None, options=dict(OPTIONS))
    trainer = Trainer(build_config(spec, ctx, Trainer), out_dir=folder / "checkpoint", log=lambda row: None)
    assert trainer.state.iteration > 0


def test_a_finished_run_without_config_json_is_damage_not_a_result(tmp_path):
    """Before: it was "skipped" unchecked, and `train` showed its result for a command of any seed."""
    folder = tmp_path / "run"
    spec = RunSpec(TINY_QA, resolve_method(FAST), 0, 8, folder, "cpu", folder=folder)
    assert execute_run(spec).status == "done"
    (folder / "config.json").unlink()
    with pytest.raises(DamagedFile, match=r"config\.json: is missing from a finished run.*; delete .*DONE and "
                                          "re-run the command that made the run"):
        execute_run(RunSpec(TINY_QA, resolve_method(FAST), 5, 8, folder, "cpu", folder=folder))


def test_a_folder_for_config_json_of_a_finished_run_says_to_delete_done_too(tmp_path):
    folder = tmp_path / "run"
    spec = RunSpec(TINY_QA, resolve_method(FAST), 0, 8, folder, "cpu", folder=folder)
    assert execute_run(spec).status == "done"
    (folder / "config.json").unlink()
    (folder / "config.json").mkdir()
    with pytest.raises(DamagedFile, match=r"is a folder, not a file; delete it and .*DONE, and re-run"):
        execute_run(spec)


def counting_method(ctx):
    CALLED.append(ctx.seed)
    raise RuntimeError("the method ran")


@pytest.mark.parametrize("name", ["predictions.jsonl", "result.json", "DONE"])
def test_a_folder_where_the_last_files_go_is_refused_before_any_work(tmp_path, name):
    """Before: the run trained and played every task, then failed on "Is a directory"."""
    folder = tmp_path / "run"
    (folder / name).mkdir(parents=True)
    CALLED.clear()
    spec = RunSpec(TINY_QA, resolve_method(f"{__name__}:counting_method"), 0, 8, folder, "cpu", folder=folder)
    with pytest.raises(DamagedFile, match=f"{name}: is a folder where the run writes a file at its end; move it"):
        execute_run(spec)
    assert CALLED == [] and (folder / name).is_dir()


def test_evaluate_refuses_a_checkpoint_of_another_run_than_config_json_records(interrupted, tmp_path):
    """Before: `evaluate --agent run` played the weights of a run trained with lr 0.01 and recorded them
    as config.json's run (played_run), trained with lr 0.003."""
    from searchgym.harness.run_agent import read_run, rebuild

    other = tmp_path / "other"
    assert execute_run(_cw_grpo(other, lr=0.01)).status == "done"
    folder = _copy(interrupted, tmp_path)
    rebuild(read_run(folder), "cpu")  # its own checkpoint plays
    shutil.copyfile(other / "checkpoint" / "checkpoint.pt", folder / "checkpoint" / "checkpoint.pt")
    with pytest.raises(DamagedFile, match=r"checkpoint\.pt: was written by another run than config\.json "
                                          r"records \(lr: 0\.01 there, 0\.003 now\); its policy cannot be played"):
        rebuild(read_run(folder), "cpu")


def test_a_refused_folder_keeps_the_error_txt_of_its_own_failure(tmp_path):
    """Before: a compare of another --budget wrote "holds a different run" over each unfinished run's
    error.txt, and the report then named that as the method's failure instead of the real one."""
    from searchgym.harness.runner import execute_run_safely

    out = tmp_path / "out"
    spec = RunSpec(TINY_QA, resolve_method(FAST), 0, 8, out, "cpu")
    assert execute_run(spec).status == "done"
    (spec.run_dir / "DONE").unlink()
    (spec.run_dir / "error.txt").write_text("Traceback (most recent call last):\nRuntimeError: the real failure\n")
    outcome = execute_run_safely(RunSpec(TINY_QA, resolve_method(FAST), 0, 16, out, "cpu"))
    assert outcome.status == "failed" and "holds a different run (budget: 8 there, 16 now)" in outcome.error
    assert (spec.run_dir / "error.txt").read_text().endswith("RuntimeError: the real failure\n")
