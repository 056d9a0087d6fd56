"""Leaderboard submissions on the text-mode suites: the oracle, random, and one scripted endpoint.

For each text suite (``searchgym suites``: ``*-text-v2``) this runs, in one process:

1. ``searchgym evaluate --agent oracle`` and ``--agent random``;
2. ``searchgym evaluate --agent openai`` against a scripted OpenAI-compatible server on
   127.0.0.1 that replays the oracle's text actions (see
   :mod:`searchgym.endpoint.scripted_endpoint`): the whole endpoint path (requests, replies,
   replay into the harness) must score what the oracle scores;

then ``searchgym leaderboard submit`` for each run and ``leaderboard verify`` for every file
written (exit 1 if any is rejected). Suite hashes change when a suite's world, tasks or
scoring rules change; re-run this to regenerate the files, and ``searchgym leaderboard build``.
A re-run into the same ``--runs`` shows the finished runs again (their files as before) and resumes
an unfinished one; after a suite's hash changed, give it a new ``--runs`` (the old runs are refused).

    python benchmarks/text_suite_submissions.py [--suites ID,...] [--runs runs/text-suites]
        [--out leaderboard/submissions] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
import time
from pathlib import Path

from suite_arg import count, describe, flagged, new_folder

from searchgym.cli import main as cli
from searchgym.endpoint.scripted_endpoint import ScriptedEndpoint
from searchgym.fileio import read_json
from searchgym.harness.runner import is_done
from searchgym.leaderboard import build_submission, write_submission
from searchgym.leaderboard_checks import verify_file
from searchgym.text_suites import text_suite_ids

DESCRIPTIONS = {
    "oracle": "follows the gold evidence chain through the tools, writing Hermes tool calls; no training (upper bound)",
    "random": "a uniformly random admissible action, written as a Hermes tool call; no training (lower bound)",
    "scripted-endpoint": "searchgym evaluate --agent openai against a scripted OpenAI-compatible server on "
                         "127.0.0.1 that replays the oracle's text actions (checks the endpoint path end to end)",
}


def evaluate(suite: str, agent: str, folder: Path, extra: list[str]) -> None:
    code = cli(["evaluate", "--suite", suite, "--agent", agent, "--name", folder.name, "--out", str(folder),
                "--no-progress", *extra])
    if code != 0:
        raise SystemExit(f"searchgym evaluate failed on {suite} for {agent} (exit {code})")


#: The URL of a scripted server on 127.0.0.1 (ScriptedEndpoint.base_url), its port captured.
SCRIPTED_URL = re.compile(r"http://127\.0\.0\.1:(\d{1,5})/v1")


def recorded_port(folder: Path) -> int:
    """The port of the scripted server that an earlier run in ``folder`` recorded (0: none, take a free one).
    Why: the server takes a free port each run, and a run's URL is part of its identity, so a re-run was
    "a different run"; on the recorded port it is the same play, shown again or resumed."""
    try:
        url = read_json(folder / "config.json", expect=dict)["options"]["agent_options"]["base_url"]
    except (OSError, ValueError, KeyError, TypeError):  # no run there, or a damaged one: the harness says
        return 0
    match = SCRIPTED_URL.fullmatch(url) if isinstance(url, str) else None
    return int(match.group(1)) if match and 0 < int(match.group(1)) < 65536 else 0


def evaluate_scripted(suite: str, folder: Path, concurrency: int) -> None:
    """``evaluate --agent openai`` against a scripted server replaying the oracle, on the port an earlier
    run in ``folder`` recorded; a finished run is shown again without a server (its port may be taken)."""
    port = recorded_port(folder)

    def flags(url: str) -> list[str]:
        return ["--model", "scripted-oracle", "--base-url", url, "--concurrency", str(concurrency)]

    if port and is_done(folder):
        evaluate(suite, "openai", folder, flags(f"http://127.0.0.1:{port}/v1"))
        return
    with contextlib.ExitStack() as stack:
        try:
            endpoint = stack.enter_context(ScriptedEndpoint(suite, "oracle", port=port))
        except OSError as exc:
            raise SystemExit(f"{folder} holds an unfinished run played by a scripted server on port {port}, "
                             f"which cannot be opened now ({exc.strerror or exc}); free the port, or delete "
                             f"{folder} to play it again") from None
        evaluate(suite, "openai", folder, flags(endpoint.base_url))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--suites", default=",".join(text_suite_ids()),
                        help="comma-separated suite ids (default %(default)s)")
    parser.add_argument("--runs", type=flagged(new_folder, "--runs"), default=Path("runs/text-suites"),
                        help="run folders (default runs/text-suites)")
    parser.add_argument("--out", type=flagged(new_folder, "--out"), default=Path("leaderboard/submissions"),
                        help="submission folder (default %(default)s)")
    parser.add_argument("--concurrency", type=count, default=8, help="endpoint requests in flight (default 8)")
    args = parser.parse_args(argv)
    suites = [s.strip() for s in args.suites.split(",") if s.strip()]
    if not suites or set(suites) - set(text_suite_ids()):
        parser.error(f"argument --suites: {args.suites!r} is not a comma list of text suites among "
                     f"{', '.join(text_suite_ids())}")
    written = []
    for suite in suites:
        for agent in ("oracle", "random", "scripted-endpoint"):
            folder = args.runs / suite / agent
            start = time.perf_counter()
            if agent == "scripted-endpoint":
                evaluate_scripted(suite, folder, args.concurrency)
            else:
                evaluate(suite, agent, folder, [])
            submission = build_submission(folder, agent, DESCRIPTIONS[agent])
            written.append(write_submission(submission, folder=args.out))
            print(f"{suite} {agent}: {time.perf_counter() - start:.1f} s -> {written[-1]}", flush=True)
    rejected = 0
    for path in written:
        verdict = verify_file(path)
        rejected += not verdict.ok
        print(("OK       " if verdict.ok else "REJECTED ") + f"{path}" + ("" if verdict.ok else f": {verdict.reason}"))
    return 1 if rejected else 0


if __name__ == "__main__":
    sys.exit(main())
