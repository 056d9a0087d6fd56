"""Methods x seeds on one suite: planning, parallel worker processes, resume, then the report.

Runs go to worker processes (``concurrent.futures.ProcessPoolExecutor`` with the "spawn"
context, so no worker inherits a half-initialised torch or thread pool); ``workers=1`` runs
inline in this process. A run with a ``DONE`` marker is skipped without starting a worker;
an unfinished one is resumed. A run that another live process is writing (a second
``compare`` on the same ``--out``: see the run folder's ``.lock``) is skipped at first, said
so, then waited for after the others (finished there with other settings, it is refused as a finished
run found at the start is: "holds a different run"; no report is written). A run that raises is reported and the others go on; a worker
that dies (killed, out of memory) breaks the pool: the runs it took down are reported as
failed and the same command resumes them (a script whose workers re-run its call, having no
``if __name__ == "__main__":``, is told so: see worker_start). Ctrl-C stops at once; finished runs are kept.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from searchgym.devices import check_device, resolve_device
from searchgym.fileio import check_folder_can_be_made, refuse_link
from searchgym.harness.methods import BASELINE_METHODS, MethodRef, load_method, trains
from searchgym.harness.out_folders import COMPARISON, REPORT_FILES, check_out_folder
from searchgym.harness.progress import StepProgress
from searchgym.harness.progress_base import builds_in_progress
from searchgym.harness.report import ReportPaths, write_report
from searchgym.harness.report_files import ReportNotWritten
from searchgym.harness.runner import RunOutcome, RunSpec, check_identity, execute_run_safely, is_done
from searchgym.harness.worker_pool import run_in_pool
from searchgym.harness.worker_start import exit_if_starting_worker
from searchgym.suites import Suite

EXECUTORS = ("local", "ray")


def check_ray_options(executor: str, ray_address: str | None, retries: int | None, cli: bool = False) -> None:
    """The ray executor's own options under another executor are an error naming those given, as the
    caller spelt them: ``--retries`` and ``--executor ray`` for the CLI (``cli``), ``retries`` and
    ``executor='ray'`` for :class:`Comparison`. Why: one sentence in both spellings named
    ``ray_address`` where only ``--retries`` was given."""
    values = {"ray_address": ray_address, "retries": retries}
    given = [name for name, value in values.items() if value is not None]
    if executor == "ray" or not given:
        return
    names = [f"--{name.replace('_', '-')}" for name in given] if cli else given
    verb = "is an option" if len(names) == 1 else "are options"
    fix = "--executor ray" if cli else "executor='ray'"
    raise ValueError(f"{' and '.join(names)} {verb} of the ray executor; add {fix}")


@dataclass
class Comparison:
    """What ``searchgym compare`` was asked to do."""

    suite: Suite
    methods: list[MethodRef]
    seeds: list[int]
    budget: int
    out: Path
    device: str = "auto"
    workers: int = 1
    policy: str = "hash"
    progress: bool = True
    reference: str = "cw_grpo"
    options: dict[str, Any] = field(default_factory=dict)
    executor: str = "local"  # "ray": every run a Ray task (searchgym.harness.ray_executor)
    ray_address: str | None = None
    retries: int | None = None  # ray only: extra attempts for a failed run (None: the executor's default)
    logger: str = "none"  # "tensorboard" or "wandb": also send metrics rows there

    def __post_init__(self) -> None:
        self._read_python_arguments()
        if isinstance(self.budget, bool) or not isinstance(self.budget, int) or self.budget < 0:
            raise ValueError(f"budget must be a non-negative int (env steps), got {self.budget!r}")
        if isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 1:
            raise ValueError(f"workers must be a positive int, got {self.workers!r}")
        if not self.seeds or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in self.seeds):
            raise ValueError(f"seeds must be non-negative ints, got {self.seeds!r}")
        repeated = sorted({s for s in self.seeds if list(self.seeds).count(s) > 1})
        if repeated:  # before: --seeds 0,0 ran seed 0 once and counted it twice in every interval
            raise ValueError(f"seeds must be distinct; repeated: {', '.join(map(str, repeated))}")
        if self.executor not in EXECUTORS:
            raise ValueError(f"unknown executor {self.executor!r}; accepted: {', '.join(EXECUTORS)}")
        check_ray_options(self.executor, self.ray_address, self.retries)
        if self.executor == "ray" and importlib.util.find_spec("ray") is None:
            from searchgym.harness.ray_executor import RAY_MISSING

            raise ValueError(RAY_MISSING)
        if self.retries is not None:  # before: checked once the progress bar was drawn
            from searchgym.harness.ray_executor import check_retries

            check_retries(self.retries)
        self.out = Path(self.out)
        if self.out.exists() and not self.out.is_dir():
            raise ValueError(f"--out {self.out} is a file; choose a new folder (or the folder of an earlier compare)")
        check_out_folder(self.out, COMPARISON)  # before: runs and a report were written beside another's files
        if (self.out / "config.json").exists() or is_done(self.out):  # before: a comparison was written into it
            raise ValueError(f"--out {self.out} is one run's folder (it holds config.json), not a "
                             "comparison's; choose a new folder (or the folder of an earlier compare)")

    def _read_python_arguments(self) -> None:
        """What a Python caller may give as the CLI does: a suite id, a ``--methods`` string or a list of
        entries, NumPy seeds. Why: ``suite="quick-v2"`` failed after the runs ("'str' object has no
        attribute 'id'"), ``methods="random"`` was read letter by letter, ``options=[1]`` was "not a
        mapping" inside a run."""
        from searchgym.harness.loggers import LOGGERS
        from searchgym.harness.methods import parse_methods, resolve_method
        from searchgym.suites import get_suite

        if isinstance(self.suite, str):
            self.suite = get_suite(self.suite)
        if not isinstance(self.suite, Suite):
            raise TypeError(f"suite must be a Suite or a suite id, got {type(self.suite).__name__}")
        if isinstance(self.methods, str):
            self.methods = parse_methods(self.methods)
        elif isinstance(self.methods, Sequence) and self.methods:
            self.methods = [resolve_method(m) if isinstance(m, str) else m for m in self.methods]
        if not self.methods or not all(isinstance(m, MethodRef) for m in self.methods):
            raise TypeError("methods must be a non-empty list of method entries (names such as 'grpo', or "
                            "MethodRef), or a --methods string such as 'grpo,random'")
        if isinstance(self.seeds, Sequence) and not isinstance(self.seeds, str):
            self.seeds = [int(s) if isinstance(s, np.integer) else s for s in self.seeds]
        elif isinstance(self.seeds, int | np.integer) and not isinstance(self.seeds, bool):  # `--seeds 3` is a count
            raise TypeError(f"seeds is a list of seeds, got the int {self.seeds}; for {self.seeds} seeds from 0 "
                            f"give seeds=list(range({self.seeds})) (--seeds {self.seeds} on the command line)")
        if not isinstance(self.options, Mapping):
            raise TypeError(f"options must be a dict of method options, got {type(self.options).__name__}")
        self.options = dict(self.options)
        if not isinstance(self.out, str | os.PathLike):
            raise TypeError(f"out must be the comparison's folder (a str or a path), got {type(self.out).__name__}")
        if self.logger not in LOGGERS:
            raise ValueError(f"unknown logger {self.logger!r}; accepted: {', '.join(LOGGERS)}")

    def plan(self) -> list[RunSpec]:
        threads = 1  # one torch thread per run: faster under load, and bit-identical reruns (see provenance)
        inline = self.workers == 1
        # Each seed's first run leads, then the rest seed by seed: the first method (make main's sft)
        # builds the seed's supervised base, so the workers build different seeds' bases side by
        # side instead of one waiting on the other's lock for the same base.
        order = [(seed, 0) for seed in self.seeds] + [(seed, k) for seed in self.seeds
                                                       for k in range(1, len(self.methods))]
        return [RunSpec(self.suite, self.methods[k], seed, self.budget, self.out, self.device, self.policy,
                        progress=self.progress and inline, threads=threads,
                        options={**self.options, **dict(self.methods[k].options)},
                        logger=self.logger)
                for seed, k in order]


@dataclass(frozen=True)
class ComparisonResult:
    outcomes: list[RunOutcome]
    report: ReportPaths | None

    @property
    def failed(self) -> list[RunOutcome]:
        return [o for o in self.outcomes if o.status == "failed"]


def _progress_bar(total: int, enabled: bool):
    """Env steps summed over every run (a finished run counts its whole budget)."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="env steps", unit="step", unit_scale=True, disable=not enabled)


def run_comparison(comparison: Comparison, on_outcome: Callable[[RunOutcome], None] | None = None) -> ComparisonResult:
    """Check the comparison's settings as ``searchgym compare`` does, do every unfinished run, then write
    the report from every finished one (a report that cannot be written there is
    :class:`~searchgym.harness.report_files.ReportNotWritten`, with the runs' outcomes). Why the check here:
    a Python caller's unknown option was taken silently (``random`` with ``{"foo": 1}``), or failed in each
    run, leaving a folder per run."""
    from searchgym.harness.preflight import check_comparison

    exit_if_starting_worker()  # a script without `if __name__ == "__main__":`, re-run by a worker
    check_comparison(comparison)
    for method in comparison.methods:
        load_method(method)  # fail fast: unknown or unimportable methods, before any work
    check_device(comparison.device)  # "cuda:x" under any executor (before: taken, then each run failed)
    if comparison.executor == "local":  # a Ray driver may have no GPU where its workers do
        resolve_device(comparison.device)
    specs = comparison.plan()
    check_folders(comparison.out, specs)
    outcomes: list[RunOutcome] = []
    todo = []
    for spec in specs:
        if is_done(spec.run_dir):
            check_identity(spec)
            outcomes.append(RunOutcome(spec.method.label, spec.seed, str(spec.run_dir), "skipped"))
        else:
            todo.append(spec)
    steps = StepProgress(comparison.budget, [spec.run_dir for spec in specs])
    for outcome in outcomes:
        steps.finish(outcome.run_dir)
    bar = _progress_bar(steps.total, comparison.progress)
    by_run = {(spec.method.label, spec.seed): spec for spec in todo}
    busy: list[RunSpec] = []
    last = [""]  # the postfix: the last run's outcome, then any base a worker is building
    started = time.time() - 2.0  # a building.json older than this is a killed build's (coarse mtimes)

    def advance() -> None:
        bar.update(steps.poll() - bar.n)
        if comparison.progress:  # a base builds before its run's first step: the bar said nothing of it
            bar.set_postfix_str("; ".join(filter(None, [last[0], *builds_in_progress(comparison.out / "bases",
                                                                                       started)])))

    def record(outcome: RunOutcome) -> None:
        if outcome.status == "busy":
            bar.write(f"run {outcome.label}/seed{outcome.seed}: {outcome.error}; waiting for it after the others",
                      file=sys.stderr)
            busy.append(by_run[(outcome.label, outcome.seed)])
            return
        if outcome.status == "failed" and is_done(outcome.run_dir):  # finished by another process meanwhile:
            # refused as a finished run found up front is, no report written (before: a failed run, then
            # this comparison's report, of its settings, written over that other run's)
            check_identity(by_run[(outcome.label, outcome.seed)])
        outcomes.append(outcome)
        steps.finish(outcome.run_dir)
        last[0] = f"{outcome.label}/seed{outcome.seed} {outcome.status}"
        advance()
        if outcome.status == "failed":
            see = f" (see {outcome.error_file})" if outcome.error_file else ""  # before: named one never written
            bar.write(f"run {outcome.label}/seed{outcome.seed} failed: {outcome.error}{see}")
        if on_outcome is not None:
            on_outcome(outcome)

    try:
        advance()
        if comparison.executor == "ray":
            _run_on_ray(comparison, todo, record, bar.write, advance)
        elif comparison.workers == 1 or len(todo) <= 1:
            for spec in todo:
                record(execute_run_safely(spec))
        else:
            run_in_pool(todo, comparison.workers, specs[0].threads, record, advance)
        for spec in busy:  # held by another process: wait, then skip it (DONE) or resume it (it died)
            record(execute_run_safely(spec, wait=True))
    finally:
        bar.close()
    labels = [m.label for m in comparison.methods]
    try:
        report = write_report(comparison.out, comparison.suite, labels, comparison.seeds, comparison.reference,
                              comparison.budget)
    except ReportNotWritten as exc:  # the runs' outcomes go with it: `compare` prints them with the table
        exc.outcomes = outcomes
        raise
    return ComparisonResult(outcomes, report)



def check_folders(out: Path, specs: Sequence[RunSpec]) -> None:
    """Refuse a file standing where a folder of the comparison belongs (``out/runs``, a method's or a
    run's folder, ``out/bases`` where a base is built, an unfinished learning run's ``checkpoint``,
    ``out/curves``), and a folder where a report file belongs: else every run fails on it, and the
    report says to re-run, which cannot help; or, for the report's paths, the error came only after
    every run had trained. A folder written into (all but a finished run's) that is a symbolic link is
    refused too: before, the comparison wrote where it pointed (a folder from someone else may hold one)."""
    out = Path(out)
    check_folder_can_be_made(out, "--out")  # before: every run failed on it, each pointing at an error.txt it could not write
    folders: set[Path] = {out / "curves"}
    written: set[Path] = {out / "curves"}
    files: set[Path] = {out / name for name in REPORT_FILES}
    for spec in specs:
        chain = {spec.run_dir, *(p for p in spec.run_dir.parents if out in p.parents)}
        unfinished = not is_done(spec.run_dir)
        folders |= chain
        written |= chain if unfinished else set()
        if spec.method.path == BASELINE_METHODS["sft"] or spec.options.get("init") == "sft":
            folders.add(out / "bases")
            written.add(out / "bases")
        if trains(load_method(spec.method)):
            files.add(out / "curves" / f"{spec.method.label}.png")
            if unfinished:
                folders.add(spec.run_dir / "checkpoint")
                written.add(spec.run_dir / "checkpoint")
    for folder in sorted(written, key=lambda p: len(p.parts)):
        refuse_link(folder)
    for folder in sorted(folders, key=lambda p: len(p.parts)):
        if folder.exists() and not folder.is_dir():
            raise ValueError(f"{folder} is a file where a folder of the comparison belongs; move it, or choose "
                             f"another --out")
    for path in sorted(files):
        if path.is_dir():
            raise ValueError(f"{path} is a folder where a file of the comparison's report belongs; move it, or "
                             "choose another --out")
    check_writable(out, [spec.run_dir for spec in specs if not is_done(spec.run_dir)])


def check_writable(out: Path, run_folders: Sequence[Path]) -> None:
    """Refuse an existing ``--out`` where the unfinished runs cannot write: a probe file is made and removed
    in the nearest existing folder of each (a folder not made yet is :func:`check_folder_can_be_made`'s).
    Why: in a read-only --out every run failed in turn, then the report's error named a temp file and
    said a re-run would resume."""
    nearest = {next(p for p in (folder, *folder.parents) if os.path.lexists(p)) for folder in run_folders}
    for folder in sorted(p for p in nearest if p == out or out in p.parents):
        try:  # not named as a temp file: another compare's clean-up of those could remove it first
            fd, probe = tempfile.mkstemp(prefix=".searchgym-probe.", suffix=".probe", dir=folder)
            os.close(fd)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(probe)
        except OSError as exc:
            raise ValueError(f"--out {out} is not writable: no file can be made in {folder} "
                             f"({exc.strerror or exc}); choose another --out") from None


def _run_on_ray(comparison: Comparison, todo: Sequence[RunSpec], record: Callable[[RunOutcome], None],
                notice: Callable[[str], None], tick: Callable[[], None] = lambda: None) -> None:
    from searchgym.harness.ray_executor import DEFAULT_RETRIES, RayCluster, run_on_ray

    cluster = RayCluster(comparison.ray_address, comparison.workers if comparison.workers > 1 else None)
    retries = DEFAULT_RETRIES if comparison.retries is None else comparison.retries
    run_on_ray(todo, record, cluster, retries, notice, tick=tick)  # the bar moves while runs work
