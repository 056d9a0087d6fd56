"""Each learning method's gain over the supervised base it started from, per family, with intervals.

Why: a learner started from a base (``--option init=sft``) means something only beside that base.
The base of a seed is the same file for every method of that seed, so the gain is paired by seed
and by task: for each seed k and task t, d[k, t] = success(method, k, t) - success(base, k, t),
and the interval is the two-level bootstrap of that (seeds x tasks) matrix (seeds, then tasks,
resampled with replacement), as for the success tables. Comparisons are a pick between two
options, so their chance rate (0.5 for an agent that always names one of the two) is shown beside
the comparison column.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from searchgym.harness.stats import bootstrap_ci

#: The label of the supervised base's row (the ``sft`` method), preferred when there.
BASE_LABEL = "sft"
#: The harness method of the base (``BASELINE_METHODS["sft"]``, without importing the methods here).
SFT_METHOD_PATH = "searchgym.harness.sft:sft_method"
#: Families whose answer is a pick between two named options, and the chance rate of such a pick.
CHANCE = {"comparison": 0.5}


def _success(run: Any, task_ids: Sequence[str]) -> np.ndarray:
    by_id = {p["task_id"]: float(p.get("success", 0.0)) for p in run.predictions}
    return np.array([by_id.get(t, 0.0) for t in task_ids], dtype=float)


def _base_file(run: Any) -> str | None:
    """The sha256 of the supervised base a run records starting from (an ``sft`` run: the one it scored)."""
    record = run.config.get("base")
    return record.get("sha256") if isinstance(record, dict) and isinstance(record.get("sha256"), str) else None


def _paired_seeds(runs: dict[int, Any], base_runs: dict[int, Any]) -> list[int]:
    """The seeds on which a method started from the very base file scored as ``base``. Why: a variant with
    its own base settings (``g=grpo[sft_epochs=3]``) or from scratch was shown as a gain over a base it
    never started from (+0.013 and +0.006 with no RL step at all). A base run recording no file (an older
    run) is paired as before."""
    return sorted(k for k in set(runs) & set(base_runs)
                  if _base_file(base_runs[k]) is None or _base_file(runs[k]) == _base_file(base_runs[k]))


def learners_not_from_base(records: Sequence[Any], base: str = BASE_LABEL) -> list[str]:
    """Labels of learning methods left out of the gain table: they started from another base or none."""
    base_runs = {r.seed: r for r in records if r.label == base}
    left = []
    for label in dict.fromkeys(r.label for r in records):
        runs = {r.seed: r for r in records if r.label == label}
        if label != base and base_runs and any(r.config.get("trains", True) for r in runs.values()) \
                and set(runs) & set(base_runs) and not _paired_seeds(runs, base_runs):
            left.append(f"{label} ({'another base' if any(map(_base_file, runs.values())) else 'no base'})")
    return left


def gain_rows(records: Sequence[Any], base: str = BASE_LABEL, resamples: int = 2000,
              rng_seed: int = 0) -> list[dict[str, Any]]:
    """One row per (learning method, family): the mean paired gain over ``base`` and its interval.

    Only methods that train and started from the base's own file are compared (random, reader and
    the oracle do not start from it, nor does a run from scratch or from other base settings); a
    method missing a seed of the base is compared on the seeds both have.
    """
    base_runs = {r.seed: r for r in records if r.label == base}
    if not base_runs:
        return []
    families = sorted({p["family"] for r in base_runs.values() for p in r.predictions})
    rows = []
    labels = list(dict.fromkeys(r.label for r in records))
    for label in labels:
        runs = {r.seed: r for r in records if r.label == label}
        if label == base or not any(r.config.get("trains", True) for r in runs.values()):
            continue
        seeds = _paired_seeds(runs, base_runs)
        if not seeds:
            continue
        for family in [*families, "all"]:
            task_ids = sorted({p["task_id"] for p in base_runs[seeds[0]].predictions
                               if family == "all" or p["family"] == family})
            if not task_ids:
                continue
            diff = np.stack([_success(runs[k], task_ids) - _success(base_runs[k], task_ids) for k in seeds])
            ci = bootstrap_ci(diff, resamples=resamples, rng=np.random.default_rng([rng_seed, 4]))
            rows.append({"method": label, "family": family, "seeds": len(seeds), "n": len(task_ids),
                         "gain": ci.mean, "gain_low": ci.low, "gain_high": ci.high})
    return rows


def gain_table(rows: Sequence[dict[str, Any]]) -> str:
    """Markdown: a row per method, a column per family, cells "+gain [low, high]"."""
    if not rows:
        return ""
    families = ["all", *sorted({r["family"] for r in rows if r["family"] != "all"})]
    header = [f"{f} (chance {CHANCE[f]:.1f})" if f in CHANCE else f for f in families]
    cells = {(r["method"], r["family"]): r for r in rows}
    lines = ["| method | seeds | " + " | ".join(header) + " |", "|---|---|" + "---|" * len(families)]
    for label in dict.fromkeys(r["method"] for r in rows):
        shown = []
        for family in families:
            r = cells.get((label, family))
            shown.append("—" if r is None else f"{r['gain']:+.3f} [{r['gain_low']:+.3f}, {r['gain_high']:+.3f}]")
        seeds = next(r["seeds"] for r in rows if r["method"] == label)
        lines.append(f"| {label} | {seeds} | " + " | ".join(shown) + " |")
    return "\n".join(lines)


def base_label(records: Sequence[Any]) -> str | None:
    """The label of the runs that score the base: ``sft`` when there, else the first label whose runs are
    the ``sft`` method sampled (``base=sft``). Why: the gain table vanished under any other label."""
    labels = list(dict.fromkeys(r.label for r in records))
    if BASE_LABEL in labels:
        return BASE_LABEL
    for label in labels:
        configs = [r.config for r in records if r.label == label]
        if all(c.get("method_path") == SFT_METHOD_PATH and (c.get("options") or {}).get("decoding", "sample")
               == "sample" for c in configs):
            return label
    return None


def gain_section(records: Sequence[Any], base: str | None = None, resamples: int = 2000) -> list[str]:
    """The results.md lines of the gain table (``base``: its label, else :func:`base_label`); none when no
    method started from a base, one line saying why when some did but no run of the base is here."""
    base = base if base is not None else base_label(records)
    if base is None:
        started = [label for label in dict.fromkeys(r.label for r in records)
                   if any(_base_file(r) for r in records if r.label == label)]
        if not started:
            return []
        return [(f"No gain over the supervised base: {', '.join(started)} started from one, and no finished run of "
                 "the base itself (the `sft` method, sampled) is in this report; add it to --methods."), ""]
    table = gain_table(gain_rows(records, base, resamples))
    if not table:
        return []
    left = learners_not_from_base(records, base)
    note = [f"Not in this table, as they did not start from the `{base}` base: {', '.join(left)}.", ""] if left else []
    return [f"## Gain over the supervised base ({base}), paired by seed and task", "",
            f"Success of each learning method minus the success of the `{base}` base of the same seed on the "
            "same task, mean [95% two-level bootstrap interval over seeds and tasks]. An interval above 0 is a "
            "gain; comparisons are a pick between two options (chance 0.5).", "", table, "", *note]
