"""The comparison's outputs: ``summary.csv``, ``results.md`` and the learning-curve PNGs.

Only finished runs (with ``DONE``) are read. ``summary.csv`` has one row per method x family
x seed (``aggregate`` = False, ``seed`` = the seed, ``seeds`` = 1) and one aggregate row per
method x family (``aggregate`` = True, ``seed`` empty, ``seeds`` = how many were pooled) with
95% two-level bootstrap intervals (see :mod:`searchgym.harness.stats`). ``results.md``
tables success and F1 as "mean [low, high]", then tests the reference method (cw_grpo by
default) against every other method on per-task success. The tables are made first, then written under
the folder's lock: summary.csv, the curves, results.md last (see :mod:`searchgym.harness.report_files`).
"""

from __future__ import annotations

import csv
import dataclasses
import io
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from searchgym.damaged import DamagedFile, warn_damaged
from searchgym.fileio import atomic_write_text, folder_argument, refuse_link
from searchgym.harness import run_reads
from searchgym.harness.finished_files import (
    finished_config,
    finished_json,
    finished_predictions,
    redo_remedy,
    tested_count,
)
from searchgym.harness.methods import PRIVILEGED_NOTE, shown_label
from searchgym.harness.plots import curve_from_rows, plot_learning_curves
from searchgym.harness.privileged_runs import IMITATED_NOTE, imitated_oracle, run_reads_private_state
from searchgym.harness.report_budgets import budget_sentence, split_by_budget
from searchgym.harness.report_diagnostics import (  # noqa: F401 (DIAGNOSTICS: this module's interface)
    DIAGNOSTICS,
    diagnostics_table,
    metric_fields,
)
from searchgym.harness.report_files import write_in_order
from searchgym.harness.report_gain import CHANCE, gain_section
from searchgym.harness.report_runs import (  # noqa: F401 (run_error, ERROR_TAIL_BYTES: this module's interface)
    ERROR_TAIL_BYTES,
    finished_counts,
    no_finished_run,
    remove_stale_curves,
    run_error,
    unfinished_sentence,
)
from searchgym.harness.run_reads import metrics_rows, refuse_linked, scored_tasks, shown_text
from searchgym.harness.runner import is_done, run_dir
from searchgym.harness.stats import bootstrap_ci, paired_permutation_test
from searchgym.json_fields import NUMBER, field_problem, is_number
from searchgym.suites import Suite

#: What ``out`` names, as the error for another value says.
COMPARISON = "a `searchgym compare --out` folder"
#: Under every success table with a comparison column: what chance is there.
CHANCE_NOTE = ("Comparisons are a pick between two options: an agent that always names one of the two "
               "scores 0.5 by chance.")

#: Every column has one type: text (method, family), bool (aggregate; privileged: the method reads what no
#: agent sees), int (seed: empty on aggregate rows; seeds, n) or float (the rest; the intervals are empty
#: on per-seed rows).
SUMMARY_FIELDS = ("method", "family", "aggregate", "seed", "seeds", "n", "success", "f1", "score", "steps", "tool_calls",
                  "success_low", "success_high", "f1_low", "f1_high", "privileged")
METRICS = ("success", "f1", "score", "steps", "tool_calls")


@dataclass
class RunRecord:
    label: str
    seed: int
    config: dict[str, Any]
    result: dict[str, Any]
    predictions: list[dict[str, Any]]
    metrics: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class ReportPaths:
    summary_csv: Path
    results_md: Path
    curves: tuple[Path, ...]
    table: str
    #: one line per method with no finished run (:func:`no_finished_run`): the table has no row for it
    failures: tuple[str, ...] = ()
    #: an earlier report's curves/*.png that this one did not draw, removed (:func:`remove_stale_curves`)
    removed: tuple[Path, ...] = ()


