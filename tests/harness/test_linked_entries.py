"""A symbolic link in a run folder or a comparison folder (either may come from someone else) is
refused in one line naming it, and nothing is written where it points. Before: a ``.lock`` link had
its target truncated and a PID written into it, a ``metrics.jsonl`` link had rows appended to its
target, and a ``checkpoint`` (or ``tensorboard``, ``runs/...``, ``curves``) link had files written
into the folder it named."""

from __future__ import annotations

import os
import shutil

import pytest
from harness_helpers import TINY_QA

from searchgym.cli import main
from searchgym.fileio import DELETE_LINK, LINKED, REPLACE_LINKED_FOLDER, UNSHARE_LINK

pytestmark = pytest.mark.timeout(300)
FAST = "harness_helpers:fast_learner"


def _train(out, *extra):
    return main(["train", "--method", FAST, "--env", "SearchQA-Candidates-v0", "--world-size", "tiny",
                 "--test-size", "4", "--budget", "8", "--out", str(out), "--no-progress", *extra])


def _last_line(err: str) -> str:
    assert "Traceback" not in err
    return err.replace("\r", "\n").strip().splitlines()[-1]


def _files(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("linked") / "run"
    assert _train(out) == 0
    return out


def _unfinished(finished, tmp_path):
    """A copy of the finished run with no DONE and no checkpoint: the re-run trains and logs again."""
    folder = tmp_path / "run"
    shutil.copytree(finished, folder)
    (folder / "DONE").unlink()
    shutil.rmtree(folder / "checkpoint")
    return folder


@pytest.mark.parametrize("name", [".lock", "metrics.jsonl"])
def test_a_linked_file_in_a_run_folder_is_refused_and_leaves_its_target(finished, tmp_path, capsys, name):
    folder = _unfinished(finished, tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious data\n")
    (folder / name).unlink()
    (folder / name).symlink_to(victim)
    assert _train(folder) == 2
    said = _last_line(capsys.readouterr().err)
    assert said == f"searchgym train: damaged file: {folder / name}: {LINKED}; {DELETE_LINK}"
    assert victim.read_text() == "precious data\n"
    (folder / name).unlink()
    assert _train(folder) == 0 and (folder / "DONE").is_file()  # the remedy works


@pytest.mark.parametrize("name", [".lock", "metrics.jsonl"])
def test_a_hard_linked_file_in_a_run_folder_is_refused_and_leaves_its_other_name(finished, tmp_path, capsys, name):
    """Before: a file with another name on the disk (a ``cp -al`` backup, or a file outside the folder)
    was written in place: the lock truncated it and the log appended rows to it, under both names."""
    folder = _unfinished(finished, tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious data\n")
    (folder / name).unlink()
    os.link(victim, folder / name)
    assert _train(folder) == 2
    said = _last_line(capsys.readouterr().err)
    assert said == (f"searchgym train: damaged file: {folder / name}: has 2 hard links (other names for the same "
                    f"file), and searchgym never writes into a file it shares; {UNSHARE_LINK}")
    assert victim.read_text() == "precious data\n"
    (folder / name).unlink()
    assert _train(folder) == 0 and (folder / "DONE").is_file()
    assert victim.read_text() == "precious data\n"


@pytest.mark.parametrize("name", ["checkpoint", "tensorboard"])
def test_a_linked_folder_in_a_run_folder_is_refused_and_leaves_its_target(finished, tmp_path, capsys, name):
    if name == "tensorboard":
        pytest.importorskip("tensorboard")
    folder = _unfinished(finished, tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "checkpoint.pt").write_text("precious\n")
    (folder / name).symlink_to(outside, target_is_directory=True)
    assert _train(folder, *(["--logger", "tensorboard"] if name == "tensorboard" else [])) == 2
    assert _last_line(capsys.readouterr().err) == (f"searchgym train: damaged file: {folder / name}: {LINKED}; "
                                                    f"{REPLACE_LINKED_FOLDER}")
    assert _files(outside) == {"checkpoint.pt": b"precious\n"}


@pytest.mark.parametrize("inside", ["runs", "runs/fast/seed0", "curves"])
def test_a_linked_folder_of_a_comparison_is_refused_before_any_run(tmp_path, capsys, inside):
    out, outside = tmp_path / "c1", tmp_path / "outside"
    outside.mkdir()
    (outside / "mine.txt").write_text("precious\n")
    (out / inside).parent.mkdir(parents=True, exist_ok=True)
    (out / inside).symlink_to(outside, target_is_directory=True)
    assert main(["compare", "--suite", TINY_QA.id, "--methods", f"fast={FAST}", "--budget", "8", "--out", str(out),
                 "--device", "cpu", "--no-progress"]) == 2
    assert _last_line(capsys.readouterr().err) == (f"searchgym compare: damaged file: {out / inside}: {LINKED}; "
                                                    f"{REPLACE_LINKED_FOLDER}")
    assert _files(outside) == {"mine.txt": b"precious\n"}
