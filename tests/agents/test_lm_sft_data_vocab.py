"""A kept SFT world file whose token ids are no ids of the tokenizer is damaged: a warning naming it,
and that world is played again.

Before: ``_transcript`` checked only for ints >= 0, so an id of 10**6 in ``token_ids`` reached
``train_sft`` and ended in an IndexError traceback from the embedding, and 10**30 in "Overflow when
unpacking long long", naming no file."""

from __future__ import annotations

import gzip
import json
import warnings

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from searchgym.agents.lm_sft_data import (
    read_world,
    sft_transcripts,
    tokenizer_fingerprint,
    world_file,
    world_settings,
)
from searchgym.agents.tiny_lm_recipe import Recipe, RecipeConfig

from searchgym.damaged import DamagedFile, DamagedFileWarning

CONFIG = RecipeConfig(tokenizer="shipped", sft_tasks=2, sft_epochs=1.0, sft_max_seconds=10, choice_tasks=0)


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    return Recipe(CONFIG, tmp_path_factory.mktemp("recipe"), log=lambda line: None).tokenizer()


def _worlds(tokenizer):
    seed = Recipe(CONFIG, "unused", log=lambda line: None).suite.world_seed
    return [world_settings(CONFIG.suite, seed, 2, 0, 0, True, CONFIG.rollout_config(), tokenizer_fingerprint(tokenizer))]


def _edit_first_row(path, change) -> None:
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    row = json.loads(lines[1])
    change(row)
    lines[1] = json.dumps(row)
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))


def _set_id(where: str, value: int):
    def change(row):
        if where == "token_ids":
            row["token_ids"][3] = value
        else:
            row["allowed"] = [[1, [value]]]
    return change


@pytest.mark.parametrize("where, value", [("token_ids", "vocab"), ("token_ids", 10**6), ("token_ids", 10**30),
                                          ("allowed", 10**6), ("allowed", 10**30)])
def test_an_id_outside_the_vocabulary_is_a_damaged_file_and_the_world_is_played_again(
        tmp_path, tokenizer, where, value):
    value = len(tokenizer) if value == "vocab" else value
    worlds = _worlds(tokenizer)
    first = sft_transcripts(worlds, tokenizer, tmp_path, log=lambda line: None)
    path = world_file(tmp_path, worlds[0]["world_seed"])
    _edit_first_row(path, _set_id(where, value))
    damaged = path.read_bytes()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = sft_transcripts(worlds, tokenizer, tmp_path, log=lambda line: None)
    assert again == first
    [message] = [str(w.message) for w in caught if issubclass(w.category, DamagedFileWarning)]
    assert str(path) in message and "playing that world again" in message
    path.write_bytes(damaged)
    with pytest.raises(DamagedFile, match=rf"line 2: needs .*integers in 0\.\.{len(tokenizer) - 1}, the tokenizer's ids"):
        read_world(path, worlds[0], len(tokenizer))


def test_the_recipe_s_sft_plays_a_world_with_a_bad_id_again(tmp_path):
    recipe = Recipe(CONFIG, tmp_path, log=lambda line: None)
    tokenizer = recipe.tokenizer()
    _, info = recipe.sft(tokenizer)
    path = next((tmp_path / "sft_data").iterdir())
    for name in ("sft.json", "model.safetensors"):
        (tmp_path / "sft" / name).unlink()
    _edit_first_row(path, _set_id("token_ids", 10**6))
    with pytest.warns(DamagedFileWarning, match="playing that world again"):
        _, again = recipe.sft(tokenizer)
    assert again["transcripts"] == info["transcripts"] and read_world(path, json.loads(
        gzip.decompress(path.read_bytes()).decode().splitlines()[0])["settings"], len(tokenizer))