def load_runs(out: Path | str, labels: Sequence[str], seeds: Sequence[int], suite: Suite | None = None,
              configs: Mapping[Path, dict[str, Any]] | None = None) -> list[RunRecord]:
    """The finished runs among ``labels`` x ``seeds``; a linked run folder is refused unread (before: a
    ``runs/<method>`` link to a folder elsewhere was reported as this comparison's). With ``suite`` (the
    runs'), each run's predictions must be of the test tasks it scored (:func:`finished_predictions`).
    ``configs``: run folder -> its config.json, as the caller read it (:func:`finished_config`): not read again."""
    out, records, configs = folder_argument(out, "load_runs: out", COMPARISON), [], configs or {}
    tests = [(t.id, t.family) for t in suite.tasks("test")] if suite is not None else None
    for label in labels:
        for seed in seeds:
            folder = run_dir(out, label, seed)
            for part in (folder.parents[1], folder.parent, folder):
                refuse_linked(part)
            if not is_done(folder):
                continue
            result = finished_json(folder, "result.json")
            config = configs[folder] if folder in configs else finished_config(folder, label, seed)
            scored = None if tests is None else scored_tasks(tests, config, folder / "config.json", redo_remedy(folder))
            records.append(RunRecord(label, seed, config, result, finished_predictions(folder, tested_count(result),
                                                                                       scored),
                                     finished_metrics(folder, result.get("metrics_rows"))))
    return records


def finished_metrics(folder: Path, expected: object = None) -> list[dict[str, Any]]:
    """A finished run's metrics rows; fewer readable rows than its ``result.json`` counts (a copy cut
    at a line boundary, damaged lines) is a one-line warning. Why: the curves and diagnostics were
    drawn from what was left, with no word of the loss. The scores come from predictions, so the
    report is still written. A step, iteration, dev success or diagnostic that is not a finite number
    is left out of its row with a warning (before: a NaN step ended in "cannot convert float NaN to
    integer", a NaN diagnostic was written into results.md as "nan"). The file is read within bounds
    (:mod:`run_reads`), and each row keeps only the fields the report reads: before, 60 MB of padded
    rows took 1.5 GB, held until the report was written."""
    path, left = folder / "metrics.jsonl", "the learning curves and training diagnostics use the rows left"
    found = metrics_rows(path, redo_remedy(folder))
    if found.overlong:
        warn_damaged(DamagedFile(path, f"holds {found.overlong} line{'s' if found.overlong > 1 else ''} longer than "
                                 f"{run_reads.MAX_METRICS_LINE} bytes, which no run writes"), left)
    if found.stopped:
        warn_damaged(DamagedFile(path, f"{found.stopped}, more than a run writes"), "the learning curves and "
                     f"training diagnostics use its first {len(found.rows)} rows")
    rows = found.rows
    if isinstance(expected, int) and not isinstance(expected, bool) and len(rows) < expected:
        error = DamagedFile(folder / "metrics.jsonl", f"holds {len(rows)} readable rows where result.json counts "
                            f"{expected} (cut short or damaged)")
        warn_damaged(error, left)
    fields, first, bad = metric_fields(), "", 0
    for i, row in enumerate(rows):
        wrong = [name for name in fields if name in row and not is_number(row[name])]
        if wrong:
            bad += 1
            first = first or f"row {i + 1}: {field_problem(row, present={wrong[0]: NUMBER})}"
            rows[i] = {k: v for k, v in row.items() if k not in wrong}
    if bad:
        more = f" (and {bad - 1} more row{'s' if bad > 2 else ''})" if bad > 1 else ""
        warn_damaged(DamagedFile(folder / "metrics.jsonl", first + more),
                     "the learning curves and training diagnostics leave such values out")
    return [{k: row[k] for k in fields if k in row} for row in rows]


def _families(records: Sequence[RunRecord]) -> list[str]:
    return sorted({p["family"] for r in records for p in r.predictions})


def _matrix(records: Sequence[RunRecord], key: str, family: str | None) -> np.ndarray:
    """(seeds x tasks) values of ``key`` for one method's runs, tasks in a fixed order."""
    task_ids = sorted({p["task_id"] for r in records for p in r.predictions
                       if family is None or p["family"] == family})
    rows = []
    for r in records:
        by_id = {p["task_id"]: float(p.get(key, 0.0)) for p in r.predictions}
        rows.append([by_id.get(t, 0.0) for t in task_ids])
    return np.array(rows, dtype=float)


def _by_method(records: Sequence[RunRecord]) -> dict[str, list[RunRecord]]:
    grouped: dict[str, list[RunRecord]] = {}
    for r in records:
        grouped.setdefault(r.label, []).append(r)
    return grouped


