"""Damaged run folders: resume recovers what can be recovered (bad metrics lines skipped, a damaged
config.json written again, a damaged checkpoint restarts the run), and what cannot is one line at
the CLI naming the file and what to do; a full disk or a refused write is one line too, and nothing
written before it is lost."""

from __future__ import annotations

import errno
import json
import os
import shutil

import pytest
from harness_helpers import TINY_QA

from searchgym import fileio
from searchgym.cli import main
from searchgym.damaged import DamagedFile, DamagedFileWarning
from searchgym.harness.methods import resolve_method
from searchgym.harness.runner import RunSpec, execute_run

pytestmark = pytest.mark.timeout(300)
FAST = "harness_helpers:fast_learner"


def _spec(folder, budget=8) -> RunSpec:
    return RunSpec(suite=TINY_QA, method=resolve_method(FAST), seed=0, budget=budget, out=folder, device="cpu",
                   folder=folder)


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    folder = tmp_path_factory.mktemp("finished") / "run"
    assert execute_run(_spec(folder)).status == "done"
    return folder


def _interrupted(finished, tmp_path):
    """A copy of the finished run as if killed after its second chunk (steps 2 and 4 logged)."""
    folder = tmp_path / "run"
    shutil.copytree(finished, folder)
    for name in ("DONE", "result.json", "predictions.jsonl"):
        (folder / name).unlink()
    (folder / "checkpoint" / "state.json").write_text('{"step": 4}')
    lines = (folder / "metrics.jsonl").read_bytes().splitlines(keepends=True)
    (folder / "metrics.jsonl").write_bytes(b"".join(lines[:2]))
    return folder


# ---------------------------------------------------------------------------- metrics
METRICS_DAMAGE = {
    "a bad UTF-8 byte in a row": b'{"step": 5, "dev_success": 0.\xff5}\n',
    "a line of 0xff": b"\xff\xff\xff\n",
    "NUL bytes": b"\x00" * 64 + b"\n",
    "a row cut by a crash": b'{"step": 5, "dev_su',
    "a list": b"[1, 2, 3]\n",
    "a number": b"42\n",
    "a string": b'"row"\n',
    "deep nesting": b"[" * 50_000 + b"]" * 50_000 + b"\n",
    "an overlong line": b'{"step": 5, "pad": "' + b"x" * 5000 + b'"}\n',
    "blank lines": b"\n\n   \n",
    "a BOM line": b"\xef\xbb\xbf{\n",
    "CR only": b"\r\r\r",
    "latin-1 text": "{\"note\": \"caf\u00e9\"}\n".encode("latin-1"),
}


@pytest.mark.parametrize("damage", sorted(METRICS_DAMAGE))
def test_resume_skips_damaged_metrics_lines_and_keeps_the_good_rows(finished, tmp_path, monkeypatch, damage):
    monkeypatch.setattr(fileio, "MAX_JSONL_LINE", 1000)
    folder = _interrupted(finished, tmp_path)
    with open(folder / "metrics.jsonl", "ab") as f:
        f.write(METRICS_DAMAGE[damage])
    assert execute_run(_spec(folder)).status == "done"
    rows = fileio.read_jsonl(folder / "metrics.jsonl")
    assert [r["step"] for r in rows] == [2, 4, 6, 8]
    assert [r["attempt"] for r in rows] == [1, 1, 2, 2]


@pytest.mark.parametrize("kind", ["folder", "fifo", "/dev/zero"])
def test_a_metrics_path_that_is_not_a_file_is_one_clear_error(finished, tmp_path, kind):
    folder = _interrupted(finished, tmp_path)
    path = folder / "metrics.jsonl"
    path.unlink()
    {"folder": path.mkdir, "fifo": lambda: os.mkfifo(path), "/dev/zero": lambda: path.symlink_to("/dev/zero")}[kind]()
    # a link (to /dev/zero) is refused as a link before it is read; a folder or FIFO as no regular file
    with pytest.raises(DamagedFile, match="metrics.jsonl: is a (.*not a regular file; delete it|symbolic link)"):
        execute_run(_spec(folder))


# ---------------------------------------------------------------------------- config
CONFIG_DAMAGE = {
    "empty": b"", "cut": b'{"suite_id": "test-tiny', "garbage": bytes(range(1, 120)), "a list": b"[1]",
    "a string": b'"config"', "null": b"null", "a number": b"7", "not UTF-8": b'{"seed": "\xff"}',
    "deep nesting": b"[" * 50_000 + b"]" * 50_000,
}


@pytest.mark.parametrize("damage", sorted(CONFIG_DAMAGE))
def test_an_unfinished_runs_damaged_config_is_written_again_and_the_run_resumes(finished, tmp_path, damage):
    folder = _interrupted(finished, tmp_path)
    (folder / "config.json").write_bytes(CONFIG_DAMAGE[damage])
    with pytest.warns(DamagedFileWarning, match="config.json: .*; writing it again and resuming the run"):
        assert execute_run(_spec(folder)).status == "done"
    config = json.loads((folder / "config.json").read_text())
    assert config["attempt"] == 2 and config["method_path"] == FAST  # the attempts counted from metrics.jsonl
    assert [r["step"] for r in fileio.read_jsonl(folder / "metrics.jsonl")] == [2, 4, 6, 8]


