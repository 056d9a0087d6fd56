"""The tiny-LM recipe's reported seconds survive a re-run that skips finished stages.

Before: `searchgym recipe tiny-lm --smoke` run twice rewrote RESULTS.md from "Wall time 12 s, CPU
time 12 s (tokenizer 1 s, sft 4 s, ...)" to "Wall time 3 s, CPU time 3 s (tokenizer 1 s, sft 0 s,
...)": the seconds of the re-run, which skipped every stage, not of the stages."""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("torch")

from searchgym.agents.tiny_lm_recipe import STAGE_SECONDS, Recipe, RecipeConfig


def _stage(done, seconds: float):
    def run() -> str:
        deadline = time.process_time() + seconds  # CPU time too, not a sleep
        while time.process_time() < deadline:
            pass
        done.write_text("{}")
        return "made"
    return run


def test_a_skipped_stage_keeps_the_seconds_it_took_when_it_ran(tmp_path):
    done = tmp_path / "stage.json"
    first = Recipe(RecipeConfig(), tmp_path)
    assert first._timed("sft", _stage(done, 0.3), done) == "made"
    assert first.times["sft"] >= 0.3 and first.skipped == [0.0, 0.0]
    recorded = json.loads((tmp_path / STAGE_SECONDS).read_text())["sft"]
    assert recorded[1] >= 0.3

    again = Recipe(RecipeConfig(), tmp_path)  # the re-run: the stage finds its file and returns at once
    again._timed("sft", lambda: "read back", done)
    assert again.times["sft"] == recorded[0]
    assert again.skipped[0] >= recorded[0] - 0.05 and again.skipped[1] >= recorded[1] - 0.05

    done.unlink()  # the stage's output deleted: it runs again and its new seconds are recorded
    third = Recipe(RecipeConfig(), tmp_path)
    third._timed("sft", _stage(done, 0.05), done)
    assert third.times["sft"] < recorded[0] and third.skipped == [0.0, 0.0]


def test_a_damaged_seconds_record_leaves_a_finished_stage_s_seconds_unknown(tmp_path):
    """Before: the warning said the stages were timed again, but a finished stage is skipped: its ~0 s
    of reading back was recorded and reported as its time."""
    from searchgym.damaged import DamagedFileWarning

    (tmp_path / STAGE_SECONDS).write_text("{not json")
    done = tmp_path / "stage.json"
    done.write_text("{}")
    with pytest.warns(DamagedFileWarning, match="the seconds of the finished stages it held are lost"):
        recipe = Recipe(RecipeConfig(), tmp_path)
    assert recipe._timed("sft", lambda: "read back", done) == "read back"
    assert recipe.times == {"sft": None} and recipe.lost == ["sft"]
    assert json.loads((tmp_path / STAGE_SECONDS).read_text()) == {"sft": None}  # unknown, not 0 s

    again = Recipe(RecipeConfig(), tmp_path)  # null is read back as unknown, with no warning
    again._timed("sft", lambda: "read back", done)
    assert again.times == {"sft": None} and again.lost == ["sft"]
    done.unlink()  # redone: timed again
    again._timed("sft", _stage(done, 0.05), done)
    assert again.times["sft"] > 0 and len(json.loads((tmp_path / STAGE_SECONDS).read_text())["sft"]) == 2


@pytest.mark.parametrize("entry", ["[NaN, 1]", "[1, Infinity]", "[-1, 1]", "[1]", '"x"'])
def test_a_stage_s_seconds_out_of_range_are_damage(tmp_path, entry):
    """Before: {"sft": [NaN, 1]} was dropped without a word, and the skipped stage reported ~0 s."""
    from searchgym.damaged import DamagedFileWarning

    (tmp_path / STAGE_SECONDS).write_text(f'{{"sft": {entry}, "tokenizer": [1.5, 2.0]}}')
    done = tmp_path / "stage.json"
    done.write_text("{}")
    with pytest.warns(DamagedFileWarning, match=f"{STAGE_SECONDS}: its 'sft' .*; those seconds are lost"):
        recipe = Recipe(RecipeConfig(), tmp_path)
    assert recipe.recorded == {"tokenizer": [1.5, 2.0]}  # the sound entry is kept
    recipe._timed("sft", lambda: None, done)
    assert recipe.times["sft"] is None
