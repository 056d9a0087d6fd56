"""What compare says of a failed run: the error.txt it wrote, and whether re-running can help. Before,
every failure pointed at "<run>/error.txt", also when none was written (a folder holding another run's
files keeps its own), and said "re-run the same command to resume", which then failed the same way."""

from __future__ import annotations

import shutil

from harness_helpers import TINY_QA

from searchgym.cli import main

ARGS = ["compare", "--suite", TINY_QA.id, "--methods", "cw_grpo", "--budget", "40", "--device", "cpu", "--no-progress",
        "--option", "group_size=2", "--option", "tasks_per_iteration=2", "--option", "eval_every=2",
        "--option", "eval_tasks=1"]


def test_another_runs_checkpoint_is_not_a_run_to_resume(tmp_path, capsys):
    first = tmp_path / "first"
    assert main([*ARGS, "--out", str(first)]) == 0
    second = tmp_path / "second"
    shutil.copytree(first / "runs" / "cw_grpo" / "seed0" / "checkpoint", second / "runs" / "cw_grpo" / "seed0" / "checkpoint")
    capsys.readouterr()
    assert main([*ARGS, "--option", "lr=0.01", "--out", str(second)]) == 1
    captured = capsys.readouterr()
    printed = captured.out + captured.err
    assert "run cw_grpo/seed0 failed: OtherRunsFile" in printed and "error.txt" not in printed
    assert "cw_grpo/seed0: the folder holds another run's files; move them away" in printed
    assert "re-run the same command to resume" not in printed
    assert not (second / "runs" / "cw_grpo" / "seed0" / "error.txt").exists()


def test_a_failed_run_names_the_error_txt_it_wrote(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["compare", "--suite", TINY_QA.id, "--methods", "boom=harness_helpers:broken_method", "--budget", "0",
                 "--no-progress", "--out", str(out)]) == 1
    captured = capsys.readouterr()
    printed = captured.out + captured.err
    assert f"(see {out / 'runs' / 'boom' / 'seed0' / 'error.txt'})" in printed
    assert (out / "runs" / "boom" / "seed0" / "error.txt").is_file()
    assert "re-run the same command to resume the failed runs" in printed
