"""Leaderboard submissions: write one, verify one by re-scoring, build the pages.

A submission (the schema ships in the package: ``searchgym/assets/leaderboard_schema.json``) holds
the predictions of one method on the test split of one suite, with the metrics it claims. Every
check of a submission is in :mod:`searchgym.leaderboard_checks` (:func:`verify_file`, which never
raises), so verifying many files gives a verdict for each, and :func:`build` renders only what passed.
A submission is made from a run folder in :mod:`searchgym.leaderboard_from_run` (:func:`build_submission`).

A submission carries ``run`` (verify refuses one without it, or without its ``method_path``): the
recorded run config (method, import path, seed, budget, policy, options) and the SHA-256 of the run
folder's ``config.json``. ``leaderboard retrain``
(:mod:`searchgym.leaderboard_retrain`) re-runs it and records the outcome, keyed by the
submission's own hash, in ``retrained.json``; the page marks those rows as re-trained and every
other row as self-reported.

Nothing submitted is ever executed, imported or used as a path: file names come from the
command line, and every submitted string is escaped where it is shown (see
:mod:`searchgym.leaderboard_html`).
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from searchgym.damaged import MAX_JSON_BYTES, DamagedFile, DamagedFileWarning, read_bounded, read_json_capped
from searchgym.fileio import atomic_write_json
from searchgym.leaderboard_checks import MAX_BYTES, SubmissionRejected, Verdict, read_limited, verify_file
from searchgym.leaderboard_from_run import (  # noqa: F401  (re-exported: where submit's reading of a run was)
    LINKED_RUN_FILE,
    build_submission,
    run_block_keys,
    submitted_answer,
)

#: The default board folder: ``./leaderboard`` (its ``submissions/``; build writes there), not site-packages.
DEFAULT_DIR = Path("leaderboard")
RETRAINED_FILE = "retrained.json"


# ------------------------------------------------------------------------------- submit
def submission_filename(submission: Mapping[str, Any]) -> str:
    """``<suite>__<name>__seed<k>.json``; the name is schema-checked (letters, digits, . _ + - space)."""
    name = submission["method"]["name"].replace(" ", "_")
    return f"{submission['suite']['id']}__{name}__seed{submission['method'].get('seed', 0)}.json"


def submission_path(submission: Mapping[str, Any], out: str | os.PathLike | None = None,
                    folder: str | os.PathLike = DEFAULT_DIR / "submissions") -> Path:
    return Path(out) if out else Path(folder) / submission_filename(submission)


def write_submission(submission: Mapping[str, Any], out: str | os.PathLike | None = None,
                     folder: str | os.PathLike = DEFAULT_DIR / "submissions") -> Path:
    return atomic_write_json(submission_path(submission, out, folder), submission)


#: ``existing`` not given: the check reads the file itself.
_UNREAD: Any = object()


def read_existing(path: Path) -> bytes | None:
    """The bytes of the regular file at ``path`` (links followed), read once for
    :func:`check_replaces_only_itself` and :func:`holds_the_same`; None where there is none or it
    cannot be read. Why: each read the file again, and it could change between the reads."""
    if not path.is_file():
        return None
    try:
        return read_bounded(path, MAX_JSON_BYTES)
    except (DamagedFile, OSError):
        return None


def check_replaces_only_itself(path: Path, submission: Mapping[str, Any], existing: bytes | None = _UNREAD) -> None:
    """A file at ``path`` is replaced only by a submission of the same run (its ``config.json``
    SHA-256), e.g. with a new description. Why: ``submit`` wrote over any file of that name, so a
    second run submitted under a name already on the board replaced the first run's file unsaid.
    ``existing``: the file's bytes as :func:`read_existing` gave them."""
    if not path.is_file():
        return
    data = read_existing(path) if existing is _UNREAD else existing
    try:
        there = json.loads(data.decode("utf-8")) if data is not None and data.strip() else {}
    except (UnicodeDecodeError, ValueError, RecursionError):  # as read_json_checked: damage is no submission
        there = {}
    run = there.get("run") if isinstance(there, dict) else None
    if not (isinstance(run, dict) and run.get("config_sha256") == submission["run"]["config_sha256"]):
        raise ValueError(f"{path} already exists and is not this run's submission; choose another --name or "
                         "--out, or delete that file first (it is kept)")


def holds_the_same(path: Path, submission: Mapping[str, Any], existing: bytes | None = _UNREAD) -> bool:
    """Whether ``path`` holds ``submission`` already, all but its ``created`` time. Why: submitting the
    same run again rewrote the file with a new time, which changed its SHA-256, the key of its
    re-training record, so the board's "re-trained" mark was silently lost. ``existing``: as above."""
    data = read_existing(path) if existing is _UNREAD else existing
    if data is None or len(data) > MAX_BYTES:  # bounded as verify reads it
        return False
    try:
        there = json.loads(data)
    except (ValueError, RecursionError):
        return False
    mine = json.loads(json.dumps(submission))
    return isinstance(there, dict) and {**there, "created": None} == {**mine, "created": None}


def check_run_not_on_board(path: Path, submission: Mapping[str, Any]) -> None:
    """Refuse a run whose submission is on the board already under another file name (another
    ``--name``, or the seed edited): the board keeps one row per run (:func:`reject_repeated_rows`).
    Why: each such ``submit`` said "verified" and the board showed the one run as several rows."""
    sha = submission["run"]["config_sha256"]
    for other in sorted(path.parent.glob("*.json")):
        if other == path or other.is_symlink():
            continue
        try:  # bounded as verify reads it; a damaged file is verify's to reject
            there = json.loads(read_limited(other))
        except (SubmissionRejected, ValueError):
            continue
        run = there.get("run") if isinstance(there, dict) else None
        if isinstance(run, dict) and run.get("config_sha256") == sha:
            raise ValueError(f"this run is on the board already as {other}; the board keeps one row per run: give "
                             f"its --name to replace it (a new description, say), or delete that file first")


