"""A new user's review of `leaderboard submit|retrain --dir` and `export --out`: a bad folder is one
error line naming the flag given, before any work; a damaged run's remedy is a command that can help;
one export folder holds one suite's splits."""

from __future__ import annotations

import json
import shutil

import pytest

from searchgym.cli import main
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.leaderboard import build_submission, read_retrained, write_submission
from searchgym.suites import Suite, register_suite

pytestmark = pytest.mark.timeout(300)

SUITE = register_suite(Suite("test-review-lb-dirs-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4},
                             world_size="tiny", dev_size=2, test_size=4, description="tests: --dir checks"))


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished random run and its submission file."""
    out = tmp_path_factory.mktemp("review-dirs")
    run_comparison(Comparison(SUITE, parse_methods("random"), [0], 0, out / "cmp", "cpu", progress=False))
    run = out / "cmp" / "runs" / "random" / "seed0"
    return run, write_submission(build_submission(run), folder=out / "board" / "submissions")


def _error(capsys) -> str:
    captured = capsys.readouterr()
    assert "MATCHES" not in captured.out and captured.err.count("\n") == 1, captured
    return captured.err.strip()


# ------------------------------------------------------------------ 1. --dir that cannot hold the board
def test_retrain_record_into_a_file_dir_is_refused_naming_dir_before_retraining(finished, tmp_path, capsys) -> None:
    """Before: it re-trained (MATCHES printed, exit 1), then "File exists ...; choose another --out"."""
    _, submission = finished
    (tmp_path / "afile").write_text("x")
    rerun = tmp_path / "rerun"
    assert main(["leaderboard", "retrain", str(submission), "--record", "--dir", str(tmp_path / "afile"),
                 "--out", str(rerun)]) == 2
    assert _error(capsys) == (f"searchgym leaderboard: error: --dir {tmp_path / 'afile'} is a file, not a folder; "
                              "give the leaderboard folder (or a path not yet made) with --dir, or move that file")
    assert not rerun.exists() and (tmp_path / "afile").read_text() == "x"

    assert main(["leaderboard", "retrain", str(submission), "--record", "--dir", str(tmp_path / "afile" / "board"),
                 "--out", str(rerun)]) == 2
    assert _error(capsys) == (f"searchgym leaderboard: error: --dir {tmp_path / 'afile' / 'board'} cannot be a "
                              f"folder: {tmp_path / 'afile'} is a file; move it or choose another --dir")
    assert not rerun.exists()


def test_retrain_record_with_an_unusable_record_is_refused_before_retraining(finished, tmp_path, capsys) -> None:
    """Before: a folder or broken JSON at DIR/retrained.json failed --record only after the re-run."""
    _, submission = finished
    (tmp_path / "b1" / "retrained.json").mkdir(parents=True)
    assert main(["leaderboard", "retrain", str(submission), "--record", "--dir", str(tmp_path / "b1"),
                 "--out", str(tmp_path / "r1")]) == 2
    assert _error(capsys) == (f"searchgym leaderboard: error: {tmp_path / 'b1' / 'retrained.json'} is not a regular "
                              f"file, so --dir {tmp_path / 'b1'} cannot hold the record; move it or choose another --dir")
    (tmp_path / "b2").mkdir()
    (tmp_path / "b2" / "retrained.json").write_text("{cut")
    assert main(["leaderboard", "retrain", str(submission), "--record", "--dir", str(tmp_path / "b2"),
                 "--out", str(tmp_path / "r2")]) == 2
    assert "retrained.json: is not valid JSON" in _error(capsys)
    assert not (tmp_path / "r1").exists() and not (tmp_path / "r2").exists()


def test_retrain_record_into_a_new_dir_still_records(finished, tmp_path, capsys) -> None:
    _, submission = finished
    assert main(["leaderboard", "retrain", str(submission), "--record", "--dir", str(tmp_path / "new" / "board"),
                 "--out", str(tmp_path / "rerun")]) == 0
    assert "MATCHES" in capsys.readouterr().out
    assert [r["matches"] for r in read_retrained(tmp_path / "new" / "board").values()] == [True]


def test_submit_into_a_file_dir_names_dir(finished, tmp_path, capsys) -> None:
    """Before: "Not a directory (FILE/submissions); ... choose another --out" (no --out was given), exit 1."""
    run, _ = finished
    (tmp_path / "afile").write_text("x")
    assert main(["leaderboard", "submit", str(run), "--dir", str(tmp_path / "afile")]) == 2
    assert _error(capsys) == (f"searchgym leaderboard: error: --dir {tmp_path / 'afile'} is a file, not a folder; "
                              "give the leaderboard folder (or a path not yet made) with --dir, or move that file")
    (tmp_path / "board").mkdir()
    (tmp_path / "board" / "submissions").write_text("x")
    assert main(["leaderboard", "submit", str(run), "--dir", str(tmp_path / "board")]) == 2
    assert _error(capsys) == (f"searchgym leaderboard: error: --dir {tmp_path / 'board'} cannot be a folder: "
                              f"{tmp_path / 'board' / 'submissions'} is a file; move it or choose another --dir")


# ------------------------------------------------------------------ 2. submit's remedy and an empty RUN_DIR
def test_submit_on_a_damaged_run_points_to_the_command_that_made_it(finished, tmp_path, capsys) -> None:
    """Before: "delete DONE and re-run the same command to finish the run again": the same command is submit."""
    run, _ = finished
    damaged = tmp_path / "run"
    shutil.copytree(run, damaged)
    (damaged / "config.json").write_text("[")
    assert main(["leaderboard", "submit", str(damaged), "--out", str(tmp_path / "s.json")]) == 2
    assert _error(capsys).endswith(f"; delete {damaged / 'DONE'} and re-run the same command that made the run (its "
                                   "`searchgym compare`, `train` or `evaluate`) to finish it again, then submit again")
    assert not (tmp_path / "s.json").exists()


def test_submit_of_an_empty_run_dir_is_a_usage_error(capsys) -> None:
    """Before: "" was read as the current folder: "'.' is not a finished run folder"."""
    assert main(["leaderboard", "submit", ""]) == 2
    assert _error(capsys) == ("searchgym leaderboard: error: RUN_DIR is empty; give a run folder, "
                              "e.g. runs/mine/runs/<method>/seed0")


# ------------------------------------------------------------------ 3. one suite per export folder
def _export(out, suite: str, split: str) -> int:
    return main(["export", "--format", "verl", "--suite", suite, "--split", split, "--out", str(out)])


def test_export_of_another_suite_into_a_folder_is_refused_before_building_rows(tmp_path, capsys, monkeypatch) -> None:
    """Before: exporting SearchQA-Tags-v0 beside searchqa-text-v2's splits succeeded, mixing the suites."""
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    pytest.importorskip("yaml")
    from searchgym.integrations import verl_dataset

    assert _export(tmp_path, "searchqa-text-v2", "dev") == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    capsys.readouterr()

    def built(*args, **kwargs):
        raise AssertionError("rows built before the folder was checked")

    with monkeypatch.context() as patch:
        patch.setattr(verl_dataset, "verl_tool_config", built)
        patch.setattr(verl_dataset, "verl_rows", built)
        assert _export(tmp_path, "SearchQA-Tags-v0", "train") == 2
    assert capsys.readouterr().err == (
        f"searchgym export: error: {tmp_path} holds an export of suite 'searchqa-text-v2' (dev.parquet), not "
        "'SearchQA-Tags-v0': one folder holds the splits of one suite; export SearchQA-Tags-v0 into another "
        "folder (--out)\n")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before

    assert _export(tmp_path, "searchqa-text-v2", "train") == 0  # the same suite's other splits still join it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent_loop.yaml", "dev.parquet", "tool_config.yaml", "train.parquet"]


def test_export_beside_a_parquet_that_is_no_searchgym_export_is_refused(tmp_path, capsys) -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    pytest.importorskip("yaml")
    (tmp_path / "train.parquet").write_text(json.dumps({"not": "parquet"}))
    assert _export(tmp_path, "searchqa-text-v2", "dev") == 2
    assert capsys.readouterr().err == (
        f"searchgym export: error: {tmp_path} holds train.parquet, which is not a searchgym verl export (its rows "
        "name no single suite in data_source), so searchqa-text-v2's export would be mixed with it; export into "
        "another folder (--out)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.parquet"]


def test_a_broken_link_as_the_leaderboard_folder_names_its_target(tmp_path):
    """``--dir`` a broken link: named as one, with where it points (it said "a broken link")."""
    from searchgym.commands.leaderboard import check_board_dir

    link = tmp_path / "board"
    link.symlink_to(tmp_path / "nothere")
    with pytest.raises(ValueError, match=r"is a broken symbolic link \(to .*nothere\), not a folder"):
        check_board_dir(str(link))
