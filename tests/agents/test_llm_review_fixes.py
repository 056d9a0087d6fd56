"""The LLM path, as a reviewer met it.

Before: ``max_turns`` ended no episode of the harness's test split (``LLMActor``: every prediction
took the env's 12 steps where training took 3; the harness now builds its env with that limit) nor of a team or group rollout (16 rounds for
``max_turns=2``); ``group_by='role'`` without a team, vLLM for a ``random:`` preset or without vLLM,
and a ``tokenizer.json`` that is JSON but no tokenizer (``error: 'added_tokens'``) failed after the
run folder was made; a config.json of another architecture over the weights trained from random
values, silently; ``python -m searchgym.agents.llm_tokenizer`` to a path it cannot write was a
traceback; a negative ``world_seed`` option advised "choose other --families or --difficulty".
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

pytest.importorskip("transformers")

from searchgym.agents.llm_policy import LLMPolicy, load_model
from searchgym.agents.llm_rollout import LLMActor, RolloutConfig, collect_llm_parallel
from searchgym.agents.model_source import check_model_source

import searchgym
from searchgym.cli import main
from searchgym.damaged import DamagedFile

BASE = ["train", "--policy", "llm", "--model", "random:tiny", "--budget", "1", "--world-size", "tiny",
        "--test-size", "1", "--no-progress"]
TINY = {"group_size": 1, "tasks_per_iteration": 1, "max_new_tokens": 4, "max_turns": 1, "eval_tasks": 1,
        "dev_size": 1}


@pytest.fixture(scope="module")
def tiny():
    model, tokenizer = load_model("random:tiny", seed=0)
    return LLMPolicy(model, tokenizer)


def _play(env, actor, parallel: bool, seed: int):
    """As the harness plays an episode (``evaluate.play_single`` / ``play_parallel``): the env's steps."""
    obs, info = env.reset(seed=seed)
    actor.reset()
    if parallel:
        rounds = 0
        while env.agents:
            obs, _, _, _, info = env.step(actor.act(env, obs, info))
            rounds += 1
        return rounds
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(actor.act(env, obs, info))
        done = terminated or truncated
    return info["step"], info.get("answer"), truncated


# ------------------------------------------------------------------------------------------- 1. max_turns
def _suite(env_id: str, **env_kwargs):
    from searchgym.suites import Suite, register_suite

    return register_suite(Suite(f"test-llm-max-turns-{env_id.lower()}", 0, env_id, {"action_mode": "text", **env_kwargs},
                                world_size="tiny", dev_size=2, test_size=2, description="tests: an LLM run's turn limit"))


def test_the_harness_actor_ends_a_single_agent_episode_at_max_turns(tiny):
    from searchgym.harness.evaluate import evaluation_env

    suite = _suite("SearchQA-v0", max_steps=12, reward={"no_answer_score": -1.0})
    actor = LLMActor(tiny, RolloutConfig(max_new_tokens=4, max_turns=3))
    env = evaluation_env(suite, "test", actor)  # as the harness builds it: the env ends the episode
    for seed in (0, 1):
        steps, answer, truncated = _play(env, actor, False, seed)
        assert (steps, answer, truncated) == (3, None, True)
        assert len(actor.episode.steps) == 3
    long = LLMActor(tiny, RolloutConfig(max_new_tokens=4, max_turns=20))  # not reached: the env's limit
    assert _play(evaluation_env(suite, "test", long), long, False, 0)[0] == 12


@pytest.mark.parametrize("env_id", ["TeamSearch-v0", "GroupSearch-v0"])
def test_the_harness_actor_ends_a_parallel_episode_at_max_turns(tiny, env_id):
    from searchgym.harness.evaluate import evaluation_env

    suite = _suite(env_id)
    actor = LLMActor(tiny, RolloutConfig(max_new_tokens=4, max_turns=2))
    env = evaluation_env(suite, "test", actor)
    assert _play(env, actor, True, 0) == 2
    assert _play(env, actor, True, 1) == 2


@pytest.mark.parametrize("env_id", ["TeamSearch-v0", "GroupSearch-v0"])
def test_team_and_group_rollouts_end_at_max_turns_as_single_ones(tiny, env_id):
    reward = {"no_answer_score": -1.0, "step_cost": 0.0, "format_cost": 0.0, "invalid_cost": 0.0}
    envs = [searchgym.make(env_id, world_size="tiny", action_mode="text", reward=reward) for _ in range(2)]
    task = envs[0].unwrapped.tasks.tasks("train")[0].id
    policies = dict.fromkeys(envs[0].possible_agents, tiny)
    groups, stats = collect_llm_parallel(envs, policies, [task], 2, np.random.default_rng(0),
                                         RolloutConfig(max_new_tokens=4, max_turns=2))
    episodes = [ep for group in groups for ep in group]
    assert episodes and all(len(ep.steps) == 2 and ep.done for ep in episodes)
    assert stats.env_steps == 2 * len(episodes)
    cut = [ep for ep in episodes if ep.budget_truncated and not ep.success]
    assert cut and all(ep.steps[-1].done and ep.steps[-1].reward == pytest.approx(-1.0) for ep in cut)


