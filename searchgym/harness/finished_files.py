"""A finished run's files read back for a report, a re-shown result or a submission: each checked,
and a damaged one a :class:`~searchgym.damaged.DamagedFile` whose remedy redoes the run's end.

Why a module of its own: ``train``, ``evaluate`` and ``report`` read the same files and said
different remedies for the same damage.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from searchgym.damaged import DamagedFile, OtherRunsFile
from searchgym.harness.run_reads import MAX_PREDICTION_ROWS, prediction_rows, run_json
from searchgym.harness.written_text import read_answer
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
#: Scores a run writes lie in [0, 1] (success true/false). Before: "success": 7 was reported as 7.000.
UNIT_FIELDS = ("success", "f1", "score")


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
    try:  # no link, at most a few MB (before: 256 MB, a padded result.json took 1.6 GB to read)
        record = run_json(path, redo)  # before: an int of 5,000 digits named no file
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


def finished_predictions(folder: Path, expected: int | None = None,
                         tests: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """A finished run's prediction rows, each with its text ``task_id`` and ``family``.

    A damaged file is :class:`DamagedFile` with the way to redo the run (its ``DONE`` deleted,
    the same command evaluates it again from its checkpoint). ``expected`` is the number of rows
    the run wrote (``result.json``): a file cut short (a partial copy or sync) was reported on the
    rows it still held, e.g. 33 of 160 tasks, as if the run had been scored on those alone.
    ``tests`` (task id -> family: :func:`run_reads.scored_tasks`) are the tasks the run scored: a row
    of another task, or of its task with another family, is damage, and so is a task it lacks. Before:
    ids made up (with families of their choice) were reported as a score on the suite. The file is
    read no further than those rows (before: every row, of any size, was kept). Each text ``answer`` is
    the agent's as it gave it (:func:`~searchgym.harness.written_text.read_answer`; before, a lone
    surrogate and the six characters of its escape text read back alike).
    """
    path = folder / "predictions.jsonl"
    redo = redo_remedy(folder)
    cap = len(tests) if tests is not None else min(expected if expected is not None else MAX_PREDICTION_ROWS,
                                                    MAX_PREDICTION_ROWS)
    try:
        found = prediction_rows(path, redo, cap)
    except DamagedFile as exc:  # a folder or a FIFO in its place
        raise DamagedFile(path, exc.what, redo) from None
    rows = found.rows
    if found.stopped:
        said = (f"where the run scored {len(tests)} test tasks" if tests is not None else
                f"where result.json counts {expected}" if expected == cap else "(no test split holds as many)")
        raise DamagedFile(path, f"holds more than {cap} predictions {said}", redo)
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
        problem = field_problem(row, present=PREDICTION_FIELDS) or _outside_unit(row) or _not_scored(row, tests)
        if problem:
            raise DamagedFile(path, f"prediction {i + 1}: {problem}", redo)
        if row["task_id"] in seen:  # before: rows repeated over others (as many rows) were scored twice
            raise DamagedFile(path, f"prediction {i + 1} scores task {row['task_id'][:80]!r} again (prediction "
                              f"{seen[row['task_id']] + 1} scored it); a run scores each task once", redo)
        seen[row["task_id"]] = i
    if tests is not None and len(rows) != len(tests):
        raise DamagedFile(path, f"holds predictions of {len(rows)} of the {len(tests)} test tasks the run scored",
                          redo)
    return [{**row, "answer": read_answer(row["answer"])} if "answer" in row else row for row in rows]


def _outside_unit(row: dict[str, Any]) -> str:
    """What a score outside [0, 1] says ("" when none is)."""
    name = next((k for k in UNIT_FIELDS if k in row and not 0 <= row[k] <= 1), None)
    return "" if name is None else (f"its {name!r} is {row[name]!r:.40}, outside [0, 1] (a run writes success as "
                                    "true/false, f1 and score in [0, 1])")


def _not_scored(row: dict[str, Any], tests: dict[str, str] | None) -> str:
    """What a row of a task the run did not score, or of another family than its task's, says."""
    if tests is None:
        return ""
    task, family = row["task_id"], row["family"]
    if task not in tests:
        return f"task {task[:80]!r} is not among the {len(tests)} test tasks the run scored"
    return "" if tests[task] == family else (f"gives task {task[:80]!r} family {family[:40]!r}, where its suite's is "
                                             f"{tests[task]!r}")
