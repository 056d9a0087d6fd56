"""A leaderboard submission from a finished run folder: its ``config.json`` and ``predictions.jsonl``
read, checked and re-scored (:func:`build_submission`, what ``leaderboard submit`` writes).

Apart from :mod:`searchgym.leaderboard` because reading a run is one concept (its damage, its remedy:
the command that made the run) and the board's files another.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from pathlib import Path
from typing import Any

from searchgym.damaged import MAX_JSON_BYTES, DamagedFile, parse_json_bytes, read_bounded
from searchgym.fileio import refuse_link
from searchgym.harness.run_reads import prediction_rows
from searchgym.harness.runner import is_done
from searchgym.leaderboard_checks import check_schema, check_values, load_schema, rescore
from searchgym.leaderboard_values import run_answer_text
from searchgym.suites import get_suite, tasks

#: Why ``submit`` refuses a run's file that is a link, unread (one to another run's predictions was submitted).
LINKED_RUN_FILE = ("is a symbolic link, which submit never follows (a run writes its own files; a link could pass "
                   "another run's file, or any file, off as this run's)")


def build_submission(run: str | os.PathLike, name: str | None = None, description: str | None = None,
                     url: str | None = None) -> dict[str, Any]:
    """A submission from a finished run folder (``config.json`` + ``predictions.jsonl``)."""
    run = Path(run)
    if not run.is_dir():  # else "no DONE marker; finish it" for a path that was mistyped
        what = "a file, not a folder" if run.exists() else "no such folder"
        raise ValueError(f"{run} is not a run folder ({what}); give the folder of a finished run, "
                         "e.g. runs/mine/runs/<method>/seed0")
    if not is_done(run):
        runs = next((found for pattern in ("runs/*/seed*/DONE", "*/seed*/DONE", "seed*/DONE")
                     if (found := sorted(p.parent for p in run.glob(pattern)))), [])
        if runs:  # a comparison's folder, its runs/ or a method's: "finish it" would re-run a finished job
            shown = ", ".join(str(p) for p in runs[:4]) + (f" ... ({len(runs)} in all)" if len(runs) > 4 else "")
            raise ValueError(f"{run} holds finished runs but is not one; submit one run folder: {shown}")
        raise ValueError(f"{run} is not a finished run folder (no DONE marker); finish it with the same command first")
    for run_file in ("config.json", "predictions.jsonl"):  # both checked before either is read
        refuse_link(run / run_file, f"copy the file itself into the run folder, or {_redo(run)}", why=LINKED_RUN_FILE)
    config_bytes, config = _run_config(run)
    # a limit below the test split's size (else "damaged ... re-run the same command", which limits it again)
    if config.get("limit") is not None and not _limit_covers_test(config):
        raise ValueError(f"{run} was scored on the first {config['limit']!r:.40} tasks only (--limit), a quick check, "
                         f"not a result on {config['suite_id']}: the leaderboard takes a run over the whole test "
                         "split; re-run it without --limit (into another --out folder) and submit that")
    predictions = _run_predictions(run, config["suite_id"])
    label = name or config["method"]
    method: dict[str, Any] = {
        "name": label,
        "description": description if description is not None else
        (f"{config['method']} ({config.get('method_path', '?')}), "  # a baseline plays no policy of --policy's
         + (f"policy {config.get('policy', '?')}, " if config.get("trains", True) else "")
         + f"seed {config.get('seed', 0)}, "
         + ("trained with searchgym compare" if config.get("trains", True) else "no training")),
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
        "run": {"config_sha256": hashlib.sha256(config_bytes).hexdigest(),
                **{k: config[k] for k in run_block_keys() if k in config}},
    }
    served_by = _scripted_behaviours(run)
    if served_by:  # the board marks the row privileged by it, whatever model name the run recorded
        submission["run"]["endpoint"] = {"scripted": served_by}
    metrics = rescore(get_suite(config["suite_id"]), predictions)
    submission["metrics"] = metrics
    check_values(submission)
    check_schema(submission)
    return submission


#: The ``run`` block's fields that come from the run's result.json, not its config.json.
FROM_RESULT = ("endpoint",)


def run_block_keys() -> tuple[str, ...]:
    """The config.json fields a submission's ``run`` block copies: the ones its schema lists (the
    suite is the submission's own field; the policy layout is a local cache key, not a result)."""
    return tuple(k for k in load_schema()["properties"]["run"]["properties"]
                 if k != "config_sha256" and k not in FROM_RESULT)


def _scripted_behaviours(run: Path) -> list[str]:
    """The scripted endpoint's behaviours that played the run, as its ``result.json["endpoint"]`` records
    them (``searchgym evaluate`` against ``searchgym serve``); empty for any other run. Why: the server
    answers any model name, so ``--model oracle`` was submitted as a model, unmarked."""
    path = run / "result.json"
    refuse_link(path, f"copy the file itself into the run folder, or {_redo(run)}", why=LINKED_RUN_FILE)
    if not path.exists():
        return []
    try:
        result = parse_json_bytes(path, read_bounded(path, MAX_JSON_BYTES), expect=dict)
    except DamagedFile as exc:
        raise DamagedFile(path, exc.what, _redo(run)) from None
    endpoint = result.get("endpoint")
    behaviours = endpoint.get("scripted", []) if isinstance(endpoint, dict) else []
    if not (isinstance(behaviours, list) and all(isinstance(b, str) and 0 < len(b) <= 200 for b in behaviours)
            and len(behaviours) <= 20):
        raise DamagedFile(path, "has an endpoint.scripted that is not a list of at most 20 behaviour names",
                          _redo(run))
    return sorted(set(behaviours))


