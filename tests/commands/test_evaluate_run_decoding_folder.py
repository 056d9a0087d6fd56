"""`evaluate --agent run` with a ``decoding`` option gets a default folder of its own.

Before: ``decoding=greedy`` wrote to ``run-<method>-seed<N>``, the sampled evaluation's default
folder, so the sampled evaluation after it was refused as "a different run" (and so was
``decoding=sample`` after the sampled one: its options differ)."""

from __future__ import annotations

import json

from harness_helpers import TINY_QA

from searchgym.cli import main

TRAIN = ["--env", "SearchQA-Candidates-v0", "--world-size", "tiny", "--budget", "100", "--test-size", "4",
         "--no-progress"]


def test_each_decoding_gets_its_default_folder(tmp_path, monkeypatch, capsys) -> None:
    run = tmp_path / "run"  # cw_grpo, sampled (its own decoding)
    assert main(["train", *TRAIN, "--out", str(run)]) == 0
    monkeypatch.chdir(tmp_path)
    common = ["evaluate", "--agent", "run", "--agent-option", f"path={run}", "--suite", TINY_QA.id, "--limit", "2",
              "--no-progress"]
    greedy = ["--agent-option", "decoding=greedy"]
    assert main([*common, *greedy]) == 0
    assert main(common) == 0  # before: refused, the greedy evaluation held its folder
    assert main([*common, "--agent-option", "decoding=sample"]) == 0  # its own, named: before refused too
    assert main(common) == 0  # the default evaluation again: shown
    assert "is already evaluated (DONE); showing it" in capsys.readouterr().out
    assert main([*common, *greedy, "--seed", "1"]) == 0
    assert main([*common, *greedy, "--name", "argmax"]) == 0  # --name as given
    evaluations = tmp_path / "runs" / "evaluate" / TINY_QA.id
    made = sorted(p.name for p in evaluations.iterdir())
    assert made == ["argmax", "run-cw_grpo-seed0", "run-cw_grpo-seed0-evalseed1-greedy", "run-cw_grpo-seed0-greedy",
                    "run-cw_grpo-seed0-sample"]
    decodings = {name: json.loads((evaluations / name / "config.json").read_text())["options"]["agent_options"]
                 .get("decoding") for name in made}
    assert decodings == {"argmax": "greedy", "run-cw_grpo-seed0": None, "run-cw_grpo-seed0-evalseed1-greedy": "greedy",
                         "run-cw_grpo-seed0-greedy": "greedy", "run-cw_grpo-seed0-sample": "sample"}
