"""How many rounds does the reader need, per family, and would a suite with more rounds score higher?

    .venv/bin/python benchmarks/reader_rounds.py --suite quick-v2 --rounds 4,5,6,8,12

Plays the reader (``searchgym.baselines.reader``) on the suite's test split once per round limit
(``max_rounds`` for teams, ``max_steps`` for single agents and groups; evaluation seed 0, as
``searchgym compare`` uses for seed 0) and prints per family: success, the mean and largest number
of rounds used, and for comparisons their 0.5 chance rate. ``--orders`` adds runs with other
look-up orders and without the team rotation, at the suite's own limit.
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np
from searchgym.baselines.reader import ReaderActor, ReaderPolicy
from suite_arg import counts, suite_of

from searchgym.harness.evaluate import evaluate_suite
from searchgym.suites import get_suite, make_env

KB_FIRST = ("knowledge_base", "web_search")


def measure(suite_id: str, limit: int | None, order: tuple[str, ...], rotate: bool) -> dict[str, tuple]:
    """family -> (tasks, success, mean rounds, most rounds), plus "all"."""
    suite = get_suite(suite_id)
    key = "max_rounds" if "max_rounds" in suite.kwargs else "max_steps"
    env = make_env(suite, "test", **({key: limit} if limit else {}))
    predictions = evaluate_suite(suite, ReaderActor(ReaderPolicy(order, rotate)), "test", seed=0, env=env)
    groups = defaultdict(list)
    for p in predictions:
        groups[p.family].append(p)
        groups["all"].append(p)
    return {family: (len(ps), float(np.mean([p.success for p in ps])), float(np.mean([p.steps for p in ps])),
                     int(max(p.steps for p in ps)))
            for family, ps in sorted(groups.items(), key=lambda item: (item[0] == "all", item[0]))}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", default="quick-v2", type=suite_of("candidates"),
                        help="candidate-mode suite whose test split is played (default quick-v2)")
    parser.add_argument("--rounds", type=counts, default=[], help="comma list of round limits (default: the suite's own)")
    parser.add_argument("--orders", action="store_true", help="also web_search first, and no team rotation")
    args = parser.parse_args(argv)
    suite = get_suite(args.suite)
    own = suite.kwargs.get("max_rounds", suite.kwargs.get("max_steps"))
    runs = [(r, KB_FIRST, True) for r in args.rounds] or [(own, KB_FIRST, True)]
    if args.orders:
        runs += [(own, KB_FIRST[::-1], True), (own, KB_FIRST, False), (own, KB_FIRST[::-1], False)]
    print(f"reader on {suite.id} test (evaluation seed 0); cells: success (mean rounds, most rounds)")
    for limit, order, rotate in runs:
        table = measure(suite.id, limit, order, rotate)
        cells = [f"{family} {s:.3f} ({mean:.2f}, {most})" + (" [chance 0.5]" if family == "comparison" else "")
                 for family, (_, s, mean, most) in table.items()]
        print(f"limit {limit}, {order[0]} first, rotation {'on' if rotate else 'off'}: " + "; ".join(cells),
              flush=True)


if __name__ == "__main__":
    main()
