"""Run folders as pandas DataFrames: every run's metrics rows and test predictions in one table.

    from searchgym.harness import load_results
    df = load_results("runs/quick")          # a `compare --out` folder, or one `train --out` folder
    curves = df[df.kind == "metrics"].pivot_table(index="step", columns="method", values="dev_success")
    test = df[df.kind == "prediction"].groupby(["method", "family"]).success.mean()

Each row has ``kind`` ("metrics": a ``metrics.jsonl`` row; "prediction": a
``predictions.jsonl`` row), ``method``, ``seed``, ``suite_id``, ``run_dir``, ``done`` (the run
finished) and ``privileged`` (it reads what no agent sees: the oracle, or the scripted endpoint
replaying it, as a finished run's ``result.json["endpoint"]`` says), then the row's own fields under their file names (``step``, ``dev_success``,
``loss`` ...; ``task_id``, ``family``, ``success``, ``f1`` ...). A field a row lacks is NaN.
Unfinished runs are included (their metrics so far; predictions only exist once a run is done).
A finished run's predictions must be of the test tasks it scored, when its suite is one this searchgym
can build with the hash the run recorded (else they are read as they are). Files are read as
``searchgym report`` reads them (:mod:`searchgym.harness.run_reads`): within bounds, never through a link.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from searchgym.damaged import DELETE_AND_RERUN, DamagedFile, read_bounded, warn_damaged
from searchgym.envs.config import MAX_SEED
from searchgym.extras import require
from searchgym.fileio import folder_argument
from searchgym.harness import run_reads
from searchgym.harness.finished_files import redo_remedy
from searchgym.harness.privileged_runs import run_reads_private_state
from searchgym.harness.run_reads import (
    is_seed_folder,
    linked_runs,
    metrics_rows,
    run_json,
    scored_tasks,
    suite_from_config,
)
from searchgym.harness.runner import is_done
from searchgym.shown import safe_repr

pd = require("pandas", "searchgym.harness.load_results")  # the report extra

#: A summary.csv has a few rows per method, family and seed; more than this is not one we wrote.
MAX_SUMMARY_BYTES = 64 * 1024 * 1024
#: What ``load_results`` and ``run_folders`` take, as their errors name it.
RUNS_FOLDER = "a `searchgym compare --out` or `train --out` folder"
RUN_COLUMNS = ("kind", "method", "seed", "suite_id", "run_dir", "done", "privileged")


def run_folders(directory: str | os.PathLike) -> list[Path]:
    """The run folders (each holding ``config.json``) of ``directory``, sorted: itself when it is one;
    a comparison's ``runs/<label>/seed<N>`` when it is a ``compare --out`` folder; else every run
    folder under it, not looking inside one. Why: every ``config.json`` at any depth was read, so a
    backup copy (``runs.bak/``) doubled every row, and a run's own subfolders were searched."""
    root = folder_argument(directory, "run_folders: directory", RUNS_FOLDER)
    if not root.is_dir():
        raise FileNotFoundError(f"{root} is not a folder; pass a `searchgym compare --out` or `train --out` folder")
    if (root / "config.json").is_file():
        return [root]
    if (root / "runs").is_dir() or (root / "runs").is_symlink():  # a comparison: its own layout, nothing beside it
        linked_runs(root / "runs")  # a link there is refused (before: a folder elsewhere was read as a run)
        return sorted(p.parent for p in (root / "runs").glob("*/seed*/config.json") if is_seed_folder(p.parent))
    found = []
    for folder, subfolders, files in os.walk(root):
        if "config.json" in files:
            found.append(Path(folder))
            subfolders.clear()  # a run folder's own folders (checkpoint/, tensorboard/) hold no runs
        else:
            subfolders.sort()
    return sorted(found)


def _rows(folder: Path, suites: dict) -> list[dict]:
    """A run's metrics rows, then its prediction rows, its config.json and DONE read once for both. A
    finished run's predictions are read as the report reads them: before, a file cut short (or a folder in
    its place) gave fewer rows (or none) with no word. ``suites`` keeps the test tasks of each suite already
    built, by (suite_id, suite_hash)."""
    from searchgym.harness.report import (  # numpy: after pandas
        finished_json,
        finished_predictions,
        tested_count,
    )

    done = is_done(folder)
    kinds = [(kind, folder / name) for kind, name in (("metrics", "metrics.jsonl"), ("prediction", "predictions.jsonl"))
             if (folder / name).exists() or (folder / name).is_symlink() or (done and kind == "prediction")]
    if not kinds:
        return []
    config = finished_json(folder, "config.json") if done else run_json(folder / "config.json", DELETE_AND_RERUN)
    seed = config.get("seed")
    # before: a ValueError from pandas' astype, and for a seed past int64 an OverflowError
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise DamagedFile(folder / "config.json", f"holds seed {safe_repr(seed, 40)}, not an integer in "
                          f"0..{MAX_SEED}",
                          redo_remedy(folder) if done
                          else "delete it and re-run the same command")
    result = finished_json(folder, "result.json") if done else {}  # its endpoint report: who played the agent
    privileged = run_reads_private_state(config, result.get("endpoint"))
    found, run = [], {"method": config.get("method"), "seed": config.get("seed"), "suite_id": config.get("suite_id"),
                      "run_dir": str(folder), "done": done, "privileged": privileged}
    for kind, path in kinds:
        head = {"kind": kind, **run}
        if done and kind == "prediction":
            tests = _test_tasks(folder / "config.json", config, suites)
            scored = None if tests is None else scored_tasks(tests, config, folder / "config.json", redo_remedy(folder))
            rows = finished_predictions(folder, tested_count(result), scored)
        else:
            rows = _metrics_rows(path, redo_remedy(folder) if done else DELETE_AND_RERUN)
        found += [{**head, **{k: v for k, v in row.items() if k not in head}} for row in rows]
    return found


