"""``searchgym leaderboard submit|verify|build``.

- ``submit RUN_DIR [--name NAME] [--description TEXT] [--url URL] [--out FILE]``: write a
  submission from a finished run folder (default file: ./leaderboard/submissions/<suite>__<name>__seed<k>.json);
- ``verify FILE...``: accept or reject each file, with the reason (exit 1 if any is rejected);
- ``build [--dir leaderboard]``: verify ``DIR/submissions/*.json`` and write ``DIR/README.md``
  and ``DIR/index.html`` from the accepted ones (exit 1 if any was rejected).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from searchgym.leaderboard import DEFAULT_DIR, build, build_submission, verify_file, write_submission


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    submit = sub.add_parser("submit", help="write a submission from a finished run folder")
    submit.add_argument("run_dir", type=Path, help="a run folder (with config.json, predictions.jsonl, DONE)")
    submit.add_argument("--name", help="method name shown on the board (default: the run's method label)")
    submit.add_argument("--description", help="one or two sentences: what the method is")
    submit.add_argument("--url", help="a link to the paper or code (http or https)")
    submit.add_argument("--out", type=Path, help="file to write (default: DIR/submissions/<suite>__<name>__seed<k>.json)")
    submit.add_argument("--dir", type=Path, default=DEFAULT_DIR,
                        help="leaderboard folder for the default file name (default: ./leaderboard)")
    verify = sub.add_parser("verify", help="re-score submissions and accept or reject each")
    verify.add_argument("files", nargs="+", type=Path)
    board = sub.add_parser("build", help="write README.md and index.html from the verified submissions")
    board.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="leaderboard folder holding submissions/ (default: ./leaderboard)")


def run(args: argparse.Namespace) -> int:
    if args.action == "submit":
        submission = build_submission(args.run_dir, args.name, args.description, args.url)
        path = write_submission(submission, args.out, folder=Path(args.dir) / "submissions")
        verdict = verify_file(path)
        state = "verified" if verdict.ok else f"REJECTED: {verdict.reason}"
        print(f"wrote {path} ({submission['suite']['id']}, {submission['method']['name']}, "
              f"success {submission['metrics']['success']:.3f}): {state}")
        return 0 if verdict.ok else 1
    if args.action == "verify":
        rejected = 0
        for path in args.files:
            verdict = verify_file(path)
            if verdict.ok:
                m = verdict.verified.metrics
                print(f"OK       {path}: success {m['success']:.3f}, f1 {m['f1']:.3f}")
            else:
                rejected += 1
                print(f"REJECTED {path}: {verdict.reason}")
        return 1 if rejected else 0
    if not (Path(args.dir) / "submissions").is_dir():
        raise FileNotFoundError(f"no submissions/ folder in {args.dir}; pass the leaderboard folder with --dir "
                                "(default: ./leaderboard)")
    verdicts, readme, page = build(args.dir)
    for v in verdicts:
        if not v.ok:
            print(f"REJECTED {v.path}: {v.reason}")
    accepted = sum(v.ok for v in verdicts)
    print(f"{accepted} verified submission(s) of {len(verdicts)}; wrote {readme} and {page}")
    return 0 if accepted == len(verdicts) else 1
