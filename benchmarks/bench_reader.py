"""The reader's cost per demonstrated decision, with and without the memoised sentence parser.

Why: the supervised base of ``make main`` is most of its CPU, and the reader's demonstrations are
a large part of the base; ``sentence_facts`` matches each page sentence against every sentence
pattern, and an episode shows the same sentences again and again. Both variants play the same
train tasks of the main suite's env in one process, alternating, and must choose the same actions.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_reader.py --tasks 200 --repeats 2
"""

from __future__ import annotations

import argparse
import time

from script_extras import require_extras
from suite_arg import count, describe, suite_of

from searchgym.baselines import reader_observation
from searchgym.baselines.reader import ReaderActor, ReaderPolicy
from searchgym.suites import get_suite, make_env, tasks

#: The memoised parser as the module defines it (``__wrapped__`` is the plain one).
MEMOISED = reader_observation._sentence_facts


def play(env, chosen_tasks, memoised: bool) -> tuple[float, float, list[int]]:
    """(wall s, CPU s, the demonstrated actions) of one pass; the memo starts empty."""
    from searchgym.agents.imitation import demonstrations  # torch: checked in main

    MEMOISED.cache_clear()
    reader_observation._sentence_facts = MEMOISED if memoised else MEMOISED.__wrapped__
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        examples, _ = demonstrations(env, ReaderActor(ReaderPolicy()), chosen_tasks, 0)
        return time.perf_counter() - wall, time.process_time() - cpu, examples.action
    finally:
        reader_observation._sentence_facts = MEMOISED



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--suite", default="quick-v2", type=suite_of("candidates"),
                        help="candidate-mode suite whose train tasks the reader plays (default quick-v2)")
    parser.add_argument("--tasks", type=count, default=200,
                        help="the split's last N train tasks (multi-hop ones; default 200)")
    parser.add_argument("--repeats", type=count, default=2, help="alternating pairs of passes (default 2)")
    args = parser.parse_args(argv)
    require_extras(__file__, ["torch"])
    suite = get_suite(args.suite)
    env = make_env(suite, "train")
    chosen = tasks(suite, "train")[-args.tasks:]
    rows = []
    for _ in range(args.repeats):
        for memoised in (False, True):
            rows.append((memoised, *play(env, chosen, memoised)))
    same = all(r[3] == rows[0][3] for r in rows)
    n = len(rows[0][3])
    for memoised, wall, cpu, _ in rows:
        print(f"{'memoised' if memoised else 'parsed  '}  {n} decisions  wall {wall:6.2f} s  CPU {cpu:6.2f} s  "
              f"{1e3 * cpu / n:6.3f} CPU-ms per decision")
    cpu_off = sum(r[2] for r in rows if not r[0])
    cpu_on = sum(r[2] for r in rows if r[0])
    print(f"CPU ratio parsed / memoised: {cpu_off / cpu_on:.2f}x; same actions: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
