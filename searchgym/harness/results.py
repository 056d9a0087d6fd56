"""Run folders as pandas DataFrames: every run's metrics rows and test predictions in one table.

    from searchgym.harness import load_results
    df = load_results("runs/quick")          # a `compare --out` folder, or one `train --out` folder
    curves = df[df.kind == "metrics"].pivot_table(index="step", columns="method", values="dev_success")
    test = df[df.kind == "prediction"].groupby(["method", "family"]).success.mean()

Each row has ``kind`` ("metrics": a ``metrics.jsonl`` row; "prediction": a
``predictions.jsonl`` row), ``method``, ``seed``, ``suite_id``, ``run_dir`` and ``done`` (the run
finished), then the row's own fields under their file names (``step``, ``dev_success``,
``loss`` ...; ``task_id``, ``family``, ``success``, ``f1`` ...). A field a row lacks is NaN.
Unfinished runs are included (their metrics so far; predictions only exist once a run is done).
"""

from __future__ import annotations

import os
from pathlib import Path

from searchgym.extras import require
from searchgym.fileio import iter_jsonl, read_json
from searchgym.harness.runner import is_done

pd = require("pandas", "searchgym.harness.load_results")  # the report extra

RUN_COLUMNS = ("kind", "method", "seed", "suite_id", "run_dir", "done")


def run_folders(directory: str | os.PathLike) -> list[Path]:
    """Every run folder (one holding ``config.json``) at or under ``directory``, sorted."""
    root = Path(directory)
    if not root.is_dir():
        raise FileNotFoundError(f"{root} is not a folder; pass a `searchgym compare --out` or `train --out` folder")
    if (root / "config.json").is_file():
        return [root]
    return sorted(p.parent for p in root.rglob("config.json"))


def _rows(folder: Path, kind: str, filename: str) -> list[dict]:
    path = folder / filename
    if not path.is_file():
        return []
    config = read_json(folder / "config.json", expect=dict)
    head = {"kind": kind, "method": config.get("method"), "seed": config.get("seed"),
            "suite_id": config.get("suite_id"), "run_dir": str(folder), "done": is_done(folder)}
    return [{**head, **{k: v for k, v in row.items() if k not in head}} for row in iter_jsonl(path)]


def load_results(directory: str | os.PathLike) -> pd.DataFrame:
    """All metrics and prediction rows of every run under ``directory`` (see the module docstring)."""
    folders = run_folders(directory)
    if not folders:
        raise FileNotFoundError(f"no run folders (with config.json) under {directory}")
    rows = [row for folder in folders
            for kind, name in (("metrics", "metrics.jsonl"), ("prediction", "predictions.jsonl"))
            for row in _rows(folder, kind, name)]
    frame = pd.DataFrame(rows)
    for column in RUN_COLUMNS:
        if column not in frame:
            frame[column] = pd.Series(dtype=object)
    frame = frame[[*RUN_COLUMNS, *(c for c in frame.columns if c not in RUN_COLUMNS)]]
    frame["seed"] = frame["seed"].astype("Int64")
    frame["done"] = frame["done"].astype(bool)
    return frame


def load_summary(directory: str | os.PathLike) -> pd.DataFrame:
    """``summary.csv`` of a comparison with its column types (``seed`` is empty on aggregate rows)."""
    path = Path(directory) / "summary.csv"
    if not path.is_file():
        raise FileNotFoundError(f"no summary.csv in {directory}; `searchgym compare` writes it")
    return pd.read_csv(path, dtype={"method": str, "family": str, "aggregate": bool, "seed": "Int64",
                                    "seeds": "Int64", "n": "Int64"})
