"""A finished run's files read back for a report, a re-shown result or a submission: each checked,
and a damaged one a :class:`~searchgym.damaged.DamagedFile` whose remedy redoes the run's end.

Why a module of its own: ``train``, ``evaluate`` and ``report`` read the same files and said
different remedies for the same damage.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from searchgym.damaged import DamagedFile, OtherRunsFile, read_json_checked
from searchgym.fileio import read_jsonl
from searchgym.json_fields import COUNT, FLAG, INT, NUMBER, SCORE, TEXT, check_fields, field_problem, optional

#: What the report reads from a finished run's files, checked when there (older runs lack some).
#: Before: "train_seconds": "x" ended in "Unknown format code 'f'", "dev": [1] in an AttributeError,
#: "trains": "no" counted as true, and NaN seconds were written into results.md as "nan".
FILE_FIELDS = {
    "result.json": {"train_seconds": NUMBER, "eval_seconds": NUMBER, "attempt": COUNT, "metrics_rows": COUNT,
                    "dev.all.success": NUMBER, "test.all.success": NUMBER, "test.all.f1": NUMBER, "test.all.n": COUNT},
    "config.json": {"suite_id": TEXT, "suite_hash": TEXT, "trains": FLAG, "privileged": FLAG, "method_path": TEXT,
                    "device_name": TEXT, "budget": optional(INT)},
}
#: A prediction's scores: before, "success": "yes" ended in "could not convert string to float: 'yes'"
#: naming no file, and NaN or 1e999 were written into results.md and summary.csv as "nan" and "inf".
PREDICTION_FIELDS = {"success": SCORE, "f1": NUMBER, "score": NUMBER, "steps": NUMBER, "tool_calls": NUMBER}


def redo_remedy(folder: Path) -> str:
    """What a damaged file of a finished run says to do: its DONE goes, and the command that made the run
    redoes its end (not "the same command": `report` and `load_results` read runs, they evaluate none)."""
    return (f"delete {folder / 'DONE'} and re-run the command that made the run (compare, train or evaluate) "
            "to evaluate it again")


def finished_json(folder: Path, name: str) -> dict[str, Any]:
    """A finished run's JSON file; damaged or missing, a :class:`DamagedFile` whose remedy redoes the run's
    end. Why: a damaged result.json said "delete it and re-run", and the re-run then stopped at
    "[Errno 2] No such file or directory" (the run's DONE still said it was finished)."""
    path = folder / name
    redo = redo_remedy(folder)
    try:
        record = read_json_checked(path, expect=dict, remedy=redo)  # before: an int of 5,000 digits named no file
    except FileNotFoundError:
        raise DamagedFile(path, "is missing from a finished run", redo) from None
    check_fields(path, record, present=FILE_FIELDS.get(name), remedy=redo)
    return record


def finished_config(folder: Path, label: str, seed: int) -> dict[str, Any]:
    """The ``config.json`` of a comparison's finished run ``runs/<label>/seed<seed>``, refused when it
    records another method or seed than its folder says. Why: a copy of ``seed1`` made as ``seed0``
    was reported as a second seed (one run's predictions counted twice in the pooled interval)."""
    config = finished_json(folder, "config.json")
    lacks = [key for key in ("suite_id", "suite_hash") if not isinstance(config.get(key), str)]
    if lacks:  # before: "the runs ... disagree on the suite (None, quick-v2)" or "unknown suite 'None'"
        raise DamagedFile(folder / "config.json", f"has no text {' or '.join(map(repr, lacks))}, which every run "
                          "of a comparison records", f"restore it, or delete {folder} and re-run the comparison")
    for key, expected in (("method", label), ("seed", seed)):
        if key in config and (config[key] != expected or isinstance(config[key], bool)):
            where = f"{folder.parent.name}/{folder.name}"
            raise OtherRunsFile(folder / "config.json", f"records {key} {repr(config[key])[:80]} where its folder, "
                                f"{where}, is {key} {expected!r}: a copy of another run's folder",
                                "move the folder to runs/<method>/seed<N> as its config.json records, or delete it")
    return config


def tested_count(result: dict[str, Any]) -> int | None:
    """How many test tasks a finished run scored, as its ``result.json`` records (None if it does not)."""
    test = result.get("test")
    n = test.get("all", {}).get("n") if isinstance(test, dict) and isinstance(test.get("all"), dict) else None
    return n if isinstance(n, int) and not isinstance(n, bool) else None


def finished_predictions(folder: Path, expected: int | None = None) -> list[dict[str, Any]]:
    """A finished run's prediction rows, each with its text ``task_id`` and ``family``.

    A damaged file is :class:`DamagedFile` with the way to redo the run (its ``DONE`` deleted,
    the same command evaluates it again from its checkpoint). ``expected`` is the number of rows
    the run wrote (``result.json``): a file cut short (a partial copy or sync) was reported on the
    rows it still held, e.g. 33 of 160 tasks, as if the run had been scored on those alone.
    """
    path = folder / "predictions.jsonl"
    redo = redo_remedy(folder)
    try:
        rows = read_jsonl(path)
    except DamagedFile as exc:  # a folder or a FIFO in its place
        raise DamagedFile(path, exc.what, redo) from None
    if not rows:
        raise DamagedFile(path, "holds no predictions (missing, empty or every line damaged)", redo)
    if expected is not None and len(rows) != expected:
        raise DamagedFile(path, f"holds {len(rows)} readable predictions where result.json counts {expected} "
                          "(cut short or damaged)", redo)
    bad = next((i for i, r in enumerate(rows) if not all(isinstance(r.get(k), str) for k in ("task_id", "family"))),
               None)
    if bad is not None:
        raise DamagedFile(path, f"prediction {bad + 1} has no text task_id and family", redo)
    seen: dict[str, int] = {}
    for i, row in enumerate(rows):
        problem = field_problem(row, present=PREDICTION_FIELDS)
        if problem:
            raise DamagedFile(path, f"prediction {i + 1}: {problem}", redo)
        if row["task_id"] in seen:  # before: rows repeated over others (as many rows) were scored twice
            raise DamagedFile(path, f"prediction {i + 1} scores task {row['task_id'][:80]!r} again (prediction "
                              f"{seen[row['task_id']] + 1} scored it); a run scores each task once", redo)
        seen[row["task_id"]] = i
    return rows