def summary_rows(records: Sequence[RunRecord], resamples: int = 2000, rng_seed: int = 0) -> list[dict[str, Any]]:
    rows, privileged = [], privileged_labels(records)
    for label, runs in _by_method(records).items():
        for family in [*_families(records), "all"]:
            scope = None if family == "all" else family
            for r in runs:
                preds = [p for p in r.predictions if scope is None or p["family"] == scope]
                if preds:
                    rows.append({"method": label, "family": family, "aggregate": False, "seed": r.seed,
                                 "seeds": 1, "n": len(preds), "privileged": label in privileged,
                                 **{k: float(np.mean([float(p.get(k, 0.0)) for p in preds])) for k in METRICS}})
            success = _matrix(runs, "success", scope)
            if success.size == 0:
                continue
            f1 = _matrix(runs, "f1", scope)
            s_ci = bootstrap_ci(success, resamples=resamples, rng=np.random.default_rng([rng_seed, 1]))
            f_ci = bootstrap_ci(f1, resamples=resamples, rng=np.random.default_rng([rng_seed, 2]))
            rows.append({"method": label, "family": family, "aggregate": True, "seed": None,
                         "seeds": len(runs), "n": success.shape[1], "privileged": label in privileged,
                         **{k: float(_matrix(runs, k, scope).mean()) for k in METRICS},
                         "success_low": s_ci.low, "success_high": s_ci.high, "f1_low": f_ci.low, "f1_high": f_ci.high})
    return rows


def summary_csv(rows: Sequence[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=SUMMARY_FIELDS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (f"{v:.6f}" if isinstance(v, float) else v) for k, v in row.items()})
    return buffer.getvalue()


def privileged_labels(records: Sequence[RunRecord]) -> set[str]:
    """Labels of runs that read private state (``privileged_runs.run_reads_private_state``: the
    method's flag, the oracle evaluated as an agent, a run against the scripted endpoint, by its name or
    by what its replies said: ``result.json["endpoint"]``)."""
    return {r.label for r in records if run_reads_private_state(r.config, r.result.get("endpoint"))}


def anchors_note(labels: Collection[str], privileged: Collection[str], imitating: Collection[str] = ()) -> str:
    """The line under a table that says which rows are anchors and which one is privileged (``imitating``:
    those marked as a base fitted to the oracle, or runs from one: :func:`imitated_oracle`)."""
    taught = [label for label in labels if label in privileged and label in imitating]
    if taught:
        rest = anchors_note([label for label in labels if label not in taught], privileged)
        return " ".join(filter(None, [rest, f"{', '.join(taught)} (privileged) {IMITATED_NOTE}."]))
    marked = [label for label in labels if label in privileged]
    if not marked:
        return ""
    readers = [label for label in ("random", "reader") if label in labels]
    seen = (f" {' and '.join(readers)} {'read' if len(readers) > 1 else 'reads'} only what an agent sees"
            + (" (reader: the question's wording, the transcript and the candidates' provenance)."
               if "reader" in readers else ".")) if readers else ""
    return f"{', '.join(marked)} (privileged) {PRIVILEGED_NOTE}.{seen}"