# -------------------------------------------------------------------------------- build
#: Why a symbolic link among a board's submissions is refused.
LINKED_SUBMISSION = ("is a symbolic link, which the board never follows (a link committed to the board could make "
                     "it read, and print, any file of the machine that builds it); commit the submission file itself")


def verify_folder(folder: str | os.PathLike) -> list[Verdict]:
    """Every ``*.json`` verified (a symbolic link is refused, unread); a second file of the same row
    or the same run is rejected (:func:`reject_repeated_rows`)."""
    return reject_repeated_rows([Verdict(str(p), False, LINKED_SUBMISSION) if p.is_symlink() else verify_file(p)
                                 for p in sorted(Path(folder).glob("*.json"))])


def _row_key(submission: Mapping[str, Any]) -> tuple[str, str, int]:
    """(suite, method name as shown, seed): the name with its spaces collapsed and case folded, as the
    board shows it (before: "random " was a second row reading "random")."""
    name = " ".join(submission["method"]["name"].split()).casefold()
    return submission["suite"]["id"], name, int(submission["method"].get("seed", 0))


def reject_repeated_rows(verdicts: list[Verdict]) -> list[Verdict]:
    """One row per (suite, method name, seed) and per run (its ``config.json`` SHA-256): of several
    verified files with one key, the one with the name ``submit`` gives it (else the first by name)
    stays and the others are rejected, naming it. Why: a copy of a submission under another file
    name put the same row on the board twice, and one run submitted under two names (or with its
    seed edited) put it there as two rows."""
    for describe in (lambda s: ("row", _row_key(s)), lambda s: ("run", (s["suite"]["id"], s["run"]["config_sha256"]))):
        groups: dict[tuple, list[Verdict]] = {}
        for v in verdicts:
            if v.ok and v.verified is not None:
                groups.setdefault(describe(v.verified.submission), []).append(v)
        for (kind, key), same in groups.items():
            if len(same) < 2:
                continue
            kept = next((v for v in same if Path(v.path).name == submission_filename(v.verified.submission)), same[0])
            for v in same:
                if v is not kept:
                    v.reason = _repeat_reason(kind, key, Path(kept.path).name, v.verified.submission)
                    v.ok, v.verified = False, None
    return verdicts


def _repeat_reason(kind: str, key: tuple, kept: str, submission: Mapping[str, Any]) -> str:
    if kind == "row":
        suite, _, seed = key
        return (f"the same row as {kept} ({suite}, method {submission['method']['name']!r}, seed {seed}): one file per "
                "method name and seed; delete one of them")
    return (f"the same run as {kept} (run.config_sha256 {key[1][:16]}...): one row per run, whatever its name "
            "or seed; delete one of them")


#: retrained.json: ~250 bytes, 8 values a submission re-trained (room for ~30,000); before: 256 MB, links followed.
MAX_RETRAINED_BYTES, MAX_RETRAINED_VALUES = 8 * 1024 * 1024, 300_000
LINKED_RETRAINED = ("is a symbolic link, which the board never follows (a link could pass any file off as the "
                    "maintainers' re-training records)")


def read_retrained(directory: str | os.PathLike) -> dict[str, dict[str, Any]]:
    """The maintainers' re-training records (``retrained.json``) by submission SHA-256, {} without one."""
    path = Path(directory) / RETRAINED_FILE
    if path.is_symlink():  # before is_file, which follows it
        raise SubmissionRejected(f"{path}: {LINKED_RETRAINED}; replace it with the file itself")
    if not path.is_file():  # none yet
        return {}
    try:
        records = read_json_capped(path, MAX_RETRAINED_BYTES, MAX_RETRAINED_VALUES,
                                   "where a board's records hold a few per submission")
    except (OSError, ValueError) as exc:  # its reason once (before: the path twice, and "re-run the same
        what = exc.what if isinstance(exc, DamagedFile) else str(exc)  # command", which cannot rebuild it)
        raise SubmissionRejected(f"{path}: {what}; fix it, or delete it and lose every re-training record it "
                                 "holds") from None
    if not isinstance(records, dict):
        raise SubmissionRejected(f"{path} must hold an object keyed by submission SHA-256")
    return {k: v for k, v in records.items() if isinstance(v, dict)}


def build(directory: str | os.PathLike = DEFAULT_DIR) -> tuple[list[Verdict], Path, Path]:
    """Verify every ``submissions/*.json`` and write ``README.md`` and ``index.html`` from the good ones."""
    from searchgym.fileio import atomic_write_text
    from searchgym.leaderboard_html import render_html, render_markdown

    directory = Path(directory)
    verdicts = verify_folder(directory / "submissions")
    try:
        records = read_retrained(directory)
    except SubmissionRejected as exc:  # the board is still built; every row then reads self-reported
        warnings.warn(f"{exc}; the board is built with every row self-reported", DamagedFileWarning, stacklevel=2)
        records = {}
    accepted = [v.verified for v in verdicts if v.ok and v.verified is not None]
    for entry in accepted:
        entry.retrained = records.get(entry.sha256)
    readme = atomic_write_text(directory / "README.md", render_markdown(accepted))
    page = atomic_write_text(directory / "index.html", render_html(accepted))
    return verdicts, readme, page
