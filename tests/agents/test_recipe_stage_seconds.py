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


def test_a_damaged_seconds_record_is_started_again(tmp_path):
    (tmp_path / STAGE_SECONDS).write_text("{not json")
    done = tmp_path / "stage.json"
    done.write_text("{}")
    recipe = Recipe(RecipeConfig(), tmp_path)
    recipe._timed("sft", lambda: None, done)  # finished, but no usable record: measured, and recorded anew
    assert set(json.loads((tmp_path / STAGE_SECONDS).read_text())) == {"sft"}
