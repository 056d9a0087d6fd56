"""A run whose method cannot be built, or whose actor raises before the run's files are written, leaves
nothing in a folder that held no run: the corrected command runs there. Work a re-run resumes (a log
row, a checkpoint) and a user's own files are kept."""

from __future__ import annotations

import os

from harness_helpers import TINY_QA

from searchgym.cli import main
from searchgym.folder_lock import FolderLock
from searchgym.harness.methods import MethodRef
from searchgym.harness.runner import RunSpec, execute_run_safely

AGENTS = '''
def boom():
    raise ValueError("factory failed")


class RaisingActor:
    def act(self, env, observation, info):
        raise KeyError("act failed")


def bad_act():
    return RaisingActor()


def logs_then_raises(ctx):
    ctx.log({"iteration": 0, "loss": 1.0})
    raise RuntimeError("after a logged row")


def never_built(ctx):
    raise RuntimeError("cannot be built")
'''


def _evaluate(out, agent: str) -> list[str]:
    return ["evaluate", "--suite", TINY_QA.id, "--agent", agent, "--limit", "2", "--out", str(out), "--no-progress"]


def test_an_agent_that_cannot_be_built_leaves_no_folder_and_the_corrected_command_runs(tmp_path, monkeypatch,
                                                                                      capsys):
    """Before: each failure left config.json and .lock, and ``--agent random`` into the same --out was then
    refused as "holds a different run (method: 'os.getcwd' there, 'random' now ...)"."""
    (tmp_path / "user_agents.py").write_text(AGENTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    for agent, said in (("os:getcwd", "returned str; it must return an Actor"),
                        ("user_agents:boom", "the factory raised ValueError: factory failed"),
                        ("user_agents:bad_act", "its act raised KeyError")):
        out = tmp_path / agent.replace(":", "_")
        assert main(_evaluate(out, agent)) != 0
        assert said in capsys.readouterr().err
        assert not out.exists(), agent
        assert main(_evaluate(out, "random")) == 0, agent
        assert (out / "DONE").is_file()
        assert "holds a different run" not in capsys.readouterr().err


def test_a_folder_that_was_there_is_kept_with_only_its_own_files(tmp_path, monkeypatch, capsys):
    """An empty folder the user made stays (empty); one holding an earlier failure's error.txt keeps it."""
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "user_agents.py").write_text(AGENTS)
    empty, failed = tmp_path / "empty", tmp_path / "failed"
    empty.mkdir()
    failed.mkdir()
    (failed / "error.txt").write_text("Traceback: an earlier attempt\n")
    for out in (empty, failed):
        assert main(_evaluate(out, "user_agents:boom")) != 0
    capsys.readouterr()
    assert os.listdir(empty) == []
    assert os.listdir(failed) == ["error.txt"]


def test_a_run_that_wrote_a_log_row_is_kept_to_resume(tmp_path, monkeypatch):
    """A method that raised after it logged (it did work): config.json and metrics.jsonl stay, as before."""
    (tmp_path / "user_methods.py").write_text(AGENTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = RunSpec(TINY_QA, MethodRef("logged", "user_methods:logs_then_raises"), 0, 10, tmp_path / "out")
    outcome = execute_run_safely(spec)
    assert outcome.status == "failed"
    assert {"config.json", "metrics.jsonl", "error.txt"} <= set(os.listdir(spec.run_dir))


def test_a_compared_method_that_cannot_be_built_keeps_its_error_alone(tmp_path, monkeypatch):
    """compare's run folder: its error.txt (read by the report) and nothing else, so the same label with
    other options is not refused as another run."""
    (tmp_path / "user_methods.py").write_text(AGENTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = RunSpec(TINY_QA, MethodRef("m", "user_methods:never_built"), 0, 10, tmp_path / "out",
                   options={"lr": 0.5})
    outcome = execute_run_safely(spec)
    assert outcome.status == "failed" and "cannot be built" in outcome.error
    assert os.listdir(spec.run_dir) == ["error.txt"]
    other = RunSpec(TINY_QA, MethodRef("m", "harness_helpers:fast_learner"), 0, 8, tmp_path / "out")
    assert execute_run_safely(other).status == "done"


def test_a_lock_whose_file_was_removed_is_not_the_folders_lock(tmp_path):
    """A waiter that got the lock of a removed lock file holds nothing: the runner takes the new one."""
    lock = FolderLock(tmp_path)
    assert lock.acquire() and lock.holds_current_file()
    (tmp_path / ".lock").unlink()
    assert not lock.holds_current_file()
    lock.release()
    assert lock.acquire() and lock.holds_current_file()
    lock.release()
