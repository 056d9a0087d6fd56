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


@pytest.mark.parametrize("method", ["mappo", "coma"])
def test_dynamic_sampling_for_a_critic_method_is_refused_before_any_folder(tmp_path, capsys, method):
    # before: each run failed at its start, wrote error.txt, and compare advised re-running the command
    out = tmp_path / "cmp"
    assert main(["compare", "--suite", "quick-v2", "--methods", method, "--option", "dynamic_sampling=4",
                 "--budget", "100", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "fits a critic on every episode (leave dynamic_sampling=0)" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