@pytest.mark.parametrize("attempt", ["two", None, True, -1, 1.5, [2]])
def test_an_attempt_of_the_wrong_type_is_counted_from_the_metrics(finished, tmp_path, attempt):
    folder = _interrupted(finished, tmp_path)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "attempt": attempt}))
    assert execute_run(_spec(folder)).status == "done"
    assert json.loads((folder / "config.json").read_text())["attempt"] == 2


@pytest.mark.parametrize("damage", ["empty", "cut", "a list", "not UTF-8"])
def test_a_finished_runs_damaged_config_says_how_to_redo_the_run(finished, tmp_path, damage):
    folder = tmp_path / "run"
    shutil.copytree(finished, folder)
    (folder / "config.json").write_bytes(CONFIG_DAMAGE[damage])
    with pytest.raises(DamagedFile) as caught:
        execute_run(_spec(folder))
    assert str(caught.value).startswith(f"{folder / 'config.json'}: ")
    assert str(caught.value).endswith(f"; delete {folder / 'DONE'} and re-run the same command to redo the run")
    (folder / "DONE").unlink()  # the remedy works
    with pytest.warns(DamagedFileWarning):
        assert execute_run(_spec(folder)).status == "done"


def test_a_config_folder_cannot_be_written_over_and_says_so(finished, tmp_path):
    folder = _interrupted(finished, tmp_path)
    (folder / "config.json").unlink()
    (folder / "config.json").mkdir()
    with pytest.raises(DamagedFile, match="config.json: is a folder, not a file; delete it"):
        execute_run(_spec(folder))


# ------------------------------------------------------------------------ the command line
def _train(out, *extra):
    return main(["train", "--method", FAST, "--env", "SearchQA-Candidates-v0", "--world-size", "tiny",
                 "--test-size", "4", "--budget", "8", "--out", str(out), *extra])


def _last_line(err: str) -> str:
    assert "Traceback" not in err
    return err.replace("\r", "\n").strip().splitlines()[-1]


def test_out_pointing_at_a_file_is_one_line(tmp_path, capsys):
    target = tmp_path / "a-file"
    target.write_text("mine")
    assert _train(target) == 2
    assert _last_line(capsys.readouterr().err) == (f"searchgym train: error: {target} is a file, not a run folder; "
                                                    "choose a new folder (or a run folder) for --out")
    assert main(["compare", "--suite", TINY_QA.id, "--methods", "random", "--out", str(target)]) == 2
    assert "is a file; choose a new folder" in _last_line(capsys.readouterr().err)
    # below a file: before, every run failed, each pointing at an error.txt that could not exist
    assert main(["compare", "--suite", TINY_QA.id, "--methods", "random", "--out", str(target / "sub")]) == 2
    assert capsys.readouterr().err.strip() == (f"searchgym compare: error: {target} is a file, so --out "
                                               f"{target / 'sub'} cannot be a folder; choose another --out")
    assert target.read_text() == "mine"


@pytest.mark.parametrize(("inside", "method"), [("runs", "random"), ("runs/random", "random"),
                                               ("runs/random/seed0", "random"), ("bases", "sft"),
                                               ("curves", "random"),  # before: an error after every run
                                               ("runs/fast/seed0/checkpoint", f"fast={FAST}")])
def test_a_file_where_a_folder_of_the_comparison_belongs_is_named(tmp_path, capsys, inside, method):
    """Before (``runs`` a file): every run failed with NotADirectoryError, a report was written
    over the folder, and the command said "re-run the same command to resume" (exit 1)."""
    out = tmp_path / "c1"
    (out / inside).parent.mkdir(parents=True, exist_ok=True)
    (out / inside).write_text("mine")
    assert main(["compare", "--suite", TINY_QA.id, "--methods", method, "--out", str(out), "--no-progress"]) == 2
    assert _last_line(capsys.readouterr().err) == (
        f"searchgym compare: error: {out / inside} is a file where a folder of the comparison belongs; move it, "
        "or choose another --out")
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [inside]  # nothing written



@pytest.mark.parametrize(("inside", "method"), [("summary.csv", "random"), ("results.md", "random"),
                                               ("learning_curves.png", "random"), ("curves/fast.png", f"fast={FAST}")])
