"""Leaderboard submissions: build one from a run folder, verify one by re-scoring, build the pages.

A submission (the schema ships in the package: ``searchgym/assets/leaderboard_schema.json``) holds the predictions of one method on the test
split of one suite, with the metrics it claims. :func:`verify_file` trusts nothing in it:

1. the file's size is checked *before* it is read (at most :data:`MAX_BYTES`);
2. it must be UTF-8 JSON and valid against the schema (which bounds every string and list);
3. the suite must be known and its hash equal to the suite regenerated here;
4. the predictions must cover every test task of the suite exactly once (no unknown ids);
5. every claimed metric (success and F1, overall and per family) must equal, within
   :data:`TOLERANCE`, the value re-scored here with :func:`searchgym.scoring.score_answer`.

Nothing submitted is ever executed, imported or used as a path: file names come from the
command line, and every submitted string is escaped where it is shown (see
:mod:`searchgym.leaderboard_html`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from searchgym.fileio import atomic_write_json, read_json, read_jsonl
from searchgym.harness.runner import is_done
from searchgym.scoring import score_answer
from searchgym.suites import get_suite, tasks

MAX_BYTES = 5 * 1024 * 1024
TOLERANCE = 1e-6
#: The leaderboard folder when none is given: ``./leaderboard`` under the working directory
#: (``submissions/`` in it; ``build`` writes README.md and index.html there), never site-packages.
DEFAULT_DIR = Path("leaderboard")
#: Package data, so an installed wheel verifies submissions without the source tree.
SCHEMA_PATH = Path(__file__).resolve().parent / "assets" / "leaderboard_schema.json"


class SubmissionRejected(ValueError):
    """A submission failed verification; the message says why."""


@dataclass
class Verified:
    """A submission that passed every check, with the metrics re-scored here."""

    path: str
    submission: dict[str, Any]
    metrics: dict[str, Any]


@dataclass
class Verdict:
    path: str
    ok: bool
    reason: str = ""
    verified: Verified | None = field(default=None, repr=False)


@lru_cache(maxsize=4)
def load_schema(path: str = str(SCHEMA_PATH)) -> dict[str, Any]:
    if not Path(path).is_file():
        raise FileNotFoundError(f"the submission schema is not at {path} (it ships in the package as "
                                "searchgym/assets/leaderboard_schema.json; reinstall searchgym)")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


# ------------------------------------------------------------------------------ scoring
def rescore(suite_id: str, predictions: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Success and F1 overall and per family of ``predictions`` on the suite's test split."""
    suite = get_suite(suite_id)
    by_id = {t.id: t for t in tasks(suite, "test")}
    groups: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for p in predictions:
        task = by_id[p["task_id"]]
        s = score_answer(task, p.get("answer"))
        groups[task.family].append((float(s.success), float(s.f1)))
    every = [x for rows in groups.values() for x in rows]

    def mean(rows: list[tuple[float, float]], i: int) -> float:
        return sum(r[i] for r in rows) / len(rows)

    return {"success": mean(every, 0), "f1": mean(every, 1),
            "families": {f: {"success": mean(r, 0), "f1": mean(r, 1), "n": len(r)} for f, r in sorted(groups.items())}}


