"""`leaderboard submit --out` and `leaderboard build --dir` refuse a path they cannot use up front, in one
line naming it (a broken link with its target), with exit 2.

Before: `submit --out LINK/x.json` (LINK broken) or `--out FILE/x.json` failed with exit 1
only once the run had been read and scored ("File exists", a broken link named without --out), and `build
--dir LINK` said "no submissions/ folder in LINK", naming neither the link nor where it points."""

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


def test_an_out_in_folders_not_yet_made_passes_the_check_and_makes_nothing(tmp_path):
    out = tmp_path / "new" / "sub" / "x.json"
    assert command.check_out_file(out) == out
    assert os.listdir(tmp_path) == []


def test_build_names_a_broken_link_given_as_dir(tmp_path, capsys):
    link = tmp_path / "board"
    link.symlink_to(tmp_path / "gone")
    assert main(["leaderboard", "build", "--dir", str(link)]) == 2
    assert f"--dir {link} is a broken symbolic link (to {tmp_path / 'gone'}), not a folder" in _refusal(capsys)


def test_build_names_a_broken_link_as_the_submissions_folder(tmp_path, capsys):
    (tmp_path / "submissions").symlink_to(tmp_path / "gone")
    assert main(["leaderboard", "build", "--dir", str(tmp_path)]) == 2
    assert (f"{tmp_path / 'submissions'} is a broken symbolic link (to {tmp_path / 'gone'}), not a folder"
            in _refusal(capsys))
    assert not (tmp_path / "README.md").exists()


def test_build_still_says_a_folder_without_submissions_has_none(tmp_path, capsys):
    assert main(["leaderboard", "build", "--dir", str(tmp_path)]) == 2
    assert f"no submissions/ folder in {tmp_path}" in _refusal(capsys)
