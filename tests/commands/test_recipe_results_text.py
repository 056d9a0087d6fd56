"""RESULTS.md of `searchgym recipe tiny-lm`: the worlds SFT played, and stages whose seconds were lost.

Before: "on 1 world(s) (the suite's and the next seeds')" for the default of one world; and after a
damaged stage_seconds.json, each finished stage was reported as about 0 s, and so was the wall time.
"""

from __future__ import annotations

from searchgym.commands.recipe import results_markdown

RESULTS = {"suite": "searchqa-text-v2", "shape": "l2-w128", "parameters": 1000, "guided": True, "sft_free": None,
           "sft": {"success": 0.1, "parse_rate": 1.0, "tasks": 8, "train_tokens_per_s": 10.0,
                   "generate_tokens_per_s": 20.0, "steps": 2, "loss": 1.2, "choices": None, "episodes": 16,
                   "played": 16, "worlds": 1},
           "methods": {}, "cw_grpo_minus_grpo": None,
           "stage_seconds": {"tokenizer": 0.2, "sft": 4.0}, "wall_seconds": 11.0, "cpu_seconds": 12.0}


def _with(sft=None, **top) -> str:
    return results_markdown({**RESULTS, **top, "sft": {**RESULTS["sft"], **(sft or {})}})


def test_the_worlds_sft_played_read_right_for_one_and_for_many():
    assert "train tasks on 1 world (the suite's); 2 steps" in _with()
    assert "train tasks on 2 worlds (the suite's and the next seed's); 2 steps" in _with({"worlds": 2})
    assert "train tasks on 3 worlds (the suite's and the next 2 seeds'); 2 steps" in _with({"worlds": 3})


def test_known_seconds_are_printed_as_before():
    assert "Wall time 11 s, CPU time 12 s (tokenizer 0 s, sft 4 s)." in _with()


def test_lost_seconds_are_unknown_not_zero():
    text = _with(stage_seconds={"tokenizer": 0.2, "sft": None}, wall_seconds=None, cpu_seconds=None)
    assert ("Wall time and CPU time unknown (tokenizer 0 s, sft unknown; a stage marked unknown was finished by an "
            "earlier run whose seconds are not in stage_seconds.json: it was damaged or deleted).") in text
    assert "0 s, sft 0 s" not in text and "Wall time 0 s" not in text