def _metrics_rows(path: Path, remedy: str) -> list[dict]:
    """A metrics.jsonl's rows within the bounds a run's file keeps (:mod:`run_reads`): past them, one line
    naming it (before: every row was kept, so 60 MB of padded rows took 1.5 GB)."""
    found = metrics_rows(path, remedy)
    if found.stopped:
        raise DamagedFile(path, f"{found.stopped}, more than a run writes", remedy)
    if found.overlong:
        warn_damaged(DamagedFile(path, f"holds {found.overlong} line(s) longer than {run_reads.MAX_METRICS_LINE} "
                                 "bytes, which no run writes"), "they are left out")
    return found.rows


def _test_tasks(path: Path, config: dict, suites: dict) -> list[tuple[str, str]] | None:
    """(task id, family) of the test split of the suite ``config`` records, when this searchgym builds
    that suite with the recorded hash (a registered one, or the definition config.json holds, checked
    before its world is made); None when it does not (another version's suite: not checked)."""
    from searchgym.suites import SUITES

    key = (config.get("suite_id"), config.get("suite_hash"))
    if key not in suites:
        suite = SUITES[key[0]] if isinstance(key[0], str) and key[0] in SUITES else None
        if suite is None and isinstance(config.get("suite"), dict):
            try:
                suite = suite_from_config(path, config, redo_remedy(path.parent))
            except DamagedFile:  # another version's suite (or no suite we build): its rows are read as they are
                suite = None
        ok = suite is not None and suite.id == key[0] and suite.content_hash == key[1]
        suites[key] = [(t.id, t.family) for t in suite.tasks("test")] if ok else None
    return suites[key]


def load_results(directory: str | os.PathLike) -> pd.DataFrame:
    """All metrics and prediction rows of every run under ``directory`` (see the module docstring)."""
    folders = run_folders(folder_argument(directory, "load_results: directory", RUNS_FOLDER))
    if not folders:
        raise FileNotFoundError(f"no run folders (with config.json) under {directory}")
    suites: dict = {}
    rows = [row for folder in folders for row in _rows(folder, suites)]
    frame = pd.DataFrame(rows)
    for column in RUN_COLUMNS:
        if column not in frame:
            frame[column] = pd.Series(dtype=object)
    frame = frame[[*RUN_COLUMNS, *(c for c in frame.columns if c not in RUN_COLUMNS)]]
    frame["seed"] = frame["seed"].astype("Int64")
    frame["done"] = frame["done"].astype(bool)
    frame["privileged"] = frame["privileged"].astype(bool)
    return frame


def load_summary(directory: str | os.PathLike) -> pd.DataFrame:
    """``summary.csv`` of a comparison with its column types (``seed`` is empty on aggregate rows).

    A damaged file is :class:`DamagedFile` naming it. Why: a file cut short loaded as fewer rows
    (none at all when cut inside the header) or with a last row of NaNs, and other damage ended
    in a pandas or codec traceback; a folder in its place was "no summary.csv"."""
    path = folder_argument(directory, "load_summary: directory", "a `searchgym compare --out` folder") / "summary.csv"
    if not (path.exists() or path.is_symlink()):
        raise FileNotFoundError(f"no summary.csv in {directory}; `searchgym compare` writes it")
    rewrite = "re-run the same `searchgym compare` command to write it again (finished runs are kept)"
    data = read_bounded(path, MAX_SUMMARY_BYTES, rewrite)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DamagedFile(path, f"is not UTF-8 text (at byte offset {exc.start})", rewrite) from None
    if not text.endswith("\n"):
        raise DamagedFile(path, "is cut short (empty, or its last line has no end)", rewrite)
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:  # before: "_csv.Error: field larger than field limit (131072)", naming no file
        raise DamagedFile(path, f"is not a CSV file `searchgym compare` writes ({exc})", rewrite) from None
    if not {"method", "family", "aggregate"} <= set(rows[0]):
        raise DamagedFile(path, "does not start with the header `searchgym compare` writes", rewrite)
    bad = next((i for i, row in enumerate(rows) if len(row) != len(rows[0])), None)
    if bad is not None:
        raise DamagedFile(path, f"line {bad + 1} has {len(rows[bad])} fields where the header has {len(rows[0])}",
                          rewrite)
    try:
        return pd.read_csv(io.StringIO(text), dtype={"method": str, "family": str, "aggregate": bool, "privileged": bool,
                                                     "seed": "Int64", "seeds": "Int64", "n": "Int64"})
    except (ValueError, TypeError) as exc:  # a value of the wrong type (pandas' parser errors are ValueErrors)
        raise DamagedFile(path, f"holds a value of the wrong type ({str(exc).splitlines()[0]})", rewrite) from None
