"""``searchgym leaderboard submit|verify|build``.

- ``submit RUN_DIR [--name NAME] [--description TEXT] [--url URL] [--out FILE]``: write a
  submission from a finished run folder (default file: ./leaderboard/submissions/<suite>__<name>__seed<k>.json);
- ``verify FILE...``: accept or reject each file, with the reason (exit 1 if any is rejected);
- ``build [--dir leaderboard]``: verify ``DIR/submissions/*.json`` and write ``DIR/README.md``
  and ``DIR/index.html`` from the accepted ones (exit 1 if any was rejected);
- ``retrain FILE [--out DIR] [--keep] [--device cpu] [--record] [--dir leaderboard]``: re-run the
  submission's recorded run config (in a temporary folder, removed when done, without ``--out`` or
  ``--keep``) and compare its predictions (exit 1 if they differ); with
  ``--record``, note the outcome in ``DIR/retrained.json`` so the page marks the row re-trained.
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
from pathlib import Path

from searchgym.fileio import check_folder_can_be_made, not_a_folder
from searchgym.leaderboard import (
    DEFAULT_DIR,
    build,
    build_submission,
    check_replaces_only_itself,
    check_run_not_on_board,
    holds_the_same,
    read_existing,
    submission_path,
    write_submission,
)
from searchgym.leaderboard_checks import load_schema, verify_file
from searchgym.shown import terminal_safe


def file_path(text: str) -> Path:
    """A submission file as typed. Why: ``--out subs/`` (a folder meant) wrote a file named ``subs``."""
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty; give the file to write (or leave --out out for the default)")
    if text.endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(f"{text!r} ends in '/', a folder; give the file to write "
                                         "(FOLDER/NAME.json), or --dir FOLDER for the default file name")
    return Path(text)


def check_board_dir(text: str | os.PathLike, inside: str = "", made_if_missing: bool = True) -> Path:
    """``--dir`` as a Path once it can hold the leaderboard's files (``inside`` it): every part of the path
    that exists is a writable folder. Why: `retrain --record --dir FILE` re-trained for minutes, then
    failed the record with "choose another --out"; `submit --dir FILE` named --out too.
    ``made_if_missing``: whether the command makes a --dir not made yet (``build`` reads one that holds
    submissions/, so "or a path not yet made" was advice that could not help it)."""
    if not str(text).strip():
        raise ValueError("--dir is empty; give the leaderboard folder, or leave --dir out for ./leaderboard")
    folder = Path(text)
    for part in (folder / inside, *(folder / inside).parents):
        if not os.path.lexists(part):
            continue
        what = not_a_folder(part)  # before: its own words ("a broken link", naming no target)
        if what is not None:
            if part == folder:
                accepted = "(or a path not yet made)" if made_if_missing else "(the one holding submissions/)"
                raise ValueError(f"--dir {text} is {what}, not a folder; give the leaderboard folder {accepted} "
                                 "with --dir, or move that file")
            raise ValueError(f"--dir {text} cannot be a folder: {part} is {what}; move it or choose another --dir")
        if not os.access(part, os.W_OK | os.X_OK):
            raise ValueError(f"--dir {text} cannot be written: {part} is a folder this user may not write into; "
                             "check its permissions or choose another --dir")
        break
    return folder


def check_out_file(out: Path) -> Path:
    """``submit --out`` once its folder can hold it: it is no folder itself, every existing part of the
    path above it is a folder, and in the nearest one something can be made (a probe folder, made and
    removed). Why: a folder as --out, a broken link, a file or an unwritable folder above it failed
    (exit 1) only once the run had been read and scored, a broken link named without --out and a file
    as "File exists"."""
    if out.is_dir():  # a link to a folder too
        raise ValueError(f"--out {out} is a folder, not a file; give the file to write ({out / 'NAME.json'}, "
                         "say), or leave --out out for the default file name under --dir")
    for part in out.parents:
        if not os.path.lexists(part):
            continue
        what = not_a_folder(part)
        if what is not None:
            raise ValueError(f"--out {out} cannot be written: {part} is {what}, not a folder; move it or choose "
                             "another --out")
        try:
            os.rmdir(tempfile.mkdtemp(prefix=".searchgym-probe-", dir=part))
        except OSError as exc:
            raise ValueError(f"--out {out} cannot be written: nothing can be made in {part} "
                             f"({exc.strerror or exc}); choose another --out") from None
        break
    return out


def check_url(url: str | None) -> None:
    """A usage error (exit 2) naming the accepted schemes unless ``--url`` is what the schema takes.
    Why: ``--url ftp://x`` was a "schema violation at method/url", as if the file were at fault."""
    if url is None:
        return
    rule = load_schema()["properties"]["method"]["properties"]["url"]
    accepted = (f"--url must be in the accepted form ({rule.get('description', 'an http:// or https:// link')}; "
                f"at most {rule['maxLength']} characters)")
    if not url.strip():
        raise ValueError(f"{accepted}, or left out; it is empty")
    if len(url) <= rule["maxLength"] and re.fullmatch(rule["pattern"].removeprefix("^").removesuffix("$"), url):
        return
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", url)
    if scheme is None:
        why = "no scheme; accepted schemes: http, https"
    elif scheme.group(1) not in ("http", "https"):
        why = f"scheme {scheme.group(1)[:20]!r}; accepted schemes: http, https (lower case)"
    elif len(url) > rule["maxLength"]:
        why = f"{len(url)} characters"
    else:
        why = "whitespace, a quote or an angle bracket in it, or no // after the scheme"
    raise ValueError(f"{accepted}, got {url[:80]!r}{'...' if len(url) > 80 else ''} ({why})")


