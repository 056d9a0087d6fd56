"""A ``max_episode_tokens`` below the opening prompt is one line before any run folder, naming the
option, its value, the prompt's tokens and the least accepted.

Before: ``train --policy llm`` wrote config.json and checkpoint/, then stopped with "the opening
prompt has 920 tokens, leaving no room for a turn within max_episode_tokens=50; raise it" (the
corrected command was then refused as "a different run"); ``recipe`` wrote config.json and
stage_seconds.json, trained its tokenizer and played the reader before it stopped the same way."""

from __future__ import annotations

import argparse
import json
import re
from types import SimpleNamespace

import pytest

pytest.importorskip("transformers")

from searchgym.agents.llm_policy import ChatCodec, offline_tokenizer
from searchgym.agents.llm_prompt_room import first_observations
from searchgym.agents.llm_rollout import RolloutConfig, open_conversation

from searchgym.cli import main
from searchgym.commands.train_llm import check_opening_prompt, llm_run_spec
from searchgym.suites import make_env

TINY = {"group_size": 1, "tasks_per_iteration": 1, "max_new_tokens": 4, "max_turns": 1, "eval_tasks": 1,
        "dev_size": 1}
SAID = re.compile(r"(\S+) (\d+) leaves no room for a turn: the opening prompt \(system prompt, first observation and "
                  r"tools, through the model's chat template\) has (\d+) tokens \(task (\S+)\); accepted: an integer "
                  r">= (\d+) \(the prompt plus min_turn_tokens 8\)$")


def _train(env: str, out, budget: int) -> list[str]:
    return ["train", "--policy", "llm", "--model", "random:tiny", "--env", env, "--budget", "1", "--world-size", "tiny",
            "--test-size", "1", "--no-progress", "--out", str(out),
            "--options", json.dumps({**TINY, "max_episode_tokens": budget})]


@pytest.mark.parametrize("env", ["SearchQA-v0", "TeamSearch-v0"])
def test_train_refuses_a_budget_below_the_opening_prompt_before_any_folder(env, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(_train(env, out, 50)) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    said = SAID.search(line)
    assert line.startswith("searchgym train: error: ") and said, line
    option, value, tokens, _, least = said.groups()
    assert (option, value, int(least)) == ("max_episode_tokens", "50", int(tokens) + 8)
    assert int(tokens) > 300 and not out.exists()


def test_the_least_accepted_is_what_the_rollout_needs(tmp_path, capsys):
    """The task named opens with exactly that many tokens: the rollout takes the least accepted and
    refuses one less; the preflight passes the least accepted."""
    assert main(_train("SearchQA-v0", tmp_path / "run", 50)) == 2
    _, _, tokens, task, least = SAID.search(capsys.readouterr().err).groups()
    args = argparse.Namespace(model="random:tiny", env="SearchQA-v0", budget=1, out=str(tmp_path / "run"),
                              world_size="tiny", test_size=1, options={**TINY, "max_episode_tokens": int(least)})
    spec = llm_run_spec(args)
    check_opening_prompt(spec)  # passes
    env = make_env(spec.suite, next(s for s in ("train", "dev", "test") if task in {t.id for t in spec.suite.tasks(s)}))
    [(session, text)] = first_observations(env, task)
    holder = SimpleNamespace(codec=ChatCodec(offline_tokenizer()))
    assert open_conversation(holder, session, text, RolloutConfig(max_episode_tokens=int(least))).prompt_length == \
        int(tokens)
    with pytest.raises(ValueError, match="leaving no room for a turn"):
        open_conversation(holder, session, text, RolloutConfig(max_episode_tokens=int(least) - 1))
    assert not (tmp_path / "run").exists()


def test_the_recipe_refuses_it_before_its_folder(tmp_path, capsys):
    out = tmp_path / "tiny"
    code = main(["recipe", "tiny-lm", "--smoke", "--out", str(out), "--options",
                 json.dumps({"rollout": {"max_episode_tokens": 100}})])
    [line] = capsys.readouterr().err.strip().splitlines()
    said = SAID.search(line)
    assert code == 2 and said and said.group(1, 2) == ("rollout.max_episode_tokens", "100"), line
    assert not out.exists()
