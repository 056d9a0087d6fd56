"""The tiny-LM recipe's smoke version end to end (`searchgym recipe tiny-lm --smoke`): every stage
writes its files, the results hold SFT success and each method's gain over the same seeds, a
re-run skips the finished stages, and bad options get a one-line error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from searchgym.cli import main

pytestmark = pytest.mark.slow

SMALL = {"sft_tasks": 6, "sft_worlds": 2, "test_tasks": 4, "eval_batch": 4, "seeds": [0, 1], "max_new_tokens": 48}


def test_smoke_recipe_runs_every_stage_and_resumes(tmp_path: Path, capsys) -> None:
    out = tmp_path / "tiny"
    args = ["recipe", "tiny-lm", "--smoke", "--out", str(out), "--options", json.dumps(SMALL)]
    from transformers.utils import logging as hf_logging

    assert main(args) == 0
    captured = capsys.readouterr()
    printed = captured.out
    assert "tiny-lm recipe: SFT test success" in printed
    # transformers' bars ("Loading weights", "Writing model shards") are off while it runs, and on after
    assert "Loading weights" not in captured.err and "model shards" not in captured.err
    assert hf_logging.is_progress_bar_enabled()
    results = json.loads((out / "results.json").read_text())
    assert results["sft"]["tasks"] == 4 and results["guided"]
    assert results["sft"]["parse_rate"] == 1.0  # guided decoding: every reply parses
    assert results["sft"]["worlds"] == 2 and results["sft"]["played"] == 2 * 6  # SMALL: 6 train tasks per world
    assert "train tasks on 2 worlds (the suite's and the next seed's)" in (out / "RESULTS.md").read_text()
    assert results["sft_free"]["tasks"] == 4 and 0 <= results["sft_free"]["parse_rate"] <= 1
    assert results["cw_grpo_minus_grpo"]["gain_low"] <= results["cw_grpo_minus_grpo"]["gain_high"]
    assert results["cpu_seconds"] > 0
    choices = results["sft"]["choices"]  # teacher-forced, on the reader's dev episodes
    assert choices["tasks"] == 6 and choices["transcripts"] >= 1 and choices["counts"]["act"] >= 1
    assert all(0 <= choices[k] <= 1 for k in ("act", "tool", "arg", "answer") if choices["counts"][k])
    assert "teacher-forced on the reader's solved episodes of 6 dev tasks" in (out / "RESULTS.md").read_text()
    assert set(results["methods"]) == {"grpo", "cw_grpo"}
    for method in results["methods"].values():
        assert method["seeds"] == [0, 1] and len(method["success"]) == 2 and method["parse_rate"] == [1.0, 1.0]
        assert method["gain_low"] <= method["gain"] <= method["gain_high"]
        assert method["rl_generate_tokens_per_s"] > 0
    assert (out / "sft" / "config.json").is_file() and (out / "sft" / "model.safetensors").is_file()
    assert "| grpo | 0, 1 |" in (out / "RESULTS.md").read_text()
    sft_eval = json.loads((out / "sft" / "eval.json").read_text())
    assert len(sft_eval["per_task"]) == 4
    assert main(args) == 0  # every stage is on disk: the re-run reads it back
    again = json.loads((out / "results.json").read_text())
    assert again["methods"] == results["methods"] and again["sft"] == results["sft"]
    # the skipped stages report the seconds they took when they ran (the tokenizer is rebuilt, not skipped)
    kept = {name: seconds for name, seconds in results["stage_seconds"].items() if name != "tokenizer"}
    assert kept and {name: again["stage_seconds"][name] for name in kept} == kept
    # other settings into the same folder are refused (before: the stages were skipped as done, and the
    # results claimed the new shape and learning rate over the old model)
    capsys.readouterr()
    other = ["recipe", "tiny-lm", "--smoke", "--out", str(out), "--options", json.dumps({**SMALL, "sft_lr": 0.1})]
    assert main(other) == 2
    assert "holds a recipe run with other settings (sft_lr: " in capsys.readouterr().err
    assert json.loads((out / "results.json").read_text()) == again


def test_bad_options_are_refused_in_one_line(tmp_path: Path, capsys) -> None:
    assert main(["recipe", "tiny-lm", "--out", str(tmp_path), "--options", '{"shape": "huge"}']) != 0
    assert "unknown tiny LM shape 'huge'; accepted: l2-w128" in capsys.readouterr().err
    assert main(["recipe", "tiny-lm", "--out", str(tmp_path), "--options", '{"layers": 3}']) != 0
    assert "unknown recipe option(s) ['layers']" in capsys.readouterr().err
    assert main(["recipe", "tiny-lm", "--out", str(tmp_path), "--options", '{"methods": ["ppo"]}']) != 0
    assert "accepted: grpo, cw_grpo, dr_grpo" in capsys.readouterr().err
    assert main(["recipe", "tiny-lm", "--out", str(tmp_path), "--options", '{"device": "gpu"}']) != 0
    assert "unknown device 'gpu'; accepted: auto, cpu, cuda or cuda:N (N a GPU index)" in capsys.readouterr().err
    # before: test_tasks 0 failed after every stage had run; the others late or in another's words
    for options, said in (('{"test_tasks": 0}', "RecipeConfig.test_tasks must be an int >= 1 or None"),
                          ('{"model_seed": -1}', "RecipeConfig.model_seed must be an int in 0.."),
                          ('{"sft_lr": -1}', "RecipeConfig.sft_lr must be a finite number > 0, got -1"),
                          ('{"sft_epochs": 0}', "RecipeConfig.sft_epochs must be a finite number > 0, got 0"),
                          ('{"suite": "searchqa-v2"}', "the recipe trains on a single-agent text suite"),
                          # before: taken, and the recipe ran on for good
                          ('{"rl_iterations": 1000000000000}',
                           "RecipeConfig.rl_iterations must be an int in 1..100000, got 1000000000000"),
                          ('{"sft_epochs": 1e9}', "RecipeConfig.sft_epochs must be at most 1000, got 1000000000.0"),
                          ('{"group_size": 10000}', "RecipeConfig.group_size must be an int in 1..64")):
        assert main(["recipe", "tiny-lm", "--out", str(tmp_path / "x"), "--options", options]) == 2
        assert said in capsys.readouterr().err and not (tmp_path / "x").exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU error")
def test_cuda_without_a_gpu_is_refused_before_any_stage(tmp_path: Path, capsys) -> None:
    assert main(["recipe", "tiny-lm", "--out", str(tmp_path / "run"), "--options", '{"device": "cuda"}']) != 0
    assert "device 'cuda' was asked for but torch sees no CUDA GPU" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_an_out_that_is_a_file_is_one_line_naming_the_flag(tmp_path: Path, capsys) -> None:
    """Before: a warning that <file>/stage_seconds.json could not be opened came first, then "File exists"."""
    taken = tmp_path / "a_file"
    taken.write_text("mine\n")
    assert main(["recipe", "tiny-lm", "--smoke", "--out", str(taken)]) == 2
    assert capsys.readouterr().err.strip() == (f"searchgym recipe: error: --out {taken} is a file, not a folder; "
                                               "give the recipe's folder (or a path not yet made)")
    assert taken.read_text() == "mine\n"
