"""``searchgym train --policy llm``: a resumable harness run for every method whose record in the
one method table lets the LLM trainer train it, and an error naming the reason for every other."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from searchgym.cli import main
from searchgym.commands.train_llm import train_from_args
from searchgym.harness.llm_method import config_from_args
from searchgym.method_table import METHOD_SPECS

pytest.importorskip("transformers")

LLM_METHODS = [s.name for s in METHOD_SPECS.values() if not s.llm_unsupported]
NOT_LLM = [s.name for s in METHOD_SPECS.values() if s.llm_unsupported]
TINY = '{"group_size": 2, "tasks_per_iteration": 1, "max_new_tokens": 4, "max_turns": 2, "eval_tasks": 1}'


def test_train_from_args_is_a_resumable_harness_run(tmp_path: Path, capsys) -> None:
    args = argparse.Namespace(method="dr_grpo", env="SearchQA-v0", budget=4, seed=3, device="cpu",
                              out=str(tmp_path), model="random:tiny", world_size="tiny", difficulty="easy",
                              test_size=2, dev_size=1, no_progress=True,
                              options='{"group_size": 2, "tasks_per_iteration": 1, "max_new_tokens": 4, '
                                      '"max_turns": 2, "eval_tasks": 1}')
    config = config_from_args(args)
    assert (config.estimator, config.loss.aggregation, config.loss.norm_length) == \
        ("dr_grpo", "seq-mean-token-sum-norm", 4096)
    assert config.env_kwargs == {"action_mode": "text", "world_seed": 0, "world_size": "tiny", "difficulty": "easy"}
    assert (config.group_size, config.rollout.max_turns, config.seed) == (2, 2, 3)
    assert train_from_args(args) == 0
    assert "test success" in capsys.readouterr().out
    for name in ("config.json", "metrics.jsonl", "checkpoint/checkpoint.pt", "result.json", "DONE"):
        assert (tmp_path / name).exists(), name
    predictions = [json.loads(line) for line in (tmp_path / "predictions.jsonl").read_text().splitlines()]
    assert len(predictions) == 2 and all(p["steps"] >= 1 for p in predictions)
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [0, 4] and "dev_success" in rows[-1]
    assert json.loads((tmp_path / "config.json").read_text())["options"]["llm_config"]["method"] == "dr_grpo"
    with pytest.raises(ValueError, match="cannot train method .mappo.: it fits a value head"):
        config_from_args(argparse.Namespace(method="mappo"))
    with pytest.raises(ValueError, match="unknown option"):
        config_from_args(argparse.Namespace(method="grpo", options={"groupsize": 2}))



def test_shared_prefix_and_vllm_gpu_memory_which_docs_llm_names_are_keys_of_options() -> None:
    # Before: docs/llm.md lists shared_prefix among the keys of --options, and section 3 the vLLM share
    # vllm_gpu_memory, but --options '{"shared_prefix": true}' was "unknown option(s) ['shared_prefix']".
    options = {"shared_prefix": True, "vllm_gpu_memory": 0.5}
    config = config_from_args(argparse.Namespace(method="grpo", options=options))
    assert (config.shared_prefix, config.vllm_gpu_memory) == (True, 0.5)
    default = config_from_args(argparse.Namespace(method="grpo"))
    assert (default.shared_prefix, default.vllm_gpu_memory) == (False, 0.35)


def test_the_llm_trainer_takes_the_methods_of_the_one_table() -> None:
    assert LLM_METHODS == ["cw_grpo", "grpo", "dr_grpo", "grpo_role", "cw_grpo_role"]
    assert NOT_LLM == ["mappo", "ippo", "coma", "mt_ppo", "gigpo", "info_gain"]
    for name in LLM_METHODS:
        config = config_from_args(argparse.Namespace(method=name, env="TeamSearch-v0"))
        spec = METHOD_SPECS[name]
        assert (config.estimator, config.loss.aggregation) == (spec.estimator, spec.aggregation)
        assert config.group_by == spec.defaults.get("group_by", "auto")


@pytest.mark.parametrize("method", NOT_LLM)
def test_a_method_the_llm_trainer_cannot_train_is_refused_with_its_reason(method, tmp_path, capsys) -> None:
    code = main(["train", "--policy", "llm", "--method", method, "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code != 0 and f"cannot train method {method!r}" in err and METHOD_SPECS[method].llm_unsupported in err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("method", LLM_METHODS)
def test_every_method_the_llm_trainer_supports_trains_from_the_command_line(method, tmp_path, capsys) -> None:
    env = "TeamSearch-v0" if METHOD_SPECS[method].defaults.get("group_by") == "role" else "SearchQA-v0"
    code = main(["train", "--policy", "llm", "--method", method, "--env", env, "--budget", "4",
                 "--world-size", "tiny", "--test-size", "1", "--model", "random:tiny", "--device", "cpu",
                 "--out", str(tmp_path), "--options", TINY.replace("}", ', "dev_size": 1, "no_progress": true}')])
    assert code == 0, capsys.readouterr().err
    assert f"llm {method} on {env}" in capsys.readouterr().out
    config = json.loads((tmp_path / "config.json").read_text())["options"]["llm_config"]
    assert config["method"] == method and (tmp_path / "DONE").exists()


def test_role_grouping_needs_a_team() -> None:
    with pytest.raises(ValueError, match="has no team"):
        from searchgym.agents.llm_train import LLMTrainConfig, LLMTrainer

        LLMTrainer(LLMTrainConfig(method="grpo_role", env_kwargs={"world_size": "tiny", "action_mode": "text"}))


def test_an_empty_model_is_refused_not_read_as_random_tiny(tmp_path, capsys) -> None:
    """Before: --model "" (an unset $MODEL) trained random:tiny and printed a result that looked like a run."""
    code = main(["train", "--policy", "llm", "--model", "", "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and "--model is empty; give a model folder" in err and "random:tiny" in err
    assert not (tmp_path / "run").exists()
