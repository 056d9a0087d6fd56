"""benchmarks/gpu_check.py: without CUDA it says so and exits 0; --cpu-smoke runs every part tiny."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import torch

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "gpu_check.py"


def load_script():
    spec = importlib.util.spec_from_file_location("gpu_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-CUDA message")
def test_without_cuda_it_measures_nothing_and_says_so(capsys) -> None:
    assert load_script().main([]) == 0
    assert "CUDA is not available" in capsys.readouterr().out


def test_cpu_smoke_runs_every_part(tmp_path: Path, capsys) -> None:
    threads = torch.get_num_threads()
    try:
        code = load_script().main(["--cpu-smoke", "--json", str(tmp_path / "figures.json")])
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out
    assert code == 0, out
    figures = json.loads((tmp_path / "figures.json").read_text())
    assert json.loads(out.strip().splitlines()[-1].removeprefix("GPU_CHECK_JSON ")) == figures
    for part in ("a_hf_candidate_frozen_backbone", "a_hf_candidate_trained_backbone"):
        assert figures[part]["steps_per_s"] > 0 and figures[part]["env_steps_timed"] > 0
    llm = figures["b_llm_rollouts_and_update"]
    assert 0 < llm["generated_tokens"] <= 2 * 2 * 8  # G=2 rollouts x 2 turns x at most 8 tokens
    assert llm["generated_tokens_per_s"] > 0 and llm["update_s"] > 0 and llm["scored_tokens"] == llm["generated_tokens"]
    assert llm["peak_gib_update"] is None  # no GPU memory to report on CPU
    generation = figures["c_generation_transformers_vs_vllm"]
    assert generation["transformers_tokens_per_s"] > 0 and generation["new_tokens"] == 4
    assert generation["vllm"] == "not run: vLLM needs a GPU" and "vllm_tokens_per_s" not in generation
    recipe = figures["d_recipe_sft_then_rl"]
    assert recipe["sft_steps"] >= 1 and recipe["sft_transcripts"] >= 1 and recipe["sft_tokens_per_s"] > 0
    assert recipe["rl_backend"] == "kv" and recipe["rl_iterations"] == 1 and recipe["rl_generated_tokens_per_s"] > 0


def test_recipe_part_takes_a_local_model_folder(tmp_path: Path) -> None:
    from searchgym.agents.llm_policy import offline_tokenizer
    from searchgym.agents.tiny_lm import new_tiny_model, save_model_folder

    tokenizer = offline_tokenizer()
    folder = save_model_folder(new_tiny_model("l2-w128", tokenizer, seed=2), tokenizer, tmp_path / "local")
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        figures = load_script().recipe_part(torch.device("cpu"), True, str(folder))
    finally:
        torch.set_num_threads(threads)
    assert figures["model"] == str(folder) and figures["sft_steps"] >= 1 and figures["rl_backend"] == "kv"


def test_parts_runs_only_the_parts_named(tmp_path: Path, capsys) -> None:
    threads = torch.get_num_threads()
    try:
        code = load_script().main(["--cpu-smoke", "--parts", "c", "--json", str(tmp_path / "figures.json")])
    finally:
        torch.set_num_threads(threads)
    assert code == 0
    figures = json.loads((tmp_path / "figures.json").read_text())
    assert [k for k, v in figures.items() if isinstance(v, dict)] == ["c_generation_transformers_vs_vllm"]
    with pytest.raises(SystemExit):
        load_script().main(["--cpu-smoke", "--parts", "e"])
    assert "--parts takes letters among a, b, c and d" in capsys.readouterr().err