# ------------------------------------------------------------------------------ 2. checks before any folder
@pytest.mark.parametrize(("args", "options", "said"), [
    (["--method", "grpo_role", "--env", "SearchQA-v0"], {}, "group_by='role' (grpo_role) compares each agent"),
    (["--env", "SearchQA-v0"], {"group_by": "role"}, "SearchQA-v0 has no team"),
    (["--env", "GroupSearch-v0"], {"group_by": "role"}, "GroupSearch-v0 has no team"),
    (["--env", "SearchQA-v0"], {"generation_backend": "vllm"}, "vLLM loads a model from a path or hub id"),
    (["--env", "SearchQA-v0"], {"world_seed": -5}, "world_seed (--options) must be an integer in 0.."),
])
def test_a_run_that_cannot_start_is_one_line_before_any_folder(tmp_path, capsys, args, options, said):
    out = tmp_path / "run"
    code = main([*BASE, *args, "--out", str(out), "--options", json.dumps({**TINY, **options})])
    [line] = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and said in line and not out.exists(), line
    assert "--families" not in line


def test_vllm_not_installed_is_named_before_any_folder(tmp_path, capsys, monkeypatch, good_model):
    monkeypatch.setattr("searchgym.agents.llm_run_checks.vllm_available", lambda: False)
    out = tmp_path / "run"
    code = main([*BASE[:4], str(good_model), *BASE[5:], "--env", "SearchQA-v0", "--out", str(out), "--options",
                 json.dumps({**TINY, "generation_backend": "vllm"})])
    [line] = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and "needs vLLM: pip install" in line and not out.exists(), line


def test_a_team_run_still_groups_by_role():
    from searchgym.agents.llm_run_checks import check_llm_run
    from searchgym.agents.llm_train import LLMTrainConfig

    check_llm_run(LLMTrainConfig(env_id="TeamSearch-v0", method="grpo_role"))


def test_a_tokenizer_json_that_is_no_tokenizer_is_named(tmp_path, capsys, good_model):
    folder = tmp_path / "model"
    shutil.copytree(good_model, folder)
    (folder / "tokenizer.json").write_text('{"foo": 1}')
    with pytest.raises(DamagedFile, match=r"tokenizer\.json: cannot be read as a tokenizer") as caught:
        check_model_source(str(folder))
    assert caught.value.path == folder / "tokenizer.json"
    out = tmp_path / "run"
    code = main([*BASE[:4], str(folder), *BASE[5:], "--env", "SearchQA-v0", "--out", str(out), "--options",
                 json.dumps(TINY)])
    [line] = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and str(folder / "tokenizer.json") in line and not out.exists(), line


# ------------------------------------------------------------------------------- 3. weights of another model
def _weights(folder):
    from safetensors.torch import load_file

    return load_file(folder / "model.safetensors")


def test_a_config_of_another_architecture_is_refused_naming_the_weights(tmp_path, good_model):
    folder = tmp_path / "f_bert"
    shutil.copytree(good_model, folder)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "model_type": "bert", "architectures": ["BertModel"]}))
    with pytest.raises(DamagedFile, match="holds none of the tensors of config.json's model") as caught:
        check_model_source(str(folder))
    assert caught.value.path == folder / "model.safetensors"


def test_weights_missing_from_the_file_are_refused(tmp_path, good_model):
    from safetensors.torch import save_file

    folder = tmp_path / "part"
    shutil.copytree(good_model, folder)
    tensors = _weights(folder)
    tensors.pop("model.norm.weight")
    save_file(tensors, folder / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(DamagedFile, match=r"lacks 1 of the .* weights .* model\.norm\.weight"):
        check_model_source(str(folder))


def test_real_folders_pass_tied_or_not(tmp_path, good_model):
    from searchgym.agents.llm_tokenizer import chat_tokenizer
    from searchgym.agents.tiny_lm import new_tiny_model, save_model_folder
    from transformers import Qwen2Config, Qwen2ForCausalLM

    check_model_source(str(good_model))
    tokenizer = chat_tokenizer()
    tied = save_model_folder(new_tiny_model("l2-w128", tokenizer), tokenizer, tmp_path / "tied")
    assert "lm_head.weight" not in _weights(tied)  # tied to the embeddings: not in the file
    check_model_source(str(tied))
    untied = Qwen2ForCausalLM(Qwen2Config(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=1,
                                          num_attention_heads=2, num_key_value_heads=1, intermediate_size=48,
                                          tie_word_embeddings=False))
    check_model_source(str(save_model_folder(untied, tokenizer, tmp_path / "untied")))


# ------------------------------------------------------------------------------------------- 4. llm_tokenizer
def test_the_tokenizer_command_names_a_path_it_cannot_write(tmp_path, capsys, monkeypatch):
    from searchgym.agents import llm_tokenizer

    class Trained:
        def to_str(self, pretty=False):
            return "{}"

    monkeypatch.setattr(llm_tokenizer, "train_tokenizer", Trained)
    (tmp_path / "a_file").write_text("x")
    target = tmp_path / "a_file" / "x.json"
    with pytest.raises(SystemExit) as caught:
        llm_tokenizer.main([str(target)])
    err = capsys.readouterr().err
    assert caught.value.code == 2 and f"cannot write {target}" in err and "Traceback" not in err
