"""Flags given an empty or meaningless value are refused in one line, before anything is made.

Before: `serve --splits ,` started an endpoint that knew no task, `export --out ''` wrote into the
current folder, `leaderboard submit --name ""` used the run's label as if --name were not given,
and `play SearchQA-v0 --others random` ignored --others (as if the agent had team mates), while
--role on a single-agent id was already refused."""

from __future__ import annotations

import pytest
from harness_helpers import TINY_QA

from searchgym.cli import main


@pytest.mark.parametrize(("argv", "said"), [
    (["serve", "--suite", "searchqa-text-v2", "--splits", ","],
     "searchgym serve: error: --splits ',' names no split; give a comma list of train, dev, test"),
    (["export", "--format", "verl", "--suite", "searchqa-text-v2", "--out", ""],
     "searchgym export: error: --out is empty; give the folder to write the files into"),
    (["play", "SearchQA-v0", "--world-size", "tiny", "--others", "random"],
     "searchgym play: error: --others is for team and group ids; 'SearchQA-v0' has one agent"),
])
def test_refused_in_one_line(argv, said, capsys, tmp_path, monkeypatch, serve_must_refuse):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == said
    assert list(tmp_path.iterdir()) == []  # nothing written, not even into the current folder


@pytest.mark.parametrize(("argv", "said"), [
    (["train", "--method", "random", "--world-size", "tiny", "--families", " "],
     ("searchgym train: error: --families is empty; give a comma list of task families, or leave it out for every "
      "family")),  # before: every family, silently ('bridge,,' was already refused)
    (["evaluate", "--suite", TINY_QA.id, "--agent", "random", "--name", ""],
     ("searchgym evaluate: error: --name is empty; give the label for the results, or leave --name out for one made "
      "from --agent")),  # before: ignored, while `leaderboard submit --name ""` was refused
])
def test_empty_families_and_names_are_refused(argv, said, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == said
    assert list(tmp_path.iterdir()) == []


def test_train_says_how_many_test_tasks_it_scored(tmp_path, capsys):
    """Before: the plan's "(100000 tasks)" was all it said, on a split of 13 (the default env's easy tasks)."""
    assert main(["train", "--method", "random", "--world-size", "tiny", "--test-size", "100000", "--no-progress",
                 "--out", str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    assert "then the test split (up to 100000 tasks)" in out and " on 13 test tasks, F1 " in out


def test_an_empty_submission_name_is_refused(tmp_path, capsys):
    out = tmp_path / "cmp"
    assert main(["compare", "--suite", TINY_QA.id, "--methods", "random", "--budget", "0", "--device", "cpu",
                 "--no-progress", "--out", str(out)]) == 0
    board = tmp_path / "board"
    capsys.readouterr()
    assert main(["leaderboard", "submit", str(out / "runs" / "random" / "seed0"), "--name", " ", "--dir", str(board)]) == 2
    assert capsys.readouterr().err.strip() == ("searchgym leaderboard: error: --name is empty; give the method name "
                                               "the board shows, or leave --name out for the run's method label")
    assert not board.exists()
    assert main(["leaderboard", "submit", str(out / "runs" / "random" / "seed0"), "--dir", str(board)]) == 0


@pytest.mark.parametrize("argv", [
    ["train", "--method", "random", "--world-size", "tiny", "--test-size", "5", "--no-progress"],
    ["compare", "--suite", TINY_QA.id, "--methods", "random", "--budget", "0", "--no-progress"],
    ["report"],
    ["recipe", "tiny-lm", "--smoke"],
])
@pytest.mark.parametrize("out", ["", "  "])
def test_an_empty_out_is_refused_before_anything_is_written(argv, out, capsys, tmp_path, monkeypatch):
    """Before: ``train --out ''`` wrote DONE, config.json and the run's files into the current folder and
    said they were in ``/``; ``compare --out ''`` wrote results.md and runs/ there."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exited:  # refused by the parser, as any malformed flag
        main([*argv, "--out", out])
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert exited.value.code == 2
    assert error.endswith("error: argument --out: is empty, which names no folder; give a folder path")
    assert list(tmp_path.iterdir()) == []
