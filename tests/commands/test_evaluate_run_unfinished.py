"""`evaluate --agent run` of a run with no DONE marker (stopped before its budget) says what it scores.

Before: it played the run's last checkpoint silently, a table like a finished run's; only the
evaluation's config.json recorded ``"finished": false``."""

from __future__ import annotations

import json
import shutil

import torch

from searchgym.cli import main

TRAIN = ["--env", "SearchQA-Candidates-v0", "--world-size", "tiny", "--test-size", "4", "--no-progress"]


def evaluate(run, out):
    return main(["evaluate", "--agent", "run", "--agent-option", f"path={run}", "--out", str(out), "--no-progress"])


def test_an_unfinished_run_is_played_and_said_to_be_unfinished(tmp_path, capsys) -> None:
    run = tmp_path / "run"
    assert main(["train", *TRAIN, "--budget", "100", "--out", str(run)]) == 0
    capsys.readouterr()
    assert evaluate(run, tmp_path / "finished") == 0
    assert capsys.readouterr().err == ""  # a finished run: nothing said

    stopped = tmp_path / "stopped"  # as a run stopped on its way to 1000 steps: its checkpoint, no DONE
    shutil.copytree(run, stopped)
    (stopped / "DONE").unlink()
    config = json.loads((stopped / "config.json").read_text())
    (stopped / "config.json").write_text(json.dumps({**config, "budget": 1000}))
    steps = torch.load(stopped / "checkpoint" / "checkpoint.pt", weights_only=True)["state"]["env_steps"]
    assert 100 <= steps < 1000

    out = tmp_path / "ev"
    assert evaluate(stopped, out) == 0
    printed = capsys.readouterr()
    assert printed.err.splitlines() == [f"{stopped} is unfinished (no DONE marker): scoring its last checkpoint "
                                        f"({steps} env steps of 1000)"]
    assert "| all | 4 |" in printed.out  # still played, its table as before
    assert (out / "predictions.jsonl").read_bytes() == (run / "predictions.jsonl").read_bytes()
    assert json.loads((out / "config.json").read_text())["played_run"]["finished"] is False
