"""`leaderboard submit --out` and `leaderboard build --dir` refuse a path they cannot use up front, in one
line naming it (a broken link with its target), with exit 2.

Before: `submit --out LINK/x.json` (LINK broken), `--out FILE/x.json` or `--out FOLDER` failed with exit 1
only once the run had been read and scored ("File exists", a broken link named without --out, "Is a
directory"), and `build --dir LINK` said "no submissions/ folder in LINK", naming neither the link nor where
it points."""

from __future__ import annotations

import os

import pytest

import searchgym.commands.leaderboard as command
from searchgym.cli import main


@pytest.fixture
def unread_run(monkeypatch):
    """A run folder that must not be read: the --out check comes first."""
    def read(*args, **kwargs):
        raise AssertionError("the run was read before --out was checked")

    monkeypatch.setattr(command, "build_submission", read)
    return "runs/mine/runs/random/seed0"


def _refusal(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    return err[0]


def test_submit_names_a_broken_link_above_out_before_reading_the_run(tmp_path, capsys, unread_run):
    link = tmp_path / "board"
    link.symlink_to(tmp_path / "gone")
    out = link / "x.json"
    assert main(["leaderboard", "submit", unread_run, "--out", str(out)]) == 2
    assert _refusal(capsys) == (f"searchgym leaderboard: error: --out {out} cannot be written: {link} is a broken "
                                f"symbolic link (to {tmp_path / 'gone'}), not a folder; move it or choose another --out")


@pytest.mark.parametrize("below", ["x.json", "sub/x.json"])
def test_submit_names_a_file_above_out_before_reading_the_run(tmp_path, capsys, unread_run, below):
    (tmp_path / "notes").write_text("mine")
    out = tmp_path / "notes" / below
    assert main(["leaderboard", "submit", unread_run, "--out", str(out)]) == 2
    assert f"--out {out} cannot be written: {tmp_path / 'notes'} is a file, not a folder" in _refusal(capsys)
    assert (tmp_path / "notes").read_text() == "mine"


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc, where no folder can be made")
def test_submit_refuses_an_out_where_nothing_can_be_made_before_reading_the_run(capsys, unread_run):
    assert main(["leaderboard", "submit", unread_run, "--out", "/proc/searchgym/x.json"]) == 2
    assert "--out /proc/searchgym/x.json cannot be written: nothing can be made in /proc (" in _refusal(capsys)


@pytest.mark.parametrize("as_link", [False, True])
def test_submit_refuses_a_folder_as_out_before_reading_the_run(tmp_path, capsys, unread_run, as_link):
    (tmp_path / "subs").mkdir()
    out = tmp_path / "subs"
    if as_link:
        out = tmp_path / "link"
        out.symlink_to(tmp_path / "subs")
    assert main(["leaderboard", "submit", unread_run, "--out", str(out)]) == 2
    assert _refusal(capsys) == (f"searchgym leaderboard: error: --out {out} is a folder, not a file; give the file to "
                                f"write ({out / 'NAME.json'}, say), or leave --out out for the default file name "
                                "under --dir")
    assert os.listdir(tmp_path / "subs") == []


@pytest.mark.parametrize("run", ["missing", "damaged"])
def test_a_folder_as_out_is_reported_before_a_bad_run_folder(tmp_path, capsys, run):
    """The --out check comes before anything of the run is read: a run folder that is not there, or one
    whose config.json is damaged, is not what is reported while --out cannot be written."""
    run_dir = tmp_path / run
    if run == "damaged":
        run_dir.mkdir()
        (run_dir / "DONE").write_text("")
        (run_dir / "config.json").write_text("[")
    (tmp_path / "subs").mkdir()
    assert main(["leaderboard", "submit", str(run_dir), "--out", str(tmp_path / "subs")]) == 2
    error = _refusal(capsys)
    assert error.startswith(f"searchgym leaderboard: error: --out {tmp_path / 'subs'} is a folder, not a file; ")
    assert str(run_dir) not in error


def test_an_out_in_folders_not_yet_made_passes_the_check_and_makes_nothing(tmp_path):
    out = tmp_path / "new" / "sub" / "x.json"
    assert command.check_out_file(out) == out
    assert os.listdir(tmp_path) == []


def test_build_names_a_broken_link_given_as_dir(tmp_path, capsys):
    link = tmp_path / "board"
    link.symlink_to(tmp_path / "gone")
    assert main(["leaderboard", "build", "--dir", str(link)]) == 2
    assert f"--dir {link} is a broken symbolic link (to {tmp_path / 'gone'}), not a folder" in _refusal(capsys)


def test_build_given_a_file_as_dir_asks_for_the_folder_holding_submissions(tmp_path, capsys):
    """Before: "give the leaderboard folder (or a path not yet made)", advice build cannot use: a path
    not yet made holds no submissions/ to build from."""
    (tmp_path / "afile").write_text("x")
    assert main(["leaderboard", "build", "--dir", str(tmp_path / "afile")]) == 2
    assert _refusal(capsys) == (f"searchgym leaderboard: error: --dir {tmp_path / 'afile'} is a file, not a folder; "
                                "give the leaderboard folder (the one holding submissions/) with --dir, or move "
                                "that file")
    assert (tmp_path / "afile").read_text() == "x"


def test_build_names_a_broken_link_as_the_submissions_folder(tmp_path, capsys):
    (tmp_path / "submissions").symlink_to(tmp_path / "gone")
    assert main(["leaderboard", "build", "--dir", str(tmp_path)]) == 2
    assert (f"{tmp_path / 'submissions'} is a broken symbolic link (to {tmp_path / 'gone'}), not a folder"
            in _refusal(capsys))
    assert not (tmp_path / "README.md").exists()


def test_build_still_says_a_folder_without_submissions_has_none(tmp_path, capsys):
    assert main(["leaderboard", "build", "--dir", str(tmp_path)]) == 2
    assert f"no submissions/ folder in {tmp_path}" in _refusal(capsys)