#: config.json fields a submission is built from, with their types.
_CONFIG_FIELDS = {"suite_id": str, "suite_hash": str, "method": str}


def _redo(run: Path) -> str:
    """The remedy for a damaged run: run it again with the command that made it, then submit again. Why:
    "re-run the same command" sent the user back to `leaderboard submit`, which finishes no run."""
    return (f"delete {run / 'DONE'} and re-run the same command that made the run (its `searchgym compare`, "
            "`train` or `evaluate`) to finish it again, then submit again")


def _run_config(run: Path) -> tuple[bytes, dict[str, Any]]:
    """A finished run's ``config.json`` (its bytes and its object); damage is :class:`DamagedFile`."""
    path = run / "config.json"
    try:  # parsed from the bytes it hashes (it read the file twice: the hash could be of other bytes)
        data = read_bounded(path, MAX_JSON_BYTES)
        config = parse_json_bytes(path, data, expect=dict)
    except FileNotFoundError:
        raise DamagedFile(path, "is missing", _redo(run)) from None
    except DamagedFile as exc:
        raise DamagedFile(path, exc.what, _redo(run)) from None
    for key, kind in _CONFIG_FIELDS.items():
        if not isinstance(config.get(key), kind):
            raise DamagedFile(path, f"has no {kind.__name__} {key!r}", _redo(run))
    for key in ("seed", "training_budget", "budget"):
        value = config.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int):
            raise DamagedFile(path, f"{key!r} is {value!r}, not an int", _redo(run))
    for key in ("git", "packages"):
        if not isinstance(config.get(key) or {}, dict):
            raise DamagedFile(path, f"{key!r} is not an object", _redo(run))
    return data, config


def _run_predictions(run: Path, suite_id: str) -> list[dict[str, Any]]:
    """A finished run's predictions, one per test task of its suite; damage is :class:`DamagedFile`."""
    path = run / "predictions.jsonl"
    try:
        expected = {t.id: t.answer_type for t in tasks(get_suite(suite_id), "test")}
    except KeyError:
        if suite_id.startswith("train-"):  # before: called damaged, with a remedy that could not help
            raise ValueError(f"{run} is a `searchgym train` run on an ad-hoc suite ({suite_id}); the leaderboard "
                             "ranks the frozen suites only: run the method with `searchgym compare --suite <suite>` "
                             "(or `searchgym evaluate`) on a suite `searchgym suites` lists, and submit that "
                             "run") from None
        raise DamagedFile(run / "config.json", f"names suite {suite_id!r}, which this searchgym does not know",
                          "submit it with the searchgym version that ran it") from None
    cap = 2 * len(expected) + 10  # room to name a few extra rows below, bounded (before: rows of any size, kept)
    try:
        found = prediction_rows(path, _redo(run), cap)
    except DamagedFile as exc:
        raise DamagedFile(path, exc.what, _redo(run)) from None
    if found.stopped:
        raise DamagedFile(path, f"holds more than {cap} predictions, where {suite_id} has {len(expected)} test tasks",
                          _redo(run))
    rows = []
    for number, p in enumerate(found.rows, start=1):
        steps, calls = p.get("steps", 0), p.get("tool_calls", 0)
        if not isinstance(p.get("task_id"), str) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in (steps, calls)):
            raise DamagedFile(path, f"prediction {number} lacks a text task_id or int steps and tool_calls",
                              _redo(run))
        answer = submitted_answer(p.get("answer"), expected.get(p["task_id"]))  # by answer type
        rows.append({"task_id": p["task_id"], "answer": answer, "steps": steps, "tool_calls": calls})
    if not rows:
        raise DamagedFile(path, "holds no predictions (missing, empty or every line damaged)", _redo(run))
    ids = [r["task_id"] for r in rows]
    missing, unknown = expected.keys() - set(ids), set(ids) - expected.keys()
    if missing or unknown or len(ids) != len(set(ids)):
        raise DamagedFile(path, f"does not hold one prediction per test task of {suite_id} ({len(missing)} missing, "
                                f"{len(unknown)} unknown, {len(ids) - len(set(ids))} repeated)", _redo(run))
    return rows


def _limit_covers_test(config: dict[str, Any]) -> bool:
    """A run's --limit at least the size of its suite's test split: it scored the whole split. Before: an
    `evaluate --limit 100000000` run was refused as "scored on the first 100000000 tasks only"."""
    limit = config.get("limit")
    if isinstance(limit, bool) or not isinstance(limit, int):
        return False
    try:
        return limit >= len(tasks(get_suite(config["suite_id"]), "test"))
    except KeyError:
        return False


def submitted_answer(answer: Any, answer_type: str | None) -> Any:
    """A run's answer as the board holds it, scoring as the run scored it (:func:`run_answer_text`): what
    ``submit`` writes, and what ``retrain`` compares a re-run's answer as."""
    return run_answer_text(answer, answer_type) if isinstance(answer, str) else answer