def check_name_and_description(name: str | None, description: str | None) -> None:
    """A usage error naming ``--name`` or ``--description`` unless the schema takes it. Why: a name
    with a slash, a newline in a description or one too long was a "schema violation at
    method/name" once the submission was built, as if the run's files were at fault (``check_url``)."""
    from searchgym.leaderboard_checks import FORBIDDEN_CHARS

    rules = load_schema()["properties"]["method"]["properties"]
    if name is not None:
        rule = rules["name"]
        if not re.fullmatch(rule["pattern"].removeprefix("^").removesuffix("$"), name) or ".." in name:
            raise ValueError(f"--name must be 1 to 64 characters: {rule['description']}, starting with a letter or "
                             f"digit; got {name[:80]!r}")
    limit, description = rules["description"]["maxLength"], description or ""
    if len(description) > limit:
        raise ValueError(f"--description is {len(description)} characters; at most {limit} are accepted")
    found = FORBIDDEN_CHARS.search(description)
    if found is not None:
        raise ValueError(f"--description holds the control character {found.group()!r} at position {found.start()} "
                         "(a newline or tab too); write it on one line, without control characters")


def board_folder(text: str) -> Path:
    """``build --dir`` as typed. Why: an empty one was read as the current folder ("no submissions/
    folder in ."), where ``submit`` and ``retrain`` say it is empty."""
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty; give the leaderboard folder, or leave --dir out for ./leaderboard")
    return Path(text)


def shown(path: str | Path) -> str:
    """A file name as printed in a verdict: control characters escaped (``terminal_safe``, newlines and
    tabs too), so one file's verdict is one line. Why: a name holding a newline printed a line of its
    own ("OK fine.json ...") and escape sequences reached the terminal."""
    return terminal_safe(str(path)).replace("\n", "\\n").replace("\t", "\\t")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    submit = sub.add_parser("submit", help="write a submission from a finished run folder")
    submit.add_argument("run_dir", help="a run folder (with config.json, predictions.jsonl, DONE)")
    submit.add_argument("--name", help="method name shown on the board (default: the run's method label)")
    submit.add_argument("--description", help="one or two sentences: what the method is")
    submit.add_argument("--url", help="a link to the paper or code (http or https)")
    submit.add_argument("--out", type=file_path, help="file to write (default: DIR/submissions/<suite>__<name>__seed<k>.json)")
    submit.add_argument("--dir", default=DEFAULT_DIR,
                        help="leaderboard folder for the default file name (default: ./leaderboard)")
    verify = sub.add_parser("verify", help="re-score submissions and accept or reject each")
    verify.add_argument("files", nargs="+", type=Path, metavar="FILE",
                        help="submission files (JSON, as `submit` writes them)")
    board = sub.add_parser("build", help="write README.md and index.html from the verified submissions")
    board.add_argument("--dir", type=board_folder, default=DEFAULT_DIR, help="leaderboard folder holding submissions/ (default: ./leaderboard)")
    again = sub.add_parser("retrain", help="re-run a submission's recorded config and compare (maintainers)")
    again.add_argument("file", type=Path, metavar="FILE",
                       help="a submission file (JSON) whose recorded run config is re-run")
    again.add_argument("--out", type=Path, help="folder for the re-run, kept (default: a new temporary folder, "
                                                "removed when done unless --keep)")
    again.add_argument("--keep", action="store_true",
                       help="keep the temporary folder of the re-run (an --out folder is always kept)")
    again.add_argument("--device", default="cpu", help="device for the re-run (default cpu)")
    again.add_argument("--record", action="store_true", help="write the outcome to DIR/retrained.json")
    again.add_argument("--dir", default=DEFAULT_DIR, help="leaderboard folder (default: ./leaderboard)")


