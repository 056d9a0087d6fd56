"""``searchgym train --policy llm --env SearchQA-Candidates-Easy-v0`` with env_kwargs action_mode
'text' trains, and is tested, on the easy tasks the id registers, as ``train`` without
``--policy llm`` does. Before: its ad-hoc suite had difficulty None, which overrode the id's own
"easy" in the training env and the dev/test splits alike, while the plan said "difficulty as the
env sets it" (on the tiny world 26 test tasks against the id's 13)."""

from __future__ import annotations

import json

import pytest

import searchgym
from searchgym.cli import main
from searchgym.harness.llm_method import suite_config
from searchgym.suites import tasks

pytest.importorskip("transformers")

EASY = "SearchQA-Candidates-Easy-v0"
TEXT_MODE = json.dumps({"env_kwargs": {"action_mode": "text"}, "dev_size": 1})


def _planned(tmp_path, monkeypatch, *extra: str):
    """The run ``train --policy llm`` would execute (not executed), and the plan it printed."""
    from searchgym.commands import train_llm

    seen = []
    monkeypatch.setattr(train_llm, "train_from_args", lambda args, spec=None: seen.append(spec) or 0)
    assert main(["train", "--policy", "llm", "--model", "random:tiny", "--budget", "50", "--world-size", "tiny",
                 "--no-progress", "--out", str(tmp_path / "run"), "--options", TEXT_MODE, *extra]) == 0
    return seen[0]


def test_an_easy_id_in_text_mode_trains_and_tests_on_its_easy_tasks(tmp_path, monkeypatch, capsys) -> None:
    spec = _planned(tmp_path, monkeypatch, "--env", EASY)
    plan = capsys.readouterr().out
    assert spec.suite.difficulty == "easy" and "difficulty easy" in plan, plan
    own = searchgym.make(EASY, split="test", world_size="tiny").unwrapped
    assert {t.id for t in tasks(spec.suite, "test")} == {t.id for t in own.tasks.tasks("test")}
    trained = suite_config(spec.suite, spec.options)  # the env the trainer plays
    assert trained.env_kwargs["difficulty"] == "easy" and trained.env_kwargs["action_mode"] == "text"


def test_a_difficulty_given_still_wins_over_the_ids(tmp_path, monkeypatch) -> None:
    spec = _planned(tmp_path, monkeypatch, "--env", EASY, "--difficulty", "hard")
    assert spec.suite.difficulty == "hard"


def test_an_id_with_no_difficulty_keeps_every_difficulty(tmp_path, monkeypatch) -> None:
    spec = _planned(tmp_path, monkeypatch, "--env", "SearchQA-v0")
    assert spec.suite.difficulty is None
