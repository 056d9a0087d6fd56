"""group_by role or team on a group env (independent attempts, no team): one line before any folder.
Before: grpo_role, cw_grpo_role and ``group_by=team`` on GroupSearch-Candidates-v0 printed the plan,
wrote config.json, metrics.jsonl and checkpoint/, then failed at the first batch."""

from __future__ import annotations

import pytest

from searchgym.cli import main

TRAIN = ["train", "--env", "GroupSearch-Candidates-v0", "--world-size", "tiny", "--test-size", "2", "--budget", "8",
         "--device", "cpu", "--no-progress"]


@pytest.mark.parametrize(("method", "options", "message"), [
    ("grpo_role", "{}", "method 'grpo_role': group_by='role' compares the agents of one team across a task's "
                        "episodes; this env's agents are independent attempts grouped per episode (metadata "
                        "group_by='episode'): use group_by='auto' (grpo_role sets group_by=role: use grpo)"),
    ("cw_grpo_role", "{}", "(cw_grpo_role sets group_by=role: use cw_grpo)"),
    ("grpo", '{"group_by": "team"}', "method 'grpo': group_by='team' compares the agents of one team"),
])
def test_role_or_team_grouping_on_a_group_env_is_refused_before_any_folder(tmp_path, capsys, method, options, message):
    out = tmp_path / "run"
    assert main([*TRAIN, "--method", method, "--options", options, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
