"""An OSError is one line; only a command that resumes a run says that a run resumes."""

from __future__ import annotations

from searchgym.cli import main


def test_a_file_in_place_of_a_folder_says_nothing_of_resuming_outside_runs(tmp_path, capsys) -> None:
    """Before: `export --out FILE` and `leaderboard submit --out FOLDER` ended in "(files written
    before it are intact: a run resumes where it stopped)": neither has a run to resume."""
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    assert main(["export", "--format", "verl", "--suite", "searchqa-text-v2", "--split", "dev",
                 "--out", str(blocker)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"searchgym export: error: --out {blocker} is a file, not a folder; choose a new folder (or an "
                   "earlier export's folder) for --out")
    assert "resumes" not in err and "\n" not in err
    assert blocker.read_text() == "x"
