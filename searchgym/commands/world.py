"""``searchgym world stats``: what a world holds and where its gold facts can be found."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from searchgym.commands import check_world_seed, check_world_size
from searchgym.world import shared_world


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["stats"], help="what to show")
    # --world-seed and --world-size as play, demo and train name them (before: "unrecognized arguments")
    parser.add_argument("--seed", "--world-seed", dest="seed", type=int, default=0, help="world seed (default 0)")
    parser.add_argument("--size", "--world-size", dest="size", default="small",
                        help="tiny, small, medium, large, xl or an int scale in 4..9000 (default small)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def run(args: argparse.Namespace) -> int:
    check_world_seed(args, "--seed")
    world = shared_world(args.seed, check_world_size(args.size))
    stats = asdict(world.stats())
    if args.json:
        print(json.dumps({"seed": args.seed, "size": world.size, "fingerprint": world.fingerprint, **stats}, indent=2))
        return 0
    print(f"world seed={args.seed} size={world.size} clock={world.now.isoformat()} fingerprint={world.fingerprint[:16]}")
    for key in ("entities_by_type", "pages_by_kind", "tasks_by_family", "tasks_by_split"):
        parts = ", ".join(f"{k} {v}" for k, v in stats[key].items())
        print(f"{key.replace('_', ' ')}: {sum(stats[key].values())} ({parts})")
    print(f"facts: {stats['facts']} (knowledge base holds {stats['kb_facts']})")
    total = stats["gold_facts_corpus_only"] + stats["gold_facts_kb_only"] + stats["gold_facts_both"]
    print(f"gold facts used by tasks: {total} (corpus only {stats['gold_facts_corpus_only']}, "
          f"KB only {stats['gold_facts_kb_only']}, both {stats['gold_facts_both']})")
    rates = ", ".join(f"{family} {rate:.3f}" for family, rate in stats["shortcut_rate_by_family"].items())
    print(f"shortcut rate by family (tasks one page answers): {rates}")
    return 0
