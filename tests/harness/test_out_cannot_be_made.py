"""An --out where no folder can be made is one line naming the flag, before anything runs.

Before: `compare --out /proc/x` started its runs, each of which failed with the OS's bare
"[Errno 2] No such file or directory: '/proc/x'", and `train`, `evaluate` and `recipe` printed that
line too, naming neither the flag nor the folder at fault. /proc refuses new folders to every user,
root included (a read-only folder does not stop root, so it cannot stand in for it here)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from harness_helpers import TINY_QA

from searchgym.cli import main
from searchgym.fileio import check_folder_can_be_made

NOWHERE = Path("/proc/searchgym-cannot-be-made")
pytestmark = pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("argv", [
    ["compare", "--suite", TINY_QA.id, "--methods", "random", "--seeds", "1", "--budget", "0"],
    ["train", "--method", "random", "--env", "SearchQA-Candidates-v0", "--world-size", "tiny", "--budget", "0"],
    ["evaluate", "--suite", TINY_QA.id, "--agent", "random"],
    ["recipe", "tiny-lm", "--smoke"],
])
def test_a_folder_that_cannot_be_made_is_named_with_its_flag(argv, capsys) -> None:
    out = NOWHERE / "run"
    assert main([*argv, "--out", str(out)]) == 2
    command = argv[0]
    assert _one_line(capsys) == (f"searchgym {command}: error: --out {out} cannot be made: no folder can be made "
                                 f"in /proc (No such file or directory); choose another --out")


def test_the_check_leaves_nothing_behind_and_lets_existing_folders_be(tmp_path) -> None:
    before = sorted(os.listdir(tmp_path))
    assert check_folder_can_be_made(tmp_path / "new" / "run") == tmp_path / "new" / "run"
    assert sorted(os.listdir(tmp_path)) == before  # the probe folder is gone; nothing was made
    assert check_folder_can_be_made(tmp_path, "--dir") == tmp_path  # an existing folder: no probe inside it
    (tmp_path / "afile").write_text("x")  # an existing path is the command's to judge (each says what it must be)
    assert check_folder_can_be_made(tmp_path / "afile") == tmp_path / "afile"
    before = sorted(os.listdir(tmp_path))
    assert sorted(os.listdir(tmp_path)) == before


def test_a_file_on_the_path_is_named(tmp_path) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("mine")
    with pytest.raises(ValueError, match=f"^{blocker} is a file, so --out {blocker / 'run'} cannot be a folder"):
        check_folder_can_be_made(blocker / "run")
    broken = tmp_path / "gone"
    broken.symlink_to(tmp_path / "missing")
    with pytest.raises(ValueError, match=r"is a broken symbolic link \(to .*missing\), so --dir"):
        check_folder_can_be_made(broken / "run", "--dir")
    assert blocker.read_text() == "mine"