def run(args: argparse.Namespace) -> int:
    if args.action == "submit":
        if not args.run_dir.strip():  # before: "" was read as ".", "'.' is not a finished run folder"
            raise ValueError("RUN_DIR is empty; give a run folder, e.g. runs/mine/runs/<method>/seed0")
        if args.out is None:
            check_board_dir(args.dir, "submissions")
        else:  # before the run is read (before: a broken link above --out failed once the run was scored)
            check_out_file(args.out)
        if args.name is not None and not args.name.strip():  # before: "" fell back to the run's label silently
            raise ValueError("--name is empty; give the method name the board shows, or leave --name out "
                             "for the run's method label")
        check_url(args.url)
        check_name_and_description(args.name, args.description)
        submission = build_submission(args.run_dir, args.name, args.description, args.url)
        path = submission_path(submission, args.out, folder=Path(args.dir) / "submissions")
        existing = read_existing(path)  # read once: the file could change between two reads
        check_replaces_only_itself(path, submission, existing)
        if args.out is None:
            check_run_not_on_board(path, submission)
        kept = holds_the_same(path, submission, existing)
        if not kept:
            write_submission(submission, path)
        verdict = verify_file(path)
        state = "verified" if verdict.ok else f"REJECTED: {verdict.reason}"
        done = "kept (it holds this submission already; a re-training record of it still applies)" if kept else "wrote"
        print(f"{done} {path} ({submission['suite']['id']}, {submission['method']['name']}, "
              f"success {submission['metrics']['success']:.3f}): {state}")
        return 0 if verdict.ok else 1
    if args.action == "retrain":
        return _retrain(args)
    if args.action == "verify":
        rejected = 0
        for path in args.files:
            verdict = verify_file(path)
            if verdict.ok:
                m = verdict.verified.metrics
                print(f"OK       {shown(path)}: success {m['success']:.3f}, f1 {m['f1']:.3f}")
            else:
                rejected += 1
                print(f"REJECTED {shown(path)}: {verdict.reason}")
        return 1 if rejected else 0
    # before: a broken link was "no submissions/ folder in LINK", naming no link and no target
    submissions = check_board_dir(args.dir, made_if_missing=False) / "submissions"
    what = not_a_folder(submissions)
    if what is not None:
        raise ValueError(f"{submissions} is {what}, not a folder; pass the leaderboard folder with --dir "
                         "(default: ./leaderboard)")
    if not submissions.is_dir():
        raise FileNotFoundError(f"no submissions/ folder in {args.dir}; pass the leaderboard folder with --dir "
                                "(default: ./leaderboard)")
    verdicts, readme, page = build(args.dir)
    for v in verdicts:
        if not v.ok:
            print(f"REJECTED {shown(v.path)}: {v.reason}")
    accepted = sum(v.ok for v in verdicts)
    print(f"{accepted} verified submission(s) of {len(verdicts)}; wrote {readme} and {page}")
    return 0 if accepted == len(verdicts) else 1


def _retrain(args: argparse.Namespace) -> int:
    from searchgym.leaderboard_checks import SubmissionRejected
    from searchgym.leaderboard_retrain import check_record_dir, record_result, retrain

    if args.record:  # before the re-run, which takes minutes (before: a bad --dir failed only after it)
        check_record_dir(check_board_dir(args.dir))
    if args.out is not None:  # before: the re-run "failed: NotADirectoryError ... 'results.md/run'"
        if args.out.exists() and not args.out.is_dir():
            raise ValueError(f"--out {args.out} is a file, not a folder; give a folder for the re-run (or leave "
                             "--out out for a new temporary one)")
        check_folder_can_be_made(args.out, "--out")
    try:
        result = retrain(args.file, args.out, args.device, keep=args.keep)
    except SubmissionRejected as exc:
        print(f"CANNOT RETRAIN {shown(args.file)}: {exc}")
        return 1
    where = (f"run in {result.run_dir}" if result.kept else
             "its temporary folder is removed: --keep or --out DIR keeps the run")
    if result.failed:  # no outcome: nothing is recorded, an earlier record stands
        print(f"CANNOT RETRAIN {shown(args.file)}: {result.reason} ({where}); nothing recorded")
        return 1
    state = "MATCHES" if result.matches else f"DIFFERS ({result.reason})"
    print(f"{state} {shown(args.file)}: {result.same_answers}/{result.tasks} answers equal; success submitted "
          f"{result.submitted_success:.3f}, re-trained {result.retrained_success:.3f} ({where})")
    if args.record:
        print(f"recorded in {record_result(result, args.dir)}")
    return 0 if result.matches else 1
