"""The recipe's SFT data kept per world (``lm_sft_data``): a world played once is read back, not
played again, unless it was played with other settings; a damaged file is a warning naming it and
that world is played again; worlds played in parallel processes are the ones played in turn."""

from __future__ import annotations

import gzip
import json
import warnings

import pytest

pytest.importorskip("torch")

from searchgym.agents import lm_sft, lm_sft_data
from searchgym.agents.lm_sft_data import (
    read_world,
    sft_transcripts,
    tokenizer_fingerprint,
    world_file,
    world_settings,
)
from searchgym.agents.tiny_lm_recipe import Recipe, RecipeConfig

from searchgym.damaged import DamagedFile, DamagedFileWarning


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    return Recipe(RecipeConfig(), tmp_path_factory.mktemp("recipe"), log=lambda line: None).tokenizer()


def worlds_of(tokenizer, count=2, tasks=3):
    config = RecipeConfig()
    seed = Recipe(config, "unused", log=lambda line: None).suite.world_seed
    return [world_settings(config.suite, seed + w, tasks, w, 0, True, config.rollout_config(),
                           tokenizer_fingerprint(tokenizer)) for w in range(count)]


def count_plays(monkeypatch):
    played = []
    real = lm_sft.reader_transcripts

    def record(env, task_ids, *args, **kwargs):
        played.append(env.env_config.world_seed)
        return real(env, task_ids, *args, **kwargs)

    monkeypatch.setattr(lm_sft, "reader_transcripts", record)
    return played


def test_a_world_played_once_is_read_back_not_played_again(tmp_path, tokenizer, monkeypatch):
    played = count_plays(monkeypatch)
    worlds = worlds_of(tokenizer)
    first = sft_transcripts(worlds, tokenizer, tmp_path, log=lambda line: None)
    assert len(played) == 2 and len(first) == 6
    assert all(t.allowed for t in first if t.success)  # guided: the choices' allowed ids are kept
    again = sft_transcripts(worlds, tokenizer, tmp_path, log=lambda line: None)
    assert len(played) == 2 and again == first


def test_a_world_played_with_other_settings_is_played_again(tmp_path, tokenizer, monkeypatch):
    played = count_plays(monkeypatch)
    sft_transcripts(worlds_of(tokenizer, count=1, tasks=2), tokenizer, tmp_path, log=lambda line: None)
    more = sft_transcripts(worlds_of(tokenizer, count=1, tasks=3), tokenizer, tmp_path, log=lambda line: None)
    assert len(played) == 2 and len(more) == 3
    other_tokenizer = dict(worlds_of(tokenizer, count=1, tasks=3)[0], tokenizer="0" * 16)
    assert read_world(world_file(tmp_path, other_tokenizer["world_seed"]), other_tokenizer) is None


def rewrite_rows(path, change):
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    path.write_bytes(gzip.compress(("\n".join(change(lines)) + "\n").encode()))


@pytest.mark.parametrize("damage, what", [
    (lambda p: p.write_bytes(b"not gzip"), "is not a gzip-compressed text file"),
    (lambda p: p.write_bytes(p.read_bytes()[:200]), "is cut short"),
    (lambda p: (p.unlink(), p.mkdir()), "is a folder"),
    (lambda p: rewrite_rows(p, lambda rows: ['{"format": "something else"}'] + rows[1:]), "header"),
    (lambda p: rewrite_rows(p, lambda rows: rows[:1] + ["{"] + rows[2:]), "line 2 is not JSON"),
    (lambda p: rewrite_rows(p, lambda rows: rows[:1] + [json.dumps(dict(json.loads(rows[1]), token_ids=[-1]))]),
     "line 2: needs token_ids"),
    (lambda p: rewrite_rows(p, lambda rows: rows[:1] + [json.dumps(dict(json.loads(rows[1]), allowed=[[10**6, [1]]]))]),
     "line 2: needs allowed"),
])
def test_a_damaged_world_file_is_a_warning_naming_it_and_the_world_is_played_again(tmp_path, tokenizer, damage, what):
    worlds = worlds_of(tokenizer, count=1)
    first = sft_transcripts(worlds, tokenizer, tmp_path, log=lambda line: None)
    path = world_file(tmp_path, worlds[0]["world_seed"])
    damage(path)
    with pytest.raises(DamagedFile, match=what):
        read_world(path, worlds[0])
    if path.is_dir():
        path.rmdir()  # a folder in the way cannot be replaced by an atomic write; the warning named it
        assert sft_transcripts(worlds, tokenizer, tmp_path, log=lambda line: None) == first
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = sft_transcripts(worlds, tokenizer, tmp_path, log=lambda line: None)
    assert again == first
    messages = [str(w.message) for w in caught if issubclass(w.category, DamagedFileWarning)]
    assert len(messages) == 1 and str(path) in messages[0] and "playing that world again" in messages[0]
    assert read_world(path, worlds[0]) == first


def test_a_file_that_decompresses_past_the_bound_is_refused(tmp_path, tokenizer, monkeypatch):
    worlds = worlds_of(tokenizer, count=1)
    sft_transcripts(worlds, tokenizer, tmp_path, log=lambda line: None)
    monkeypatch.setattr(lm_sft_data, "MAX_BYTES", 16384)  # above the packed size, below the text's
    with pytest.raises(DamagedFile, match="decompresses to more than 16384 bytes"):
        read_world(world_file(tmp_path, worlds[0]["world_seed"]), worlds[0])


def test_worlds_played_by_parallel_processes_are_the_worlds_played_in_turn(tmp_path, tokenizer):
    worlds = worlds_of(tokenizer, count=2, tasks=2)
    in_turn = sft_transcripts(worlds, tokenizer, tmp_path / "one", workers=1, log=lambda line: None)
    lines = []
    parallel = sft_transcripts(worlds, tokenizer, tmp_path / "two", workers=2, log=lines.append)
    assert parallel == in_turn and "2 process(es)" in lines[0]
    for w in worlds:
        assert world_file(tmp_path / "two", w["world_seed"]).read_bytes() == \
            world_file(tmp_path / "one", w["world_seed"]).read_bytes()


def test_sft_workers_must_be_at_least_one():
    with pytest.raises(ValueError, match=r"RecipeConfig.sft_workers must be an int in 1\.\.64, got 0"):
        RecipeConfig(sft_workers=0)


def test_the_recipe_reads_its_sft_data_back_when_sft_is_redone(tmp_path, monkeypatch):
    played = count_plays(monkeypatch)
    config = RecipeConfig(sft_tasks=2, sft_worlds=2, sft_epochs=1.0, sft_max_seconds=5.0, max_new_tokens=48)
    recipe = Recipe(config, tmp_path, log=lambda line: None)
    tokenizer = recipe.tokenizer()
    folder, info = recipe.sft(tokenizer)
    assert len(played) == 2 and sorted(p.name for p in (tmp_path / "sft_data").iterdir()) == \
        [world_file(tmp_path, recipe.suite.world_seed + w).name for w in (0, 1)]
    (folder / "sft.json").unlink()  # redo SFT, say with other training settings
    _, again = recipe.sft(tokenizer)
    assert len(played) == 2 and again["transcripts"] == info["transcripts"] == 4
