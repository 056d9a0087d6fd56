"""``searchgym train --env SearchQA-Candidates-Easy-v0`` plays and tests the easy tasks the id
registers. Before: its ad-hoc suite had difficulty None, which overrode the id's own "easy", so the
run trained and was tested on every family (on the tiny world 26 test tasks against the env's 13)."""

from __future__ import annotations

import json

import searchgym
from searchgym.cli import main
from searchgym.registry import registered_setting


def test_an_easy_id_trains_and_tests_on_its_easy_tasks(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", "--method", "random", "--env", "SearchQA-Candidates-Easy-v0", "--world-size", "tiny",
                 "--budget", "0", "--no-progress", "--out", str(out)]) == 0
    plan = capsys.readouterr().out.splitlines()[0]
    assert "difficulty easy" in plan, plan
    env = searchgym.make("SearchQA-Candidates-Easy-v0", split="test", world_size="tiny").unwrapped
    expected = {t.id for t in env.tasks.tasks("test")}
    played = {json.loads(line)["task_id"] for line in (out / "predictions.jsonl").read_text().splitlines()}
    assert played == expected
    assert json.loads((out / "config.json").read_text())["suite"]["difficulty"] == "easy"


def test_registered_settings_follow_a_wrapped_id_to_its_base():
    assert registered_setting("SearchQA-Candidates-Easy-v0", "difficulty") == "easy"
    assert registered_setting("SearchQA-Numeric-Easy-v0", "difficulty") == "easy"  # through its base_id
    assert registered_setting("SearchQA-Candidates-v0", "difficulty") is None
