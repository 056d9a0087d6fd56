"""The tiny-LM recipe resumed after a kill, run twice at once, and over a damaged SFT model folder.

Before: an RL run's per-iteration rows were kept in memory, so a recipe killed after a checkpoint
and re-run wrote ``train_success []``, ``rl_generate_tokens_per_s 0.0`` and ``rl_train_tokens_per_s
None`` where the uninterrupted run had its figures; two ``recipe`` processes on one --out both ran
every stage; a cut ``sft/model.safetensors`` was safetensors' traceback and a cut
``sft/tokenizer.json`` "Expecting value: line 12007 column 5", naming no file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from searchgym.agents.tiny_lm_recipe import Recipe, RecipeConfig
from searchgym.agents.trainer_base import TrainerBase

from searchgym.cli import main
from searchgym.damaged import DamagedFileWarning

CONFIG = {"tokenizer": "shipped", "methods": ("grpo",), "seeds": (0,), "rl_iterations": 3, "group_size": 2,
          "tasks_per_iteration": 2, "test_tasks": 2, "eval_batch": 2, "max_new_tokens": 48, "choice_tasks": 2,
          "rollout": {"max_turns": 3}}
SFT = {"parameters": 100, "sft_steps": 3, "sft_loss": 1.5, "sft_tokens_per_s": 20.0, "kept": 2, "transcripts": 4,
       "worlds": 1}
#: figures measured per process: each run's own
TIMING = ("seconds", "per_s")


@pytest.fixture(scope="module")
def model_folder(tmp_path_factory):
    from searchgym.agents.llm_policy import offline_tokenizer
    from searchgym.agents.tiny_lm import new_tiny_model, save_model_folder

    tokenizer = offline_tokenizer()
    return save_model_folder(new_tiny_model("l2-w128", tokenizer), tokenizer, tmp_path_factory.mktemp("m") / "m")


def _recipe(out):
    return Recipe(RecipeConfig(**CONFIG), out, log=lambda line: None)


def _untimed(record: dict) -> dict:
    return {k: v for k, v in record.items() if not any(word in k for word in TIMING)}


def _rows(folder) -> list[dict]:
    path = folder / "metrics.jsonl"
    return [_untimed(json.loads(line)) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory, model_folder):
    out = tmp_path_factory.mktemp("whole")
    summary = _recipe(out).rl(model_folder, "grpo", 0)
    return summary, out / "rl" / "grpo-s0"


def test_a_run_killed_between_a_row_and_its_checkpoint_resumes_to_the_same_records(
        tmp_path, model_folder, uninterrupted, monkeypatch):
    whole, whole_folder = uninterrupted
    assert len(whole["train_success"]) == 3 and whole["rl_train_tokens_per_s"] is not None
    saves = []

    def save_then_die(self):  # the kill: iteration 2's row is logged, its checkpoint never written
        saves.append(self.state.iteration)
        if len(saves) == 2:
            raise KeyboardInterrupt
        original(self)

    original = TrainerBase.save
    monkeypatch.setattr(TrainerBase, "save", save_then_die)
    with pytest.raises(KeyboardInterrupt):
        _recipe(tmp_path).rl(model_folder, "grpo", 0)
    monkeypatch.setattr(TrainerBase, "save", original)
    folder = tmp_path / "rl" / "grpo-s0"
    assert [row["iteration"] for row in _rows(folder)] == [1, 2]  # a row past the checkpoint (iteration 1)

    resumed = _recipe(tmp_path)
    summary = resumed.rl(model_folder, "grpo", 0)
    assert _untimed(summary) == _untimed(whole)  # before: train_success held iterations 2 and 3 only
    assert summary["rl_train_tokens_per_s"] > 0 and summary["rl_generate_tokens_per_s"] > 0
    assert _rows(folder) == _rows(whole_folder)  # iteration 2 once: redone, not counted twice
    assert json.loads((folder / "eval.json").read_text()) == summary
    assert resumed.resumed["rl_grpo_s0"][0] > 0  # iteration 1's seconds, done by the killed process

    (folder / "eval.json").unlink()  # finished, evaluation to redo: the rows are read back, not lost
    assert _untimed(_recipe(tmp_path).rl(model_folder, "grpo", 0)) == _untimed(whole)


def test_a_checkpoint_without_its_rows_runs_again_from_the_beginning(tmp_path, model_folder, uninterrupted):
    whole, whole_folder = uninterrupted
    folder = tmp_path / "rl" / "grpo-s0"
    shutil.copytree(whole_folder, folder)
    for name in ("eval.json", "test.json", "metrics.jsonl"):  # as the recipe before this left a killed run
        (folder / name).unlink()
    with pytest.warns(DamagedFileWarning, match=r"metrics.jsonl: has no rows of iterations 1, 2, 3.*beginning"):
        summary = _recipe(tmp_path).rl(model_folder, "grpo", 0)
    assert _untimed(summary) == _untimed(whole)


def _finished_sft(out, model_folder):
    shutil.copytree(model_folder, out / "sft")
    (out / "sft" / "sft.json").write_text(json.dumps(SFT))
    return ["recipe", "tiny-lm", "--out", str(out), "--options", json.dumps(CONFIG)]


@pytest.mark.parametrize(("name", "said"), [("model.safetensors", "is cut short"),
                                            ("tokenizer.json", "is not valid JSON")])
def test_a_damaged_sft_model_folder_is_one_line_naming_the_file(tmp_path, model_folder, capsys, name, said):
    command = _finished_sft(tmp_path, model_folder)
    path = tmp_path / "sft" / name
    os.truncate(path, path.stat().st_size // 2)
    assert main(command) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert f"{path}: {said}" in err
    assert f"delete {tmp_path / 'sft'} and {tmp_path / 'rl'} (trained from it) and re-run" in err
    assert not (tmp_path / "rl").exists()


def test_weights_safetensors_cannot_read_are_one_line_naming_the_file(tmp_path, model_folder):
    from searchgym.agents.pretrained import ModelFolderError, from_pretrained
    from transformers import AutoModelForCausalLM

    folder = shutil.copytree(model_folder, tmp_path / "m")
    path = folder / "model.safetensors"
    os.truncate(path, path.stat().st_size // 2)  # the header whole, the tensors cut: past check_model_folder's
    with pytest.raises(ModelFolderError, match=rf"{path} is damaged: safetensors cannot read it \(.*\)$"):
        from_pretrained(AutoModelForCausalLM, str(folder), local_files_only=True)


HOLD = """import sys, time
from searchgym.folder_lock import FolderLock
lock = FolderLock(sys.argv[1])
assert lock.acquire()
print("held", flush=True)
time.sleep(120)
"""


def test_a_second_recipe_process_on_one_folder_is_refused_in_one_line(tmp_path, model_folder, capsys):
    command = _finished_sft(tmp_path, model_folder)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert main(command) == 2
    finally:
        holder.kill()
        holder.wait()
    err = capsys.readouterr().err.strip()
    assert err == (f"searchgym recipe: error: another live process (PID {holder.pid}) is writing {tmp_path}; wait "
                   "for it to finish (then re-run to see its result), or use another --out")
    assert not (tmp_path / "config.json").exists() and not (tmp_path / "rl").exists()  # nothing written