def metric_table(rows: Sequence[dict[str, Any]], metric: str, labels: Sequence[str],
                 privileged: Collection[str] = ()) -> str:
    """Markdown: one row per method, a column per family, cells "mean [low, high]"; a
    ``privileged`` method's label says so."""
    aggregate = {(r["method"], r["family"]): r for r in rows if r["aggregate"]}
    families = ["all", *sorted({f for _, f in aggregate if f != "all"})]
    seeds = {label: len({r["seed"] for r in rows if r["method"] == label and not r["aggregate"]}) for label in labels}
    lines = ["| method | seeds | " + " | ".join(families) + " |", "|---|---|" + "---|" * len(families)]
    for label in labels:
        cells = []
        for family in families:
            r = aggregate.get((label, family))
            cells.append("—" if r is None else f"{r[metric]:.3f} [{r[f'{metric}_low']:.3f}, {r[f'{metric}_high']:.3f}]")
        if any(c != "—" for c in cells):
            lines.append(f"| {shown_label(label, privileged)} | {seeds[label]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def choose_reference(records: Sequence[RunRecord], preferred: str) -> str | None:
    labels = list(_by_method(records))
    if preferred in labels:
        return preferred
    learners = [r.label for r in records if r.config.get("trains", True)]
    privileged = privileged_labels(records)  # the oracle bounds the table; it is no reference (before: it was one)
    return learners[0] if learners else ([label for label in labels if label not in privileged] or labels or [None])[0]


def significance_table(records: Sequence[RunRecord], reference: str, rng_seed: int = 0) -> str:
    grouped = _by_method(records)
    privileged = privileged_labels(records)
    ref = _matrix(grouped[reference], "success", None)
    ref_ids = sorted({p["task_id"] for r in grouped[reference] for p in r.predictions})
    lines = [f"| {shown_label(reference, privileged)} vs | difference in success | p-value | tasks | test |",
             "|---|---|---|---|---|"]
    for label, runs in grouped.items():
        if label == reference:
            continue
        ids = sorted({p["task_id"] for r in runs for p in r.predictions})
        if ids != ref_ids:
            lines.append(f"| {shown_label(label, privileged)} | — | — | — | different task sets |")
            continue
        test = paired_permutation_test(ref.mean(axis=0), _matrix(runs, "success", None).mean(axis=0),
                                       rng=np.random.default_rng([rng_seed, 3]))
        kind = "exact sign-flip" if test.exact else "sign-flip, 20000 resamples"
        p = "< 0.0001" if test.p_value < 1e-4 else f"{test.p_value:.4f}"
        lines.append(f"| {shown_label(label, privileged)} | {test.mean_difference:+.3f} | {p} | {test.n_tasks} | {kind} |")
    return "\n".join(lines)


def write_report(out: Path | str, suite: Suite, labels: Sequence[str], seeds: Sequence[int],
                 reference: str = "cw_grpo", budget: int | None = None, resamples: int = 2000,
                 prune_curves: bool = False, counts: Mapping[str, int] | None = None,
                 configs: Mapping[Path, dict[str, Any]] | None = None) -> ReportPaths:
    """``prune_curves`` (``searchgym report``): remove the curves of methods this report does not show;
    ``compare`` over a few methods keeps the others' (it adds runs to a folder; it does not prune it).
    ``counts`` (:func:`finished_counts`) and ``configs`` (:func:`load_runs`): what the caller read already."""
    out = folder_argument(out, "write_report: out", COMPARISON)
    finished = load_runs(out, labels, seeds, suite, configs)
    failures, unfinished = no_finished_run(out, finished, labels, seeds), unfinished_sentence(finished, labels, seeds)
    finished, labels, reference = _shown_labels(finished, labels, reference)
    records, shown, splits = split_by_budget(finished, labels)  # no row pools runs of different budgets
    reference = splits.get(reference, [reference])[-1]
    rows = summary_rows(records, resamples=resamples)
    present = [label for label in shown if any(r.label == label for r in records)]
    curves = _curve_writers(out, records, suite)
    curves_paths = [path for path, _ in curves]
    counts = finished_counts(out) if counts is None else counts
    in_folder = sum(counts.values())
    asked = f" asked for ({in_folder} finished in the folder)" if in_folder > len(records) else ""
    privileged = privileged_labels(records)
    success = metric_table(rows, "success", present, privileged)
    note = anchors_note(present, privileged, {r.label for r in records if imitated_oracle(r.config)})
    parts = [f"# Comparison on `{shown_text(suite.id)}`", "",
             (f"Suite hash `{suite.content_hash}`; env `{shown_text(suite.env_id)}`; {len(suite.tasks('test'))} test "
              f"tasks; seeds {list(seeds)}; {budget_sentence(None if splits else budget, records, bool(splits))}."), "",
             f"Finished runs: {len(records)} of {len(labels) * len(seeds)}{asked}.{unfinished}", "",
             "## Success (mean [95% bootstrap interval over seeds and tasks])", "", success, "",
             *(["No finished run, so no row in any table:", "", *(f"- {line}" for line in failures), ""]
               if failures else []),
             *([note, ""] if note else []),
             *([CHANCE_NOTE, ""] if any(r["family"] in CHANCE for r in rows) else []),
             *gain_section(records, resamples=resamples),
             "## F1", "", metric_table(rows, "f1", present, privileged), ""]
    ref = choose_reference(records, reference)
    if ref is not None and len(present) > 1:
        note = "" if ref == reference else f" ({reference} has no finished run; {ref} is the reference)"
        parts += [f"## Significance: {shown_label(ref, privileged)} against each other method{note}", "",
                  "Paired sign-flip permutation test on per-task success (mean over seeds), two-sided.", "",
                  significance_table(records, ref), ""]
    parts += ["## Training diagnostics (mean over iterations and seeds)", "",
              ("Does contribution weighting change anything? The first column is the fraction of a batch's "
              "trajectories whose CW-GRPO advantage differs from the GRPO advantage they would get (cw_grpo "
              "only; '—' for other estimators)."), "", diagnostics_table(records), ""]
    parts += ["## Learning curves", "",
              ("Dev success during training (the tables above are test success). Methods that do not train "
              "(random, reader, oracle) are flat lines at their dev success."), ""] + [f"![{p.stem}]({p.relative_to(out).as_posix()})" for p in curves_paths]
    parts += ["", "## Runs", "", "| method | seed | train s | eval s | attempts | device |", "|---|---|---|---|---|---|"]
    for r in records:
        parts.append(f"| {shown_label(r.label, privileged)} | {r.seed} | {r.result.get('train_seconds', 0):.1f} | "
                     f"{r.result.get('eval_seconds', 0):.1f} | {r.result.get('attempt', 1)} | "
                     f"{shown_text(r.config.get('device_name', '?'))} |")
    report, removed = ReportPaths(out / "summary.csv", out / "results.md", tuple(curves_paths), success,
                                  tuple(failures)), []
    prune = [(out / "curves", lambda: removed.extend(remove_stale_curves(out, curves_paths, counts)))]
    write_in_order(out, [(out / "summary.csv", partial(atomic_write_text, out / "summary.csv", summary_csv(rows))),
                         *curves, *(prune if prune_curves else []),  # results.md last: it names the others
                         (out / "results.md", partial(atomic_write_text, out / "results.md", "\n".join(parts) + "\n"))],
                   report)
    return dataclasses.replace(report, removed=tuple(removed))


def _shown_labels(records: Sequence[RunRecord], labels: Sequence[str],
                  reference: str) -> tuple[list[RunRecord], list[str], str]:
    """The runs, labels and reference as the tables show them (:func:`run_reads.shown_text`: a label is a
    folder name of a folder that may be someone else's). Two labels shown alike are a one-line error."""
    shown = {label: shown_text(label) for label in labels}
    alike = sorted(label for label in shown.values() if list(shown.values()).count(label) > 1)
    if alike:
        raise ValueError(f"the method folders of {alike[0]} are two folders whose names differ only in control "
                         "characters; rename one")
    return ([dataclasses.replace(r, label=shown[r.label]) for r in records], [shown[label] for label in labels],
            shown.get(reference, shown_text(reference)))


def _curve_writers(out: Path, records: Sequence[RunRecord], suite: Suite) -> list[tuple[Path, Callable[[], Path]]]:
    """Each curve's path and what draws it there (drawn once the report holds its folder's lock)."""
    # a curves/ that is a link (in a folder someone handed over) sent the plots where it pointed
    refuse_link(out / "curves", "replace the link with a folder (or remove it) and run the report again")
    curves: dict[str, list] = {}
    flat: dict[str, list[float]] = {}
    for r in records:
        series = curve_from_rows(r.metrics)
        if len(series) >= 1 and r.config.get("trains", True):
            curves.setdefault(r.label, []).append(series)
        else:
            flat.setdefault(r.label, []).append(float(r.result.get("dev", {}).get("all", {}).get("success", 0.0)))
    flat_means = {k: float(np.mean(v)) for k, v in flat.items()}
    labels = [*sorted(curves), *sorted(flat_means)]  # one colour per method in every plot
    privileged = privileged_labels(records)
    plots = [(curves, out / "learning_curves.png", f"{suite.id}: dev success (mean over seeds, 95% band)"),
             *(({label: series}, out / "curves" / f"{label}.png", f"{suite.id}: {label}")
               for label, series in sorted(curves.items()))]
    return [(path, partial(plot_learning_curves, drawn, flat_means, path, title=title, labels=labels,
                           privileged=privileged)) for drawn, path, title in plots]
