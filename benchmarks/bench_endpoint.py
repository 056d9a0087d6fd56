"""``searchgym evaluate --agent openai`` against a scripted server on 127.0.0.1: concurrency 1 vs 8.

The server (:mod:`searchgym.endpoint.scripted_endpoint`) replays the oracle's text actions, with
an optional fixed ``--latency`` per request (a stand-in for a model's generation time). Both runs
are measured side by side in one process: wall seconds, CPU seconds (``time.process_time``),
requests served and requests/s, and the speed-up of concurrency 8 over 1. The harness evaluates
the test and the dev split (300 tasks on a text suite).

    python benchmarks/bench_endpoint.py [--suite searchqa-text-v2] [--latency 0.02] [--concurrency 1,8]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

from suite_arg import counts, describe, seconds, suite_of

from searchgym.cli import main as cli
from searchgym.fileio import read_json
from searchgym.endpoint.scripted_endpoint import ScriptedEndpoint


def one_run(suite: str, concurrency: int, latency: float, folder: Path) -> dict:
    with ScriptedEndpoint(suite, "stall" if latency > 0 else "oracle", stall=latency) as endpoint:
        wall, cpu = time.perf_counter(), time.process_time()
        with contextlib.redirect_stdout(io.StringIO()):
            code = cli(["evaluate", "--suite", suite, "--agent", "openai", "--model", "scripted", "--base-url",
                        endpoint.base_url, "--concurrency", str(concurrency), "--out", str(folder), "--no-progress"])
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        requests = endpoint.requests
    if code != 0:
        raise SystemExit(f"evaluate failed (exit {code})")
    result = read_json(folder / "result.json")
    return {"concurrency": concurrency, "wall_s": wall, "cpu_s": cpu, "requests": requests,
            "requests_per_s": requests / wall, "success": result["test"]["all"]["success"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--suite", default="searchqa-text-v2", type=suite_of("text"),
                        help="a text-mode suite, whose oracle the server replays (default searchqa-text-v2)")
    parser.add_argument("--latency", type=seconds, default=0.02, help="seconds the server waits per request (default 0.02)")
    parser.add_argument("--concurrency", type=counts, default=[1, 8], help="comma-separated levels (default 1,8)")
    args = parser.parse_args(argv)
    levels = args.concurrency
    repeated = sorted({level for level in levels if levels.count(level) > 1})
    if repeated:  # before: the second run met the first's folder, "a different run" (the server's port)
        shown = ", ".join(map(str, repeated))
        parser.error(f"argument --concurrency: level(s) {shown} given more than once; give each level once "
                     "(e.g. 1,8)")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for level in levels:
            rows.append(one_run(args.suite, level, args.latency, Path(tmp) / f"c{level}"))
    print(f"suite {args.suite}, server latency {args.latency * 1000:.0f} ms per request (test + dev splits)")
    print("| concurrency | wall s | CPU s | requests | requests/s | test success |\n|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['concurrency']} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | {r['requests']} | "
              f"{r['requests_per_s']:.1f} | {r['success']:.3f} |")
    base = rows[0]
    for r in rows[1:]:
        print(f"concurrency {r['concurrency']} / {base['concurrency']}: wall x{base['wall_s'] / r['wall_s']:.2f} faster, "
              f"requests/s x{r['requests_per_s'] / base['requests_per_s']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
