"""``train --policy llm`` prints the plan of the run it starts: the world and test-split settings given
in ``--options`` (before: the plan said "up to 200 tasks" and the flags' families for ``{"test_size": 3,
"families": "lookup"}``, and the run then scored 3 tasks of lookups)."""

from __future__ import annotations

import json

import pytest

from searchgym.cli import main

pytest.importorskip("transformers")


def test_the_plan_says_the_options_settings(tmp_path, capsys) -> None:
    options = {"test_size": 3, "dev_size": 2, "families": "lookup", "world_seed": 2, "group_size": 2, "tasks_per_iteration": 1,
               "max_turns": 2, "max_new_tokens": 8}
    code = main(["train", "--policy", "llm", "--model", "random:tiny", "--world-size", "tiny", "--budget", "1",
                 "--device", "cpu", "--no-progress", "--options", json.dumps(options), "--out", str(tmp_path / "run")])
    assert code == 0
    plan = capsys.readouterr().out.splitlines()[0]
    assert "(world seed 2, size tiny, families lookup," in plan
    assert "then the test split (up to 3 tasks) and the dev split (up to 2 tasks)" in plan  # dev: scored too
