"""`leaderboard submit` reads a run folder's files only when they are the folder's own, and reads the
file it would replace once.

Before: a run folder's ``config.json`` or ``predictions.jsonl`` that was a symbolic link was followed,
so a copied run folder whose predictions linked to another run's was submitted (and verified) as this
run's, though ``build`` refuses a linked submission unread. And the file at the destination was read
twice (is it this run's? does it hold this submission already?), so it could change in between."""

from __future__ import annotations

import builtins
import os
import shutil

import pytest

import searchgym.commands.leaderboard as command
from searchgym.cli import main
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.suites import Suite, register_suite

pytestmark = pytest.mark.timeout(300)

SUITE = register_suite(Suite("test-lb-links-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4}, world_size="tiny",
                             dev_size=2, test_size=6, description="tests: submit follows no link"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    run_comparison(Comparison(SUITE, parse_methods("random,oracle"), [0], 0, out, "cpu", progress=False))
    return out / "runs"


@pytest.mark.parametrize("name", ["predictions.jsonl", "config.json"])
def test_a_linked_file_of_the_run_folder_is_refused_unread(runs, tmp_path, capsys, name):
    mine = tmp_path / "mine"
    shutil.copytree(runs / "random" / "seed0", mine)
    (mine / name).unlink()
    (mine / name).symlink_to(runs / "oracle" / "seed0" / name)  # another run's file, intact
    board = tmp_path / "board"
    assert main(["leaderboard", "submit", str(mine), "--dir", str(board)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]
    assert err[0].startswith(f"searchgym leaderboard: damaged file: {mine / name}: is a symbolic link, which submit "
                             "never follows")
    assert "copy the file itself into the run folder, or delete" in err[0]
    assert not board.exists()


def test_the_run_folders_own_files_are_still_submitted(runs, tmp_path):
    assert main(["leaderboard", "submit", str(runs / "random" / "seed0"), "--dir", str(tmp_path / "board")]) == 0


def test_the_file_at_the_destination_is_read_once_before_it_is_verified(runs, tmp_path, capsys, monkeypatch):
    board = tmp_path / "board"
    argv = ["leaderboard", "submit", str(runs / "random" / "seed0"), "--dir", str(board)]
    assert main(argv) == 0
    target = os.fspath(board / "submissions" / f"{SUITE.id}__random__seed0.json")
    before = os.stat(target).st_mtime_ns
    opened: list[str] = []
    real_open, real_os_open, real_verify = builtins.open, os.open, command.verify_file

    def spy_open(path, *args, **kwargs):
        if isinstance(path, (str, os.PathLike)) and os.fspath(path) == target:
            opened.append("open")
        return real_open(path, *args, **kwargs)

    def spy_os_open(path, *args, **kwargs):
        if os.fspath(path) == target:
            opened.append("os.open")
        return real_os_open(path, *args, **kwargs)

    reads_before_verify: list[int] = []

    def verify(path):
        reads_before_verify.append(len(opened))
        return real_verify(path)

    monkeypatch.setattr(builtins, "open", spy_open)
    monkeypatch.setattr(os, "open", spy_os_open)
    monkeypatch.setattr(command, "verify_file", verify)
    capsys.readouterr()
    assert main(argv) == 0
    monkeypatch.undo()
    assert reads_before_verify == [1]  # before: 2 (check_replaces_only_itself, then holds_the_same)
    assert capsys.readouterr().out.startswith("kept ")  # the same submission: left as it was
    assert os.stat(target).st_mtime_ns == before


def test_the_run_config_is_hashed_from_the_bytes_it_was_parsed_from(runs, tmp_path, monkeypatch):
    """build_submission read config.json twice (parsed, then its bytes for the SHA-256): a file changed
    in between gave a hash of other bytes than the config it described."""
    import hashlib
    from pathlib import Path

    from searchgym.leaderboard import build_submission

    mine = tmp_path / "mine"
    shutil.copytree(runs / "random" / "seed0", mine)
    config = mine / "config.json"
    original = config.read_bytes()
    real_read_bytes = Path.read_bytes

    def changed_after_parse(path):  # the file as another process rewrote it after the parse
        return b" " + real_read_bytes(path) if path == config else real_read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", changed_after_parse)
    submission = build_submission(mine)
    assert submission["run"]["config_sha256"] == hashlib.sha256(original).hexdigest()


def test_a_run_padded_with_predictions_is_refused_within_bounded_rows(runs, tmp_path, capsys):
    """submit kept every row of predictions.jsonl, of any size and number; it now reads at most twice the
    suite's test tasks (plus a few, to name extra rows) and refuses more in one line."""
    mine = tmp_path / "mine"
    shutil.copytree(runs / "random" / "seed0", mine)
    rows = (mine / "predictions.jsonl").read_bytes()
    (mine / "predictions.jsonl").write_bytes(rows * 50)  # 300 rows for 6 test tasks
    assert main(["leaderboard", "submit", str(mine), "--dir", str(tmp_path / "board")]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "predictions.jsonl: holds more than 22 predictions, where test-lb-links-v0 has 6 test tasks" in line
