"""``train --policy llm`` trains on a text env id: a candidate or numeric env id, or an ``action_mode``
other than text in ``env_kwargs``, is one line naming the text env ids, before anything is written.
Before: ``--env SearchQA-Candidates-v0`` was trained in text mode without a word (config.json
recorded the candidate id with action_mode text), where ``compare`` refuses a candidate suite; and
without ``--env`` it played the default candidate env the same way."""

from __future__ import annotations

import argparse
import json

import pytest

from searchgym.cli import main
from searchgym.commands.train_llm import check_text_env

pytest.importorskip("transformers")

SINGLE_TEXT = "SearchQA-Tags-v0, SearchQA-v0"
TEAM_TEXT = "GroupSearch-v0, TeamSearch-Generalists-v0, TeamSearch-v0"


def _train(tmp_path, *extra: str) -> list[str]:
    return ["train", "--policy", "llm", "--model", "random:tiny", "--budget", "50", "--world-size", "tiny",
            "--no-progress", "--out", str(tmp_path / "run"), *extra]


@pytest.mark.parametrize("env, said", [
    ("SearchQA-Candidates-v0", "--env SearchQA-Candidates-v0 is in 'candidates' mode (an action is a candidate's index)"
                               f"; --policy llm trains on a text env id: {SINGLE_TEXT}"),
    ("SearchQA-Candidates-Easy-v0", f"is in 'candidates' mode (an action is a candidate's index); --policy llm trains "
                                    f"on a text env id: {SINGLE_TEXT}; add --difficulty easy for the tasks "
                                    "SearchQA-Candidates-Easy-v0 plays"),
    ("SearchQA-Numeric-v0", "--env SearchQA-Numeric-v0 is a numeric env (feature vectors; an action is a candidate's "
                            f"index); --policy llm trains on a text env id: {SINGLE_TEXT}"),
    ("SearchQA-Numeric-Easy-v0", f"numeric env (feature vectors; an action is a candidate's index); --policy llm "
                                 f"trains on a text env id: {SINGLE_TEXT}; add --difficulty easy for the tasks "
                                 "SearchQA-Numeric-Easy-v0 plays"),
    ("TeamSearch-Candidates-v0", f"is in 'candidates' mode (an action is a candidate's index); --policy llm trains on "
                                 f"a text env id: {TEAM_TEXT}"),
])
def test_a_candidate_or_numeric_env_id_is_refused_before_anything_is_written(env, said, tmp_path, capsys) -> None:
    assert main(_train(tmp_path, "--env", env)) == 2
    captured = capsys.readouterr()
    [line] = captured.err.strip().splitlines()
    assert line.startswith("searchgym train: error: ") and said in line, line
    assert captured.out == "" and not (tmp_path / "run").exists()  # not even the plan


@pytest.mark.parametrize("env_kwargs", [{"action_mode": "candidates"}, json.dumps({"action_mode": "numeric"})])
def test_an_action_mode_other_than_text_is_refused(env_kwargs, tmp_path, capsys) -> None:
    options = json.dumps({"env_kwargs": env_kwargs})
    assert main(_train(tmp_path, "--env", "SearchQA-v0", "--options", options)) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "env_kwargs action_mode" in line and "an LLM writes its actions as text; leave it out" in line, line
    assert f"--policy llm trains on a text env id: {SINGLE_TEXT}" in line and not (tmp_path / "run").exists()


def test_text_envs_and_an_explicit_text_mode_pass() -> None:
    """Text ids pass, and a candidate id made text on purpose (env_kwargs action_mode 'text', as compare
    takes a suite); a numeric id has no text mode."""
    for env in ("SearchQA-v0", "SearchQA-Tags-v0", "TeamSearch-v0", "GroupSearch-v0"):
        check_text_env(env, None)
    check_text_env("SearchQA-v0", {"action_mode": "text", "max_steps": 4})
    check_text_env("SearchQA-Candidates-v0", '{"action_mode": "text"}')
    with pytest.raises(ValueError, match="is a numeric env"):
        check_text_env("SearchQA-Numeric-v0", {"action_mode": "text"})


def test_without_env_the_llm_plays_the_text_env(tmp_path, capsys, monkeypatch) -> None:
    """The default --env is a candidate env; --policy llm without --env plays SearchQA-v0 instead."""
    from searchgym.commands import train_llm

    seen: list[argparse.Namespace] = []
    monkeypatch.setattr(train_llm, "train_from_args", lambda args, spec=None: seen.append(spec) or 0)
    assert main(_train(tmp_path, "--test-size", "2", "--options", '{"dev_size": 1}')) == 0
    assert seen[0].suite.env_id == "SearchQA-v0"
    assert "searchgym train: cw_grpo on SearchQA-v0 in text mode" in capsys.readouterr().out
