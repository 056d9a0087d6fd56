"""``searchgym suites``: the versioned suites, their definitions and content hashes.

The families shown are those each split's tasks hold (a capped or difficulty-filtered split may
lack some of the suite's families; a curriculum's train split may hold more), not the definition's.
A suite that cannot be built (a user's) is named on stderr, after the others, with exit status 1.
"""

from __future__ import annotations

import argparse
import json
import sys

from searchgym.suites import Suite, get_suite, list_suites, tasks
from searchgym.world.model import Task
from searchgym.world.world import SPLITS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ids", nargs="*", help="suite ids to show (default: all)")
    parser.add_argument("--json", action="store_true", help="print JSON (full hashes, task counts)")


def families_in(suite: Suite, chosen: list[Task]) -> list[str]:
    """The families the tasks hold: in the suite's family order, then any others by name."""
    present = {t.family for t in chosen}
    order = [f for f in (suite.families_for("train") or ()) + (suite.families or ()) if f in present]
    return list(dict.fromkeys(order)) + sorted(present - set(order))


def split_families(by_split: dict[str, list[str]]) -> str:
    """One list when every split holds the same families, else "train: ...; dev, test: ..."."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for split, families in by_split.items():
        groups.setdefault(tuple(families), []).append(split)
    if len(groups) == 1:
        return ",".join(next(iter(groups)))
    return "; ".join(f"{', '.join(splits)}: {','.join(families)}" for families, splits in groups.items())


def suite_row(s: Suite) -> dict:
    """What the command shows of one suite (building its tasks and hash)."""
    chosen = {split: tasks(s, split) for split in SPLITS}
    counts = {split: len(chosen[split]) for split in SPLITS}
    return {**s.definition(), "description": s.description, "tasks": counts, "hash": s.content_hash,
            "families_by_split": {split: families_in(s, chosen[split]) for split in SPLITS}}


def run(args: argparse.Namespace) -> int:
    """Exit status 1 when a suite cannot be built: the others are listed, and it is named on stderr."""
    # an id given twice is shown once (it was listed, and its tasks built, once per mention)
    suites = [get_suite(i) for i in dict.fromkeys(args.ids)] if args.ids else list_suites()
    rows, broken = [], []
    for s in suites:
        try:
            rows.append(suite_row(s))
        except Exception as exc:  # noqa: BLE001 (one bad suite, a user's, failed the listing of every suite)
            broken.append(f"searchgym suites: suite {s.id} cannot be built: {type(exc).__name__}: "
                          f"{' '.join(str(exc).split())}")
    if args.json:
        print(json.dumps(rows, indent=2))
    elif rows:
        print_table(rows)
    sys.stdout.flush()  # the listing first, then what could not be listed
    for line in broken:
        print(line, file=sys.stderr)
    return 1 if broken else 0


def print_table(rows: list[dict]) -> None:
    width = max(len(r["id"]) for r in rows)
    env_width = max(len(r["env_id"]) for r in rows)
    print(f"{'suite':<{width}}  {'hash':<16}  {'env':<{env_width}}  world        train/dev/test  families")
    for r in rows:
        families = split_families(r["families_by_split"])
        level = f" ({r['difficulty']})" if r["difficulty"] else ""
        counts = "/".join(str(r["tasks"][s]) for s in ("train", "dev", "test"))
        print(f"{r['id']:<{width}}  {r['hash'][:16]}  {r['env_id']:<{env_width}}  "
              f"{r['world_size']:<6} s{r['world_seed']:<4} {counts:<14}  {families}{level}")
        print(f"{'':<{width}}  {r['description']}; env kwargs {json.dumps(r['env_kwargs'])}")
        if "registered_tools" in r:
            print(f"{'':<{width}}  registered tools: {', '.join(r['registered_tools'])}")
