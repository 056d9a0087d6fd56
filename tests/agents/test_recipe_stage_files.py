"""The tiny-LM recipe's finished stages read back from a folder someone may have damaged.

Before: each stage file was read with ``json.loads(path.read_text())``: unbounded, a cut file said
"Unterminated string starting at: line 1 column 11" naming no file, ``"success": "x"`` ended in
"Unknown format code 'f'", a list in ``sft.json`` was taken silently, and text nested 100,000 deep
ended in a RecursionError. Now each is a one-line error naming the file and how to redo its stage.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

pytest.importorskip("torch")

from searchgym.agents.tiny_lm_recipe import STAGE_SECONDS, Recipe, RecipeConfig

from searchgym.damaged import DamagedFile, DamagedFileWarning

EVAL = {"success": 0.5, "parse_rate": 1.0, "tasks": 4, "generate_tokens_per_s": 10.0, "per_task": [1, 0, 1, 0]}
STAGES = {
    "sft/sft.json": {"parameters": 100, "sft_steps": 3, "sft_loss": 1.5, "sft_tokens_per_s": 20.0, "kept": 2,
                     "transcripts": 4, "worlds": 1},
    "sft/eval.json": EVAL,
    "sft/eval_free.json": EVAL,
    "sft/choices.json": {"act": 1.0, "tool": None, "arg": 0.5, "answer": 1.0, "episodes": 0.5, "transcripts": 2,
                         "tasks": 2, "counts": {"act": 3, "tool": 0, "arg": 2, "answer": 2}},
    "rl/grpo-s0/eval.json": {"method": "grpo", "seed": 0, "success": 0.75, "parse_rate": 1.0,
                             "per_task": [1, 1, 1, 0], "rl_seconds": 2.0, "rl_generate_tokens_per_s": 5.0,
                             "rl_train_tokens_per_s": None, "train_success": [0.5]},
}
CONFIG = {"methods": ("grpo",), "seeds": (0,), "tokenizer": "shipped", "choice_tasks": 2}


@pytest.fixture(scope="module")
def model_folder(tmp_path_factory):
    from searchgym.agents.llm_policy import offline_tokenizer
    from searchgym.agents.tiny_lm import new_tiny_model, save_model_folder

    tokenizer = offline_tokenizer()
    return save_model_folder(new_tiny_model("l2-w128", tokenizer), tokenizer, tmp_path_factory.mktemp("m") / "m")


def _finished(out, model_folder, log=lambda line: None, **damage):
    """Every stage of a one-method, one-seed recipe on disk; ``damage``: file -> its text instead."""
    shutil.copytree(model_folder, out / "sft")
    for name, record in STAGES.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(json.dumps(record))
    for name, text in damage.items():
        (out / name.replace("__", "/")).write_text(text)
    return Recipe(RecipeConfig(**CONFIG), out, log=log)


def test_finished_stages_are_read_back(tmp_path, model_folder):
    raw = _finished(tmp_path, model_folder).run()
    assert raw["sft_eval"] == EVAL and raw["runs"]["grpo"][0]["success"] == 0.75
    assert raw["sft_choices"]["counts"]["act"] == 3


def test_a_rerun_says_which_stages_it_skipped(tmp_path, model_folder):
    """Before: a re-run said nothing of the finished stages it did not run."""
    lines = []
    _finished(tmp_path, model_folder, log=lines.append).run()
    skipped = [line for line in lines if line.startswith("skipped")]
    assert skipped == [f"skipped {stage}: finished by an earlier run ({tmp_path / name})" for stage, name in (
        ("sft", "sft/sft.json"), ("sft_eval", "sft/eval.json"), ("sft_choices", "sft/choices.json"),
        ("sft_eval_free", "sft/eval_free.json"), ("rl_grpo_s0", "rl/grpo-s0/eval.json"))]


REDO_SFT = "and re-run the same command to redo SFT"
REDO_EVAL = "delete it and re-run the same command to redo this evaluation"
REDO_RL = "rl/grpo-s0 and re-run the same command to redo this RL run"
DAMAGE = [  # (file, its text, what the error says, the remedy)
    ("sft/sft.json", "[1]", "holds a list where an object belongs", REDO_SFT),  # before: taken silently
    ("sft/sft.json", "{}", "lacks 'parameters' (a whole number >= 0)", REDO_SFT),
    ("sft/sft.json", '{"parameters": "x', "is not valid JSON", REDO_SFT),  # before: no file named
    ("sft/eval.json", "[" * 100000 + "]" * 100000, "is nested too deeply", REDO_EVAL),  # before: RecursionError
    ("sft/eval.json", json.dumps({**EVAL, "success": "x"}), "its 'success' is a string ('x') where a number in 0..1",
     REDO_EVAL),  # before: Unknown format code 'f' for object of type 'str'
    ("sft/eval.json", json.dumps({**EVAL, "per_task": [1, float("nan"), 0, 0]}),
     "its 'per_task' is a list where a list of numbers in 0..1 belongs", REDO_EVAL),
    # shares out of 0..1 (before: accepted, and printed as a success of 7.000 and gains of -5)
    ("sft/eval.json", json.dumps({**EVAL, "success": 7}), "its 'success' is a number (7) where a number in 0..1 belongs",
     REDO_EVAL),
    ("sft/eval.json", json.dumps({**EVAL, "success": 10**300}),  # a long number is shown short
     "its 'success' is a number (1e+300) where a number in 0..1 belongs", REDO_EVAL),
    ("sft/eval.json", json.dumps({**EVAL, "parse_rate": -3}),
     "its 'parse_rate' is a negative number (-3) where a number in 0..1 belongs", REDO_EVAL),
    ("sft/eval.json", json.dumps({**EVAL, "per_task": [5, 5, 5, 5]}),
     "its 'per_task' is a list where a list of numbers in 0..1 belongs", REDO_EVAL),
    ("sft/choices.json", json.dumps({**STAGES["sft/choices.json"], "act": 2}),
     "its 'act' is a number (2) where a number in 0..1 or null belongs", REDO_EVAL),
    # fewer scores than tasks (before: blamed on rl/grpo-s0/eval.json, "delete rl/grpo-s0", and that looped)
    ("sft/eval.json", json.dumps({**EVAL, "per_task": [1, 0]}), "its 'per_task' scores 2 tasks where its 'tasks' says 4",
     REDO_EVAL),
    ("sft/eval_free.json", json.dumps({**EVAL, "per_task": [1, 0, 0, 0, 0]}),
     "its 'per_task' scores 5 tasks where its 'tasks' says 4", REDO_EVAL),
    ("sft/eval.json", json.dumps(EVAL).replace('"tasks": 4', '"tasks": ' + "1" * 5000),
     "holds a number of more than 4300 digits, which no searchgym file holds", REDO_EVAL),
    ("sft/eval_free.json", '{"success": 0.', "is not valid JSON", REDO_EVAL),
    ("sft/choices.json", json.dumps({**STAGES["sft/choices.json"], "counts": {"act": "x"}}),
     "its 'counts.act' is a string ('x') where a whole number >= 0 belongs", REDO_EVAL),
    ("rl/grpo-s0/eval.json", json.dumps({**STAGES["rl/grpo-s0/eval.json"], "success": float("inf")}),
     "its 'success' is infinity where a number in 0..1 belongs", REDO_RL),
    ("rl/grpo-s0/eval.json", json.dumps({**STAGES["rl/grpo-s0/eval.json"], "success": 9}),
     "its 'success' is a number (9) where a number in 0..1 belongs", REDO_RL),
    ("rl/grpo-s0/eval.json", json.dumps({**STAGES["rl/grpo-s0/eval.json"], "per_task": [1, 0, 1], "success": 2 / 3}),
     "scores 3 test tasks where", REDO_RL),  # before: "operands could not be broadcast" in the gains
    # a success that is not the mean of the scores (before: taken, and printed beside gains from the scores)
    ("sft/eval.json", json.dumps({**EVAL, "success": 0.9, "per_task": [0, 0, 0, 0]}),
     "its 'success' 0.9 is not the mean of its 'per_task' (0.0 over 4 tasks)", REDO_EVAL),
    ("sft/eval_free.json", json.dumps({**EVAL, "success": 0.25}),
     "its 'success' 0.25 is not the mean of its 'per_task' (0.5 over 4 tasks)", REDO_EVAL),
    ("rl/grpo-s0/eval.json", json.dumps({**STAGES["rl/grpo-s0/eval.json"], "success": 1.0}),
     "its 'success' 1.0 is not the mean of its 'per_task' (0.75 over 4 tasks)", REDO_RL),
]


@pytest.mark.parametrize(("name", "text", "said", "remedy"), DAMAGE)
def test_a_damaged_stage_file_is_one_line_naming_it(tmp_path, model_folder, name, text, said, remedy):
    recipe = _finished(tmp_path, model_folder, **{name.replace("/", "__"): text})
    with pytest.raises(DamagedFile, match=rf"{re.escape(name)}: {re.escape(said)}.*{re.escape(remedy)}"):
        recipe.run()


def test_a_damaged_seconds_record_is_named_in_a_warning(tmp_path, model_folder):
    recipe_folder = tmp_path
    (recipe_folder / STAGE_SECONDS).write_text("[" * 100000 + "]" * 100000)  # before: a RecursionError
    with pytest.warns(DamagedFileWarning, match=rf"{STAGE_SECONDS}: is nested too deeply.*; the seconds of the "
                      "finished stages it held are lost .*as unknown"):  # before: "timing the stages it names again"
        recipe = _finished(recipe_folder, model_folder)
    raw = recipe.run()
    assert raw["sft_eval"] == EVAL
    # every stage but the tokenizer (always made) was finished before: skipped, its seconds unknown, not ~0 s
    assert {k for k, v in raw["stage_seconds"].items() if v is None} == set(raw["stage_seconds"]) - {"tokenizer"}
    assert raw["wall_seconds"] is None and raw["cpu_seconds"] is None
    recorded = json.loads((recipe_folder / STAGE_SECONDS).read_text())  # kept as unknown: no warning next time
    assert recorded["sft"] is None and len(recorded["tokenizer"]) == 2