def test_a_folder_where_a_report_file_belongs_is_named_before_any_run(tmp_path, capsys, inside, method):
    """Before: every run trained, then the report stopped at "Is a directory" (the runs were kept,
    but hours of a long comparison went by before the line)."""
    out = tmp_path / "c1"
    (out / inside).mkdir(parents=True)
    assert main(["compare", "--suite", TINY_QA.id, "--methods", method, "--budget", "8", "--out", str(out),
                 "--no-progress"]) == 2
    assert _last_line(capsys.readouterr().err) == (
        f"searchgym compare: error: {out / inside} is a folder where a file of the comparison's report belongs; "
        "move it, or choose another --out")
    assert not (out / "runs").exists()

class _FailingFile:
    """A file whose writes fail like a full (or read-only, or refused) disk."""

    def __init__(self, real, code):
        self.real, self.code = real, code

    def write(self, data):
        raise OSError(self.code, os.strerror(self.code))

    def __getattr__(self, name):
        return getattr(self.real, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.real.close()


def _fail_writes_to(monkeypatch, name, code):
    """Writes to ``name`` (whole-file through its temp file, or appended in place) raise ``OSError(code)``."""
    real_fdopen = os.fdopen

    def fdopen(fd, *args, **kwargs):
        handle = real_fdopen(fd, *args, **kwargs)
        target = os.readlink(f"/proc/self/fd/{fd}")
        return _FailingFile(handle, code) if f".{name}." in target or target.endswith(f"/{name}") else handle

    monkeypatch.setattr(os, "fdopen", fdopen)


@pytest.mark.parametrize("name", ["predictions.jsonl", "result.json", "DONE", "metrics.jsonl"])
@pytest.mark.parametrize(("code", "remedy"), [
    (errno.ENOSPC, "free some space and re-run the same command"),
    (errno.EDQUOT, "free some space (disk quota)"),
    (errno.EACCES, "check the permissions of that path"),
    (errno.EROFS, "choose a writable --out"),
    (errno.EIO, "fix that and re-run the same command"),
])
def test_a_failed_write_is_one_line_and_loses_nothing_written_before(tmp_path, capsys, monkeypatch, name, code,
                                                                     remedy):
    out = tmp_path / "run"
    with monkeypatch.context() as patch:
        _fail_writes_to(patch, name, code)
        assert _train(out) == 1
    line = _last_line(capsys.readouterr().err)
    assert line.startswith(f"searchgym train: error: {os.strerror(code)} ({out / name}); {remedy}")
    assert line.endswith("(files written before it are intact: a run resumes where it stopped)")
    assert json.loads((out / "config.json").read_text())["attempt"] == 1
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]  # no temporary file left behind
    if name != "metrics.jsonl":
        assert [r["step"] for r in fileio.read_jsonl(out / "metrics.jsonl")] == [2, 4, 6, 8]
    assert _train(out) == 0  # space freed: the same command finishes the run
    assert (out / "DONE").is_file() and len(fileio.read_jsonl(out / "predictions.jsonl")) == 4


def test_a_damaged_checkpoint_restarts_a_trainer_run_from_the_command_line(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["train", "--method", "cw_grpo", "--env", "SearchQA-Candidates-v0", "--world-size", "tiny",
            "--test-size", "4", "--budget", "12", "--out", str(out), "--options",
            '{"tasks_per_iteration": 2, "group_size": 2, "eval_tasks": 2}']
    assert main(args) == 0
    rows = fileio.read_jsonl(out / "metrics.jsonl")
    (out / "DONE").unlink()
    (out / "checkpoint" / "checkpoint.pt").write_bytes(b"PK\x03\x04 cut by a sync")
    with pytest.warns(DamagedFileWarning, match="checkpoint.pt: is not a checkpoint searchgym can load"):
        assert main(args) == 0
    again = fileio.read_jsonl(out / "metrics.jsonl")
    strip = [{k: v for k, v in r.items() if k not in ("time", "attempt", "steps_per_s")} for r in again]
    assert strip == [{k: v for k, v in r.items() if k not in ("time", "attempt", "steps_per_s")} for r in rows]


@pytest.mark.parametrize(("result", "words"), [
    (b"", "result.json: is empty"),
    (b"[1]", "result.json: holds a list where an object belongs"),
    (b'{"dev": {}}', "result.json: has no test table"),
    (b'{"test": {"all": {"n": 12}}}', "result.json: has no test table"),
    (b'{"test": {"all": {"n": 12, "success": "x", "f1": 1, "steps": 1, "tool_calls": 0}}}',
     "its 'test.all.success' is a string ('x') where a finite number belongs"),
])
def test_evaluate_on_a_finished_run_with_a_damaged_result_is_one_line(tmp_path, capsys, result, words):
    out = tmp_path / "ev"
    args = ["evaluate", "--suite", TINY_QA.id, "--agent", "harness_helpers:oracle_factory", "--out", str(out),
            "--no-progress"]
    assert main(args) == 0
    (out / "result.json").write_bytes(result)
    capsys.readouterr()
    assert main(args) == 2
    line = _last_line(capsys.readouterr().err)
    assert line.startswith(f"searchgym evaluate: damaged file: {out}/") and words in line
