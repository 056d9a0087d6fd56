"""The tiny-LM recipe's RL resume checks each logged row before it uses it: a row of the wrong type, one
missing a field or holding a number that is not finite is damage (a warning naming metrics.jsonl, and
that RL run is done again from its beginning), and nothing that is not finite reaches eval.json.

Before: ``"seconds": "x"`` ended in "unsupported operand type(s) for +: 'int' and 'str'" and a
missing ``train_success`` in "error: 'train_success'", naming no file; ``"seconds": NaN`` was
accepted and written into eval.json (and results.json, RESULTS.md) as ``"rl_seconds": NaN``, so the
next run refused the recipe's own eval.json. A NaN in stage_seconds.json was taken as the stage's
seconds ("Wall time nan s")."""

from __future__ import annotations

import json
import math
import shutil

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from searchgym.agents.tiny_lm_recipe import Recipe, RecipeConfig

from searchgym.damaged import DamagedFileWarning

CONFIG = {"tokenizer": "shipped", "methods": ("grpo",), "seeds": (0,), "rl_iterations": 2, "group_size": 2,
          "tasks_per_iteration": 1, "test_tasks": 2, "eval_batch": 2, "max_new_tokens": 32, "choice_tasks": 0,
          "rollout": {"max_turns": 3}}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished RL run's folder and its eval.json, from a random tiny model folder."""
    from searchgym.agents.llm_policy import offline_tokenizer
    from searchgym.agents.tiny_lm import new_tiny_model, save_model_folder

    tokenizer = offline_tokenizer()
    model = save_model_folder(new_tiny_model("l2-w128", tokenizer), tokenizer, tmp_path_factory.mktemp("m") / "m")
    out = tmp_path_factory.mktemp("whole")
    summary = _recipe(out).rl(model, "grpo", 0)
    return model, out / "rl" / "grpo-s0", summary


def _recipe(out):
    return Recipe(RecipeConfig(**CONFIG), out, log=lambda line: None)


def _untimed(record: dict) -> dict:
    return {k: v for k, v in record.items() if not any(word in k for word in ("seconds", "per_s"))}


def _finite(value) -> bool:
    if isinstance(value, list):
        return all(map(_finite, value))
    return not isinstance(value, float) or math.isfinite(value)


DAMAGE = [  # (change to iteration 1's row, what the warning says of it)
    (lambda row: row.update(seconds="x"), "its 'seconds' is a string ('x') where a number in 0..1e+09 belongs"),
    (lambda row: row.pop("train_success"), "lacks 'train_success' (a number in 0..1)"),
    (lambda row: row.update(seconds=float("nan"), rollout_seconds=float("inf")), "its 'seconds' is NaN"),
    (lambda row: row.update(generated_tokens=-5),
     "its 'generated_tokens' is a negative number (-5) where a number in 0..1e+15 belongs"),
]


@pytest.mark.parametrize(("change", "said"), DAMAGE, ids=["text", "missing", "nan", "negative"])
def test_a_damaged_row_is_a_warning_naming_the_file_and_the_run_is_done_again(tmp_path, finished, change, said):
    model, whole, summary = finished
    folder = tmp_path / "rl" / "grpo-s0"
    shutil.copytree(whole, folder)
    for name in ("eval.json", "test.json"):  # finished, evaluation to redo: the rows are read back
        (folder / name).unlink()
    path = folder / "metrics.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    change(rows[0])
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    with pytest.warns(DamagedFileWarning) as caught:
        again = _recipe(tmp_path).rl(model, "grpo", 0)
    [message] = [str(w.message) for w in caught if issubclass(w.category, DamagedFileWarning)]
    assert message.startswith(f"{path}: has no rows of iterations 1, which the checkpoint (iteration 2) holds; "
                              f"iteration 1's row: {said}") and message.endswith("from its beginning"), message
    assert _untimed(again) == _untimed(summary) and all(_finite(v) for v in again.values())
    assert json.loads((folder / "eval.json").read_text()) == again  # valid JSON the next run reads back
    assert _untimed(_recipe(tmp_path).rl(model, "grpo", 0)) == _untimed(summary)


def test_a_stage_s_recorded_seconds_that_are_not_finite_are_damage_and_unknown(tmp_path):
    done = tmp_path / "done.json"
    done.write_text("{}")
    (tmp_path / "stage_seconds.json").write_text('{"stage": [NaN, 1.0], "other": [1e999, true]}')
    with pytest.warns(DamagedFileWarning, match="its 'stage' holds NaN where seconds in 0..1e"):
        recipe = _recipe(tmp_path)
    recipe._timed("stage", lambda: None, done)
    recipe._timed("other", lambda: None, done)
    assert recipe.times == {"stage": None, "other": None} and recipe.lost == ["stage", "other"]
    assert all(math.isfinite(x) for x in recipe.skipped)
