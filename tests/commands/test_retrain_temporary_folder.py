"""``searchgym leaderboard retrain FILE`` without ``--out`` removes its temporary folder when done.

Before: every retrain left a ``searchgym-retrain-*`` folder (a whole run) in the temporary folder,
whether it matched, differed or failed. ``--keep`` keeps it; an ``--out`` folder is the user's and
is never removed.
"""

from __future__ import annotations

import tempfile
from types import SimpleNamespace

import pytest

import searchgym.leaderboard_retrain as retraining
from searchgym.cli import main
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.leaderboard import build_submission, write_submission
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-pkg-retrain-tmp-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4},
                             world_size="tiny", dev_size=2, test_size=4, description="tests: retrain's temporary folder"))


@pytest.fixture(scope="module")
def submission(tmp_path_factory):
    out = tmp_path_factory.mktemp("retrain-tmp")
    run_comparison(Comparison(SUITE, parse_methods("random"), [0], 0, out / "cmp", "cpu", progress=False))
    return write_submission(build_submission(out / "cmp" / "runs" / "random" / "seed0"), folder=out / "subs")


@pytest.fixture
def temp(tmp_path, monkeypatch):
    """The temporary folder mkdtemp makes its folders in, for this test alone."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_a_retrain_removes_its_temporary_folder(submission, temp, capsys) -> None:
    assert main(["leaderboard", "retrain", str(submission)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("MATCHES") and "its temporary folder is removed: --keep or --out DIR keeps the run" in out
    assert list(temp.iterdir()) == []


def test_keep_keeps_it_and_says_where(submission, temp, capsys) -> None:
    assert main(["leaderboard", "retrain", str(submission), "--keep"]) == 0
    (kept,) = temp.iterdir()
    assert kept.name.startswith("searchgym-retrain-") and (kept / "run" / "predictions.jsonl").is_file()
    assert f"(run in {kept / 'run'})" in capsys.readouterr().out


def test_an_out_folder_is_kept(submission, tmp_path, temp, capsys) -> None:
    assert main(["leaderboard", "retrain", str(submission), "--out", str(tmp_path / "mine")]) == 0
    assert (tmp_path / "mine" / "run" / "predictions.jsonl").is_file() and list(temp.iterdir()) == []
    assert f"(run in {tmp_path / 'mine' / 'run'})" in capsys.readouterr().out


def test_a_failed_or_interrupted_retrain_removes_it_too(submission, temp, monkeypatch, capsys) -> None:
    monkeypatch.setattr(retraining, "execute_run_safely", lambda spec: SimpleNamespace(status="failed", error="boom"))
    assert main(["leaderboard", "retrain", str(submission)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("CANNOT RETRAIN") and "boom" in out and "--keep or --out DIR keeps the run" in out
    assert list(temp.iterdir()) == []

    def interrupted(spec):
        spec.run_dir.mkdir(parents=True)
        (spec.run_dir / "log.txt").write_text("half")
        raise KeyboardInterrupt

    monkeypatch.setattr(retraining, "execute_run_safely", interrupted)
    with pytest.raises(KeyboardInterrupt):
        retraining.retrain(submission)
    assert list(temp.iterdir()) == []
