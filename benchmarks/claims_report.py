"""The numbers and the words of docs/RESULTS.md, computed from finished harness runs.

Every sentence of a "reading" is generated from the numbers here (never written by hand), so a
rerun with other seeds or budgets says what those numbers say. Used by ``benchmarks/claims.py``.

- :func:`holm` — Holm-Bonferroni adjusted p-values (step-down, monotone, capped at 1);
- :func:`paired_rows` — method a vs method b for a list of pairs: mean difference in per-task success
  with a 95% two-level bootstrap interval (seeds paired by seed value), the paired sign-flip p-value
  of :mod:`searchgym.harness.stats`, and Holm's correction over all the pairs of the list;
- :func:`entropy_summary` — first and last logged policy entropy per method (collapse or not).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from searchgym.harness.report import RunRecord
from searchgym.harness.stats import bootstrap_ci, paired_permutation_test

#: An entropy "collapse": the last logged entropy is below this fraction of the first one.
COLLAPSE_FRACTION = 0.2
ALPHA = 0.05


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: the i-th smallest p times (m - i), running max, capped at 1."""
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p, kind="stable")
    adjusted = np.empty_like(p)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[index]))
        adjusted[index] = running
    return adjusted.tolist()


def by_label(records: Sequence[RunRecord]) -> dict[str, list[RunRecord]]:
    grouped: dict[str, list[RunRecord]] = {}
    for record in records:
        grouped.setdefault(record.label, []).append(record)
    return grouped


def success_matrix(runs: Sequence[RunRecord], task_ids: Sequence[str], seeds: Sequence[int]) -> np.ndarray:
    """(seeds x tasks) success of one method, rows in ``seeds`` order."""
    by_seed = {r.seed: {p["task_id"]: float(p.get("success", 0.0)) for p in r.predictions} for r in runs}
    return np.array([[by_seed[s].get(t, 0.0) for t in task_ids] for s in seeds], dtype=float)


@dataclass(frozen=True)
class PairedRow:
    a: str
    b: str
    difference: float  # mean over seeds and tasks of success(a) - success(b)
    low: float
    high: float
    p_raw: float
    p_holm: float
    seeds: int
    tasks: int


def paired_rows(records: Sequence[RunRecord], pairs: Sequence[tuple[str, str]], resamples: int = 2000) -> list[PairedRow]:
    """a - b for each pair with finished runs on shared seeds (seeds paired by value), Holm over the list."""
    grouped = by_label(records)
    raw = []
    for k, (a, b) in enumerate(pairs):
        if a not in grouped or b not in grouped:
            continue
        seeds = sorted({r.seed for r in grouped[a]} & {r.seed for r in grouped[b]})
        task_ids = sorted({p["task_id"] for r in grouped[a] for p in r.predictions})
        if not seeds or task_ids != sorted({p["task_id"] for r in grouped[b] for p in r.predictions}):
            continue
        x, y = success_matrix(grouped[a], task_ids, seeds), success_matrix(grouped[b], task_ids, seeds)
        interval = bootstrap_ci(x - y, resamples=resamples, rng=np.random.default_rng([k, 7]))
        test = paired_permutation_test(x.mean(axis=0), y.mean(axis=0), rng=np.random.default_rng([k, 3]))
        raw.append((a, b, interval, test.p_value, len(seeds), len(task_ids)))
    adjusted = holm([r[3] for r in raw]) if raw else []
    return [PairedRow(a, b, i.mean, i.low, i.high, p, q, n, t) for (a, b, i, p, n, t), q in zip(raw, adjusted)]


def format_p(p: float) -> str:
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def paired_table(rows: Sequence[PairedRow]) -> str:
    lines = ["| comparison | difference in success [95% CI] | raw p | Holm p | seeds | tasks |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r.a} - {r.b} | {r.difference:+.3f} [{r.low:+.3f}, {r.high:+.3f}] | {format_p(r.p_raw)} | "
                     f"{format_p(r.p_holm)} | {r.seeds} | {r.tasks} |")
    return "\n".join(lines)


def verdict(row: PairedRow) -> str:
    """One generated sentence: the sign of a - b, its interval and the corrected p."""
    a, b = row.a, row.b
    if row.difference > 0 and row.p_holm < ALPHA:
        word = f"holds here: {a} beats {b}"
    elif row.difference < 0 and row.p_holm < ALPHA:
        word = f"does not hold here, it is reversed: {b} beats {a}"
    else:
        sign = "above" if row.difference > 0 else "below" if row.difference < 0 else "equal to"
        word = f"is not shown here: {a} is {sign} {b}, not significantly after correction"
    return (f"The sign of {a} > {b} {word} (diff {row.difference:+.3f} [{row.low:+.3f}, {row.high:+.3f}], "
            f"raw p = {format_p(row.p_raw)}, corrected p = {format_p(row.p_holm)}, {row.seeds} seeds x {row.tasks} tasks).")


def scale_note(seeds: int, tasks: int, min_seeds: int = 5, min_tasks: int = 150) -> str:
    """Says whether a run is at the scale the claim needs; a smaller run supports no claim."""
    if seeds >= min_seeds and tasks >= min_tasks:
        return f"Scale: {seeds} seeds x {tasks} test tasks (the claim needs at least {min_seeds} x {min_tasks})."
    return (f"Scale: {seeds} seeds x {tasks} test tasks, BELOW the {min_seeds} seeds x {min_tasks} tasks the claim "
            f"needs: a smoke run; read nothing into these numbers.")


def entropy_series(record: RunRecord, key: str = "loss/entropy") -> list[tuple[int, float]]:
    points = {int(m["step"]): float(m[key]) for m in record.metrics if key in m and "step" in m}
    return sorted(points.items())


def entropy_summary(records: Sequence[RunRecord]) -> dict[str, tuple[float, float]]:
    """Per method: (mean first logged entropy, mean last logged entropy) over its seeds."""
    out = {}
    for label, runs in by_label(records).items():
        series = [s for s in (entropy_series(r) for r in runs) if s]
        if series:
            out[label] = (float(np.mean([s[0][1] for s in series])), float(np.mean([s[-1][1] for s in series])))
    return out


def entropy_reading(label: str, first: float, last: float) -> str:
    fraction = last / first if first > 0 else float("nan")
    collapsed = first > 0 and fraction < COLLAPSE_FRACTION
    word = "an entropy collapse IS seen" if collapsed else "no entropy collapse is seen"
    return (f"{label}: policy entropy goes from {first:.3f} to {last:.3f} ({fraction:.0%} of its start): {word} "
            f"(collapse = below {COLLAPSE_FRACTION:.0%} of the start).")


def relative_gain(calibrated: float, plain: float) -> float:
    return (calibrated - plain) / plain if plain > 0 else float("nan")
