"""``searchgym suites``: the versioned suites, their definitions and content hashes."""

from __future__ import annotations

import argparse
import json

from searchgym.suites import get_suite, list_suites, tasks


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ids", nargs="*", help="suite ids to show (default: all)")
    parser.add_argument("--json", action="store_true", help="print JSON (full hashes, task counts)")


def run(args: argparse.Namespace) -> int:
    suites = [get_suite(i) for i in args.ids] if args.ids else list_suites()
    rows = []
    for s in suites:
        counts = {split: len(tasks(s, split)) for split in ("train", "dev", "test")}
        rows.append({**s.definition(), "description": s.description, "tasks": counts, "hash": s.content_hash})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    width = max(len(r["id"]) for r in rows)
    env_width = max(len(r["env_id"]) for r in rows)
    print(f"{'suite':<{width}}  {'hash':<16}  {'env':<{env_width}}  world        train/dev/test  families")
    for r in rows:
        families = ",".join(r["families"]) if r["families"] else "all"
        level = f" ({r['difficulty']})" if r["difficulty"] else ""
        counts = "/".join(str(r["tasks"][s]) for s in ("train", "dev", "test"))
        print(f"{r['id']:<{width}}  {r['hash'][:16]}  {r['env_id']:<{env_width}}  "
              f"{r['world_size']:<6} s{r['world_seed']:<4} {counts:<14}  {families}{level}")
        print(f"{'':<{width}}  {r['description']}; env kwargs {json.dumps(r['env_kwargs'])}")
    return 0
