"""The tiny-LM recipe's SFT data from other seeded worlds (``sft_worlds``): the reader plays train
tasks of the suite's world and of worlds of the next seeds, so the model sees more distinct
episodes without any dev or test task of the suite's world."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from searchgym.agents import lm_sft
from searchgym.agents.tiny_lm_recipe import Recipe, RecipeConfig

from searchgym.suites import get_suite, make_env


def test_make_env_overrides_the_world_seed():
    suite = get_suite("searchqa-text-v2")
    home = make_env(suite, "train").unwrapped
    other = make_env(suite, "train", world_seed=suite.world_seed + 1).unwrapped
    assert home.env_config.world_seed == suite.world_seed and other.env_config.world_seed == suite.world_seed + 1
    assert home.world.seed == suite.world_seed and other.world.seed == suite.world_seed + 1
    assert {t.question for t in home.tasks.tasks("train")}.isdisjoint(t.question for t in other.tasks.tasks("train"))


def test_sft_data_comes_from_each_world_s_train_tasks(tmp_path, monkeypatch):
    played: list[tuple[int, str, list[str]]] = []
    real = lm_sft.reader_transcripts

    def record(env, task_ids, *args, **kwargs):
        played.append((env.env_config.world_seed, env.env_config.split, list(task_ids)))
        return real(env, task_ids, *args, **kwargs)

    monkeypatch.setattr(lm_sft, "reader_transcripts", record)
    config = RecipeConfig(sft_tasks=3, sft_worlds=2, sft_epochs=1.0, sft_max_seconds=5.0, max_new_tokens=48)
    recipe = Recipe(config, tmp_path, log=lambda line: None)
    folder, info = recipe.sft(recipe.tokenizer())
    seed = recipe.suite.world_seed
    assert [(world, split) for world, split, _ in played] == [(seed, "train"), (seed + 1, "train")]
    assert all(len(ids) == 3 for _, _, ids in played)
    assert info["worlds"] == 2 and info["transcripts"] == 6
    assert json.loads((folder / "sft.json").read_text())["worlds"] == 2


def test_sft_worlds_must_be_at_least_one():
    with pytest.raises(ValueError, match=r"RecipeConfig.sft_worlds must be an int in 1\.\.64, got"):
        RecipeConfig(sft_worlds=0)


@pytest.mark.parametrize("weight", [-0.5, float("nan"), float("inf"), "1", True])
def test_a_bad_context_weight_is_refused_before_any_stage(weight):
    with pytest.raises(ValueError, match="sft_context_weight must be a finite number >= 0"):
        RecipeConfig(sft_context_weight=weight)
    assert RecipeConfig(sft_context_weight=0.5).sft_context_weight == 0.5
