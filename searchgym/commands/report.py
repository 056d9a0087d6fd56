"""``searchgym report``: write a comparison's report again from its finished runs alone.

Example: ``searchgym report --out runs/quick``. Why: ``results.md`` and ``summary.csv`` were only
written by ``compare`` itself, so rebuilding them (after copying run folders together, deleting a
damaged report, or on a machine that only holds the runs) meant typing the whole ``compare``
command again, with its methods, seeds and budget. Everything the report needs is in the run
folders (``OUT/runs/<method>/seed<N>``): the suite and its hash, each run's budget and whether it
trains. Nothing is trained or evaluated; unfinished runs (no ``DONE``) are left out and counted, and
a method none of whose runs finished is named with its first error (``error.txt``). Without
``--methods`` the methods keep the order of the folder's last report (its ``summary.csv``: compare's
``--methods`` order), so the report compare wrote is written again as it was.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from searchgym.commands import out_path
from searchgym.commands.comparison_report import REFERENCE, REFERENCE_HELP, check_reference, print_removed
from searchgym.fileio import not_a_folder
from searchgym.harness.finished_files import finished_config
from searchgym.harness.recorded_registrations import registrations_lacking, tools_unrecorded
from searchgym.harness.report import run_error, write_report
from searchgym.harness.report_files import ReportNotWritten
from searchgym.harness.report_order import reported_order
from searchgym.harness.report_runs import finished_counts, running_pid
from searchgym.harness.run_reads import linked_runs, shown_text, suite_from_config
from searchgym.harness.runner import is_done
from searchgym.plugins import LOAD_PLUGIN, MODULE_NAME
from searchgym.suites import SUITES, Suite, get_suite

#: Baselines that do not train, listed after the learners in this order (the order ``make main`` uses).
ANCHORS = ("reader", "random", "oracle")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, type=out_path, help="a comparison's output folder (compare's --out)")
    parser.add_argument("--methods", default=None,
                        help="comma list of method labels: which runs the report shows, in this order (default: "
                             "every finished one, in the order of the folder's last report (its summary.csv: "
                             "compare's --methods order); others, or all where there is none, learners first, then "
                             "reader, random, oracle)")
    parser.add_argument("--reference", default=None, help=REFERENCE_HELP)  # None: not given (check_reference)


@dataclass
class FolderRuns:
    """What a report read of ``out/runs`` (the methods ``--methods`` names, or every one), each thing once."""

    #: label -> seed -> config.json of every finished run
    finished: dict[str, dict[int, dict]] = field(default_factory=dict)
    #: label -> seeds of every method none of whose runs finished. Why: they were left out of the report
    #: without a word, however their runs had failed.
    unfinished: dict[str, list[int]] = field(default_factory=dict)
    #: run folder -> its config.json, as read (:func:`write_report` reads none again)
    configs: dict[Path, dict] = field(default_factory=dict)


def finished_runs(out: Path, labels: Sequence[str] | None = None) -> FolderRuns:
    """The runs under ``out/runs``, or ``labels``' runs alone (``--methods``: the other methods' folders are
    not read); a link among the folders read (the runs folder, a method's or a seed's folder) is refused
    unread. Why only those: ``report --methods a,b`` was refused for a link in the folder of a method it was
    not asked to show."""
    if not out.exists() and not out.is_symlink():  # before: "... holds no runs folder", as for an empty one
        raise ValueError(f"--out {out} does not exist; give the --out folder of a `searchgym compare` run "
                         "(it holds runs/<method>/seed<N>)")
    what = not_a_folder(out)  # before: a broken link was only "not a folder", naming neither link nor target
    if what is not None:
        raise ValueError(f"--out {out} is {what}, not a folder; give the --out folder of a `searchgym compare` run "
                         "(it holds runs/<method>/seed<N>)")
    checked = linked_runs(out / "runs", labels)
    if not (out / "runs").is_dir():
        raise ValueError(f"{out} holds no runs folder; give the --out of a `searchgym compare` run")
    found = FolderRuns()
    for label_dir, seed_dirs in checked.items():
        for seed_dir in seed_dirs:
            if seed_dir.is_dir() and is_done(seed_dir):
                seed = int(seed_dir.name[4:])
                config = found.configs[seed_dir] = finished_config(seed_dir, label_dir.name, seed)
                found.finished.setdefault(label_dir.name, {})[seed] = config
    for label_dir, seed_dirs in checked.items():  # after every run's config.json: those errors come first
        if label_dir.name not in found.finished:
            if seeds := sorted(int(p.name[4:]) for p in seed_dirs if p.is_dir()):
                found.unfinished[label_dir.name] = seeds
    return found


def _no_finished_run(out: Path, unfinished: dict[str, list[int]]) -> str:
    """The error when no run finished: with the first failed run's error, if one failed, and the runs that live
    processes are writing (their folder's lock held), if any."""
    folders = [(f"{label}/seed{seed}", out / "runs" / label / f"seed{seed}") for label, seeds in unfinished.items()
               for seed in seeds]
    running = [(name, pid) for name, folder in folders if (pid := running_pid(folder)) is not None]
    failed = [(name, error) for name, folder in folders  # a running run's error.txt is an earlier attempt's
              if name not in dict(running) and (error := run_error(folder)) is not None]
    why = f" ({len(failed)} failed; the first, {shown_text(failed[0][0])}: {failed[0][1]})" if failed else ""
    if running:  # before: "re-run it to finish its runs" of runs being trained
        return (f"{out / 'runs'} holds no finished run yet: {len(running)} running (the first, "
                f"{shown_text(running[0][0])}, in PID {running[0][1]}){why}; report again once they have finished")
    return (f"{out / 'runs'} holds no finished run (a run folder with a DONE file){why}; "
            "run `searchgym compare ... --out` first, or re-run it to finish its runs")


def asked_labels(methods: str | None) -> list[str] | None:
    """The labels ``--methods`` names (None without it)."""
    return None if methods is None else [m.strip() for m in methods.split(",") if m.strip()]


def ordered_labels(found: dict[str, dict[int, dict]], methods: str | None,
                   listed: Sequence[str] | None = None, reported: Sequence[str] = ()) -> list[str]:
    """The report's labels; ``listed``: the methods with a finished run an error names (default: ``found``'s);
    ``reported``: without ``--methods``, the order of the folder's last report (its summary.csv), kept
    first, the other methods after it in the default order."""
    if methods is not None:
        labels = asked_labels(methods) or []
        missing = [m for m in labels if m not in found]
        if not labels or missing:
            named = ", ".join(missing) if missing else repr(methods)
            listing = ", ".join(sorted(found) if listed is None else listed)
            raise ValueError(f"--methods names no finished run: {shown_text(named)}; finished runs: "
                             f"{shown_text(listing) or 'none'}")
        repeated = sorted({m for m in labels if labels.count(m) > 1})
        if repeated:  # else its row twice, and its runs counted twice in the pooled intervals
            raise ValueError(f"--methods names a method more than once: {', '.join(repeated)} "
                             "(as compare, each label once)")
        return labels
    kept = [label for label in reported if label in found]
    trains = {label: any(c.get("trains", True) for c in seeds.values()) for label, seeds in found.items()
              if label not in kept}
    learners = sorted(label for label, t in trains.items() if t)
    learners.sort(key=lambda label: not label.startswith("sft"))  # the base first, as make main lists it
    others = sorted((label for label, t in trains.items() if not t),
                    key=lambda label: (ANCHORS.index(label) if label in ANCHORS else -1, label))
    return kept + learners + others


def _one(values: set, what: str, runs: str):
    if len(values) != 1:
        raise ValueError(f"the runs of {runs} disagree on {what} ({shown_text(', '.join(sorted(map(str, values))))}); "
                         "a report compares runs of one suite: give --methods to choose them")
    return next(iter(values))


#: A suite definition this searchgym cannot build is another version's (or was edited): a re-run would not help.
OTHER_VERSION = "report it with the searchgym version that made the runs (a suite that version defines)"


def _suite_of(suite_id: str, recorded_hash: str, configs: dict[Path, dict], where: str) -> Suite:
    """The registered suite of that id, else the one the runs' config.json define (a suite made in
    Python, as docs/ECOSYSTEM.md shows), if it is the suite they ran: its hash is theirs. Why: the
    report of such a comparison was "unknown suite", though every run records its suite. The definition
    is checked as the envs check it before its world is made (:func:`run_reads.suite_from_config`)."""
    if suite_id in SUITES:
        return get_suite(suite_id)
    path = next((path for path, c in configs.items() if isinstance(c.get("suite"), dict)), None)
    suite = None if path is None else suite_from_config(path, configs[path], OTHER_VERSION)
    if suite is None or suite.id != suite_id or suite.content_hash != recorded_hash:
        get_suite(suite_id)  # unknown: the registry's error, naming the known suites
    return suite


#: The most registrations an error names (a handed-over config.json may record any number).
SHOWN_REGISTRATIONS = 5


def _unlike_registrations(configs: dict[Path, dict], where: str) -> str | None:
    """Why the runs' suite is not this process's when registrations differ: what the runs' config.json records
    that this process has not registered (a user's tool, env id or task family: a plugin not loaded), or the
    tools this process registers that the runs were played without. Before: "unknown suite", or "their scores
    are not on this suite", for runs a report with the plugin reads."""
    definition = next((c["suite"] for c in configs.values() if isinstance(c.get("suite"), dict)), None)
    if definition is None:
        return None
    if lacking := registrations_lacking(definition):
        loaded = _recorded_plugins(configs)
        how = f"searchgym --plugin {' --plugin '.join(loaded)}" if loaded else LOAD_PLUGIN
        return (f"the runs in {where} were made with registrations this process lacks: {_listed(lacking)}; load "
                f"the module that registers them, as the process that made the runs did ({how}), and "
                "report again")
    if extra := tools_unrecorded(definition):
        return (f"the runs in {where} were played without tools this process registers: {_listed(extra)}; report "
                "without the module that registers them (--plugin, SEARCHGYM_PLUGINS)")
    return None


def _recorded_plugins(configs: dict[Path, dict]) -> list[str]:
    """The plugin modules the runs' config.json record (provenance's ``plugins``), each a dotted module name,
    at most :data:`SHOWN_REGISTRATIONS`; [] where none records them (runs of an older searchgym)."""
    found = [name for c in configs.values() if isinstance(c.get("plugins"), list)
             for name in c["plugins"] if isinstance(name, str) and MODULE_NAME.match(name) and len(name) <= 200]
    return list(dict.fromkeys(found))[:SHOWN_REGISTRATIONS]


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(shown_text(item[:200]) for item in items[:SHOWN_REGISTRATIONS])
    return shown + (f" and {len(items) - SHOWN_REGISTRATIONS} more" if len(items) > SHOWN_REGISTRATIONS else "")


def run(args: argparse.Namespace) -> int:
    asked = asked_labels(args.methods)
    read = finished_runs(args.out, asked)  # with --methods, only those methods' folders are read
    found, unfinished, counts = read.finished, read.unfinished, finished_counts(args.out)
    listed = sorted(found) if asked is None else [label for label, finished in counts.items() if finished]
    if not listed:
        raise ValueError(_no_finished_run(args.out, unfinished))
    reported = reported_order(args.out, found) if args.methods is None else []  # compare's order, kept
    labels = ordered_labels(found, args.methods, listed, reported)
    if args.methods is None:  # after the others: they have no row, and a line under the table says why
        labels += list(unfinished)
    else:
        unfinished = {}
    paths = {args.out / "runs" / label / f"seed{seed}" / "config.json": c
             for label in labels for seed, c in found.get(label, {}).items()}
    configs, where = list(paths.values()), str(args.out)
    suite_id = _one({str(c.get("suite_id")) for c in configs}, "the suite", where)
    recorded_hash = _one({str(c.get("suite_hash")) for c in configs}, "the suite's hash", where)
    try:
        suite = _suite_of(suite_id, recorded_hash, paths, where)
        if suite.content_hash != recorded_hash:
            raise ValueError(f"the runs in {where} were made on {shown_text(suite_id)} with hash "
                             f"{shown_text(recorded_hash[:12])}, and this searchgym's {shown_text(suite_id)} has "
                             f"hash {suite.content_hash[:12]}: their scores are not on this suite")
    except (ValueError, KeyError):  # a registration of a plugin the runs had and this process lacks
        unlike = _unlike_registrations(paths, where)
        if unlike is None:
            raise
        raise ValueError(unlike) from None
    learners = any(c.get("trains", True) for c in configs)  # a baseline's run may be another budget's (reused)
    budgets = {c.get("budget") for c in configs if c.get("trains", True) or not learners}
    budget = next(iter(budgets)) if len(budgets) == 1 else None
    seeds = sorted({seed for label in labels for seed in found.get(label, unfinished.get(label, {}))})
    if asked is not None:  # as compare refuses it (before: "has no finished run among ...")
        check_reference(args.reference, labels)
    if args.reference is not None and args.reference not in found:  # an explicit cw_grpo too (before: unchecked)
        raise ValueError(f"--reference {args.reference!r} has no finished run among "
                         f"{shown_text(', '.join(label for label in labels if label in found))}")
    reference = REFERENCE if args.reference is None else args.reference
    try:
        report, unsaved = write_report(args.out, suite, labels, seeds, reference=reference, budget=budget,
                                       prune_curves=True, counts=counts, configs=read.configs), None
    except ReportNotWritten as exc:  # the table still (before: only the OS's error, naming a temp file)
        report, unsaved = exc.report, exc
    print(f"Success on {shown_text(suite.id)} (test split, mean [95% bootstrap interval]):\n")
    print(report.table)
    if unsaved is not None:
        print(f"searchgym report: error: {unsaved.line()}", file=sys.stderr)
        return 1
    if report.failures:
        print("\nno finished run, so no row above:\n" + "\n".join(f"  {line}" for line in report.failures))
    shown_runs, in_folder = sum(len(found.get(label, {})) for label in labels), sum(counts.values())
    if asked is not None and shown_runs < in_folder:
        print(f"\n{args.out / 'runs'} holds {in_folder} finished runs; this report shows "
              f"{shown_runs} (those of --methods {shown_text(args.methods)}); without --methods it shows them all")
    left_out = len(labels) * len(seeds) - shown_runs
    if left_out:
        print(f"\n{left_out} of {len(labels) * len(seeds)} (method, seed) runs have not finished; they are left out")
    if budget is None and learners:
        print(f"\nthe learning runs' budgets differ ({', '.join(sorted(map(str, budgets)))}); results.md gives none, "
              "and a method whose runs differ in budget has a row per budget (<method>@budget<N>)")
    print(f"results: {report.results_md}\nsummary: {report.summary_csv}")
    print("learning curves: " + ", ".join(str(p) for p in report.curves))
    print_removed(args.out, report.removed)
    return 0