# ---------------------------------------------------------------------------- verifying
def read_limited(path: str | os.PathLike, max_bytes: int = MAX_BYTES) -> bytes:
    """The bytes of a regular file no larger than ``max_bytes`` (checked before reading)."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise SubmissionRejected(f"cannot read the file: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise SubmissionRejected("not a regular file")
    if info.st_size > max_bytes:
        raise SubmissionRejected(f"file too large: {info.st_size} bytes, the limit is {max_bytes} bytes")
    with open(path, "rb") as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:  # grew between stat and read
        raise SubmissionRejected(f"file too large: more than {max_bytes} bytes")
    return data


def parse_submission(data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SubmissionRejected(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise SubmissionRejected(f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise SubmissionRejected("invalid JSON: nested too deeply") from None


def check_schema(submission: Any, schema: Mapping[str, Any] | None = None) -> None:
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema or load_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(submission))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        message = error.message if len(error.message) <= 300 else error.message[:300] + "..."
        if error.validator == "pattern" or error.validator == "not":
            message = f"value does not match the accepted form ({error.schema.get('description') or error.validator})"
        raise SubmissionRejected(f"schema violation at {where}: {message}")


def _few(items: Iterable[str], n: int = 5) -> str:
    items = list(items)
    shown = ", ".join(repr(i) for i in items[:n])
    return shown + (f" and {len(items) - n} more" if len(items) > n else "")


def check_content(submission: Mapping[str, Any]) -> dict[str, Any]:
    """Suite, hash, task coverage and claimed metrics; returns the re-scored metrics."""
    suite_id = submission["suite"]["id"]
    try:
        suite = get_suite(suite_id)
    except KeyError:
        raise SubmissionRejected(f"unknown suite {suite_id!r}") from None
    if submission["suite"]["hash"] != suite.content_hash:
        raise SubmissionRejected(f"wrong suite hash for {suite_id}: submitted {submission['suite']['hash'][:16]}..., "
                                 f"the suite regenerated here has {suite.content_hash[:16]}...")
    ids = [p["task_id"] for p in submission["predictions"]]
    expected = {t.id for t in tasks(suite, "test")}
    duplicated = sorted(i for i, c in Counter(ids).items() if c > 1)
    if duplicated:
        raise SubmissionRejected(f"duplicated task ids: {_few(duplicated)}")
    unknown = sorted(set(ids) - expected)
    if unknown:
        raise SubmissionRejected(f"task ids not in the test split of {suite_id}: {_few(unknown)}")
    missing = sorted(expected - set(ids))
    if missing:
        raise SubmissionRejected(f"missing predictions for {len(missing)} test task(s): {_few(missing)}")
    actual = rescore(suite_id, submission["predictions"])
    claimed = submission["metrics"]
    for key in ("success", "f1"):
        if abs(claimed[key] - actual[key]) > TOLERANCE:
            raise SubmissionRejected(f"claimed {key} {claimed[key]} differs from the re-scored {actual[key]:.6f}")
    if set(claimed["families"]) != set(actual["families"]):
        raise SubmissionRejected(f"claimed families {sorted(claimed['families'])} differ from the suite's "
                                 f"{sorted(actual['families'])}")
    for family, values in claimed["families"].items():
        for key in ("success", "f1", "n"):
            if key in values and abs(values[key] - actual["families"][family][key]) > TOLERANCE:
                raise SubmissionRejected(f"claimed {family} {key} {values[key]} differs from the re-scored "
                                         f"{actual['families'][family][key]:.6f}")
    return actual


def verify_file(path: str | os.PathLike, max_bytes: int = MAX_BYTES) -> Verdict:
    """Every check of the module docstring; never raises for a bad submission."""
    try:
        submission = parse_submission(read_limited(path, max_bytes))
        check_schema(submission)
        metrics = check_content(submission)
    except SubmissionRejected as exc:
        return Verdict(str(path), False, str(exc))
    return Verdict(str(path), True, verified=Verified(str(path), submission, metrics))


# ------------------------------------------------------------------------------- submit
def build_submission(run: str | os.PathLike, name: str | None = None, description: str | None = None,
                     url: str | None = None) -> dict[str, Any]:
    """A submission from a finished run folder (``config.json`` + ``predictions.jsonl``)."""
    run = Path(run)
    if not is_done(run):
        raise ValueError(f"{run} is not a finished run folder (no DONE marker); finish it with the same command first")
    config = read_json(run / "config.json")
    predictions = [{"task_id": p["task_id"], "answer": p.get("answer"), "steps": int(p.get("steps", 0)),
                    "tool_calls": int(p.get("tool_calls", 0))} for p in read_jsonl(run / "predictions.jsonl")]
    label = name or config["method"]
    method: dict[str, Any] = {
        "name": label,
        "description": description if description is not None else
        (f"{config['method']} ({config.get('method_path', '?')}), policy {config.get('policy', '?')}, seed "
         f"{config.get('seed', 0)}, " + ("trained with searchgym compare" if config.get("trains", True)
                                         else "no training")),
        "seed": int(config.get("seed", 0)),
        "policy": str(config.get("policy", "")),
    }
    if url:
        method["url"] = url
    git = config.get("git") or {}
    submission = {
        "schema_version": 1,
        "suite": {"id": config["suite_id"], "hash": config["suite_hash"]},
        "method": method,
        "training_budget": int(config.get("training_budget", config.get("budget", 0))),
        "hardware": {"device": str(config.get("device", "cpu")), "device_name": str(config.get("device_name", "")),
                     "platform": str(config.get("platform", "")), "python": str(config.get("python", ""))},
        "packages": {str(k): str(v) for k, v in (config.get("packages") or {}).items()},
        "git_revision": str(git.get("revision", "unknown")) + ("+dirty" if git.get("dirty") else ""),
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "metrics": None,
        "predictions": predictions,
    }
    metrics = rescore(config["suite_id"], predictions)
    submission["metrics"] = metrics
    check_schema(submission)
    return submission


def submission_filename(submission: Mapping[str, Any]) -> str:
    """``<suite>__<name>__seed<k>.json``; the name is schema-checked (letters, digits, . _ + - space)."""
    name = submission["method"]["name"].replace(" ", "_")
    return f"{submission['suite']['id']}__{name}__seed{submission['method'].get('seed', 0)}.json"


def write_submission(submission: Mapping[str, Any], out: str | os.PathLike | None = None,
                     folder: str | os.PathLike = DEFAULT_DIR / "submissions") -> Path:
    path = Path(out) if out else Path(folder) / submission_filename(submission)
    return atomic_write_json(path, submission)


# -------------------------------------------------------------------------------- build
def verify_folder(folder: str | os.PathLike) -> list[Verdict]:
    return [verify_file(p) for p in sorted(Path(folder).glob("*.json"))]


def build(directory: str | os.PathLike = DEFAULT_DIR) -> tuple[list[Verdict], Path, Path]:
    """Verify every ``submissions/*.json`` and write ``README.md`` and ``index.html`` from the good ones."""
    from searchgym.fileio import atomic_write_text
    from searchgym.leaderboard_html import render_html, render_markdown

    directory = Path(directory)
    verdicts = verify_folder(directory / "submissions")
    accepted = [v.verified for v in verdicts if v.ok and v.verified is not None]
    readme = atomic_write_text(directory / "README.md", render_markdown(accepted))
    page = atomic_write_text(directory / "index.html", render_html(accepted))
    return verdicts, readme, page
