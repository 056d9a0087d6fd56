"""One run: a method trained with one seed on one suite, then evaluated on its test split.

A run owns ``<out>/runs/<method>/seed<k>/``:

- ``config.json``: suite id and hash, method label and import path, seed, budget, policy (and
  the layout of its parameters, ``policy_format``),
  device and its name, package versions, git revision, Python and platform, attempt number;
- ``metrics.jsonl``: the method's ``ctx.log`` rows (+ ``time``, ``attempt``), appended (and sent
  to TensorBoard / W&B under the same names with ``logger=``; see :mod:`searchgym.harness.loggers`);
  a row whose ``iteration`` an earlier attempt already wrote is not written again (a resumed
  method redoes the iteration its checkpoint did not hold); rows of iterations past the resumed
  method's first new row are damage: warned about, and its rows are all written after them;
- ``predictions.jsonl``: one :class:`~searchgym.harness.evaluate.Prediction` per test task;
- ``result.json``: test and dev summaries and timings (an agent's ``actions`` when most were unusable);
- ``DONE``: written last (an earlier attempt's ``error.txt`` is removed just before). A run with
  ``DONE`` is never redone; a run without it is resumed (the method finds its checkpoint under
  ``run_dir/checkpoint``). An actor with an ``unfinished_reason()`` that returns a reason (an
  endpoint agent whose requests mostly got no reply) ends the run in :class:`RunNotFinished` before
  ``predictions.jsonl``, ``result.json`` and ``DONE`` are written: such scores measure the server,
  and a re-run evaluates again. An actor with an ``end_run()`` has it called when its evaluation
  ends, finished or not (the endpoint agent writes its transcripts then, not whenever it is
  garbage-collected); one with a ``result_record()`` has the dict it returns kept in ``result.json`` beside
  the harness's keys (an LLM actor's counts of replies that did not parse: ``llm_replies``);
- ``.lock``: one writer per run folder (:class:`searchgym.folder_lock.FolderLock`, an ``flock`` that
  dies with its holder): a run another live process is writing comes back "busy", untouched.

An attempt that fails leaving nothing to resume (its method could not be built, its actor raised), in a
folder that held no run, has what it made removed (:mod:`searchgym.harness.unplayed_attempt`), so that
the corrected command starts afresh there.

Every whole file is written atomically; see :mod:`searchgym.fileio`. A folder the run writes into
(below ``--out``, or ``checkpoint``, ``tensorboard``, ``wandb`` in it) that is a symbolic link is
refused: the run would write where it points.
"""

from __future__ import annotations

import datetime as dt
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from searchgym.damaged import DELETE_AND_RERUN, DamagedFile, OtherRunsFile, UnreadableFile, warn_damaged
from searchgym.fileio import (
    DELETE_LINK,
    append_jsonl,
    atomic_write_json,
    atomic_write_jsonl,
    atomic_write_text,
    refuse_link,
    remove_stale_temp_files,
)
from searchgym.folder_lock import FolderLock
from searchgym.harness.action_tally import ActionTally
from searchgym.harness.config_backup import earlier_config, restore_config
from searchgym.harness.evaluate import as_rows, evaluate_suite, summarise_predictions
from searchgym.harness.finished_files import redo_remedy
from searchgym.harness.identity_reads import compared_settings
from searchgym.harness.loggers import make_logger
from searchgym.harness.methods import (
    AGENT_METHOD,
    MethodRef,
    RunContext,
    load_method,
    privileged,
    spends_budget,
    trains,
)
from searchgym.harness.metrics_rows import (
    RowCheck,
    attempts_logged,
    attempts_summary,
    holds_a_run,
    logged_iterations,
)
from searchgym.harness.out_folders import RUN, check_out_folder
from searchgym.harness.privileged_runs import run_reads_private_state
from searchgym.harness.provenance import provenance, run_device
from searchgym.harness.rerun_advice import OTHER_RUN, rerun_advice
from searchgym.harness.run_differences import IDENTITY_KEYS, what_differs
from searchgym.harness.run_files import DONE, WRITTEN_LAST
from searchgym.harness.run_reads import refuse_linked, run_json
from searchgym.harness.unplayed_attempt import remove_unplayed_attempt, run_entries, take_lock
from searchgym.policy_format import feature_versions, policy_format
from searchgym.suites import Suite

HARNESS_VERSION = 1


class DifferentRun(ValueError):
    """The run folder holds another run (its config.json records other settings): refused, untouched."""

    rerun_helps = False  # the same command meets the same folder again (see rerun_advice)


class RunNotFinished(RuntimeError):
    """The actor played every task but says its play measured nothing (see ``unfinished_reason``); where
    the reason is one the same command meets again (a server that refused every request), ``rerun_helps``
    is False (see rerun_advice)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        from searchgym.endpoint.reply_checks import rerun_cannot_help

        self.rerun_helps = not rerun_cannot_help(reason)


@dataclass(frozen=True)
class RunSpec:
    """Everything a worker needs to do one run (picklable: it crosses process boundaries)."""

    suite: Suite
    method: MethodRef
    seed: int
    budget: int
    out: Path
    device: str = "auto"
    policy: str = "hash"
    progress: bool = False
    threads: int = 1
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    folder: Path | None = None  # an explicit run folder (``searchgym evaluate``); else out/runs/...
    logger: str = "none"  # also send metrics rows to "tensorboard" or "wandb"
    limit: int | None = None  # evaluate only the first N tasks of test and dev (``searchgym evaluate --limit``)

    @property
    def run_dir(self) -> Path:
        return Path(self.folder) if self.folder is not None else run_dir(self.out, self.method.label, self.seed)

    def identity(self) -> dict[str, Any]:
        return {"suite_id": self.suite.id, "suite_hash": self.suite.content_hash, "method": self.method.label,
                "method_path": self.method.path, "seed": self.seed, "budget": self.budget, "policy": self.policy,
                # a run made by policies of another layout is not this run (its results and checkpoints differ)
                "policy_format": policy_format(self.policy), "options": dict(self.options)} | (
                    {"feature_versions": versions} if (versions := feature_versions(self.options.get("policy_kwargs")))
                    else {}) | ({"limit": self.limit} if self.limit is not None else {})


@dataclass(frozen=True)
class RunOutcome:
    label: str
    seed: int
    run_dir: str
    status: str  # "done" | "skipped" (already DONE) | "failed" | "busy" (another process writes it)
    seconds: float = 0.0
    error: str | None = None
    error_file: str | None = None  # the error.txt this failure wrote (None: none, e.g. another run's folder)
    resumable: bool = True  # False: the same command fails again (another run's files; a file to delete first)
    advice: str | None = None  # for a failure that is not resumable: what to do before a re-run helps


def run_dir(out: Path | str, label: str, seed: int) -> Path:
    return Path(out) / "runs" / label / f"seed{seed}"


def is_done(path: Path | str) -> bool:
    """Whether the run folder ``path`` holds its ``DONE`` marker; a marker that is a symbolic link is
    :class:`DamagedFile` (:data:`~searchgym.damaged.LINKED_READ`), as every other file of a run folder read
    back. Why: a linked ``DONE`` was followed, so a link to any file marked an unfinished run finished."""
    return refuse_linked(Path(path) / DONE).is_file()


def check_identity(spec: RunSpec) -> int:
    """The number of earlier attempts in the run dir; a dir made by a different run is an error.

    A damaged ``config.json`` (cut, not JSON, not an object) of an unfinished run is warned
    about and written again (the attempts are counted from ``metrics.jsonl``; the trainer then
    refuses a checkpoint of another seed, env or policy); of a finished run, or missing from one,
    it is :class:`DamagedFile`, since the run cannot be checked. One that cannot be read now (no
    permission, an I/O error: :class:`~searchgym.damaged.UnreadableFile`) is never written over, nor
    one in a folder the user named that holds no run's log or checkpoint (:class:`DifferentRun`).
    """
    folder = spec.run_dir
    config_path = folder / "config.json"
    redo = f"delete {folder / DONE} and re-run the same command to redo the run"
    if not (config_path.exists() or config_path.is_symlink()):
        if is_done(folder):  # before: skipped unchecked, and `train` showed its result as any command's
            raise DamagedFile(config_path, "is missing from a finished run", redo_remedy(folder))
        return 0
    try:
        if config_path.is_dir():
            raise DamagedFile(config_path, "is a folder, not a file", f"delete it and {folder / DONE}, and re-run "
                              "the same command to redo the run" if is_done(folder) else
                              "delete it and re-run the same command")
        config = run_json(config_path, redo, "a run's config.json")  # bounded, not through a link (as report)
    except DamagedFile as exc:
        if config_path.is_dir() or isinstance(exc, UnreadableFile):  # os.replace cannot write a file over a
            raise  # folder; one not readable now (permissions, an I/O error) may be intact: never written over
        if is_done(folder):
            raise DamagedFile(exc.path, exc.what, redo) from None
        if spec.folder is not None and not holds_a_run(folder):  # a folder the user named, which may be
            raise _not_a_run(folder, exc) from None  # theirs (before: their config.json was replaced)
        warn_damaged(exc, "writing it again and resuming the run")
        return attempts_logged(folder / "metrics.jsonl")
    # what the method does not read is left out (a budget it spends none of; options it never reads: sft),
    # and options given at the method's defaults (lr=0.003 is the run without it)
    there, mine = compared_settings(config, spec.identity(), spec.method, spec.suite)
    # the limit too: a folder finished with `evaluate --limit 3` was shown as the full run's result
    differ = [k for k in (*IDENTITY_KEYS, "feature_versions", "limit") if there.get(k) != mine.get(k)]
    if differ:
        shown = "; ".join(what_differs(there, mine, differ, spec.suite.definition(), config, spec.identity()))
        raise DifferentRun(f"{spec.run_dir} holds a different run ({shown}); use another --out or delete it")
    attempt = config.get("attempt", 1)
    if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 0:
        return attempts_logged(folder / "metrics.jsonl")
    return attempt


def folders_below_out(spec: RunSpec) -> list[Path]:
    """The run's folder and those between it and ``--out`` (none for an explicit folder: the user's own)."""
    if spec.folder is not None:
        return []
    out = Path(spec.out)
    return [*(p for p in reversed(spec.run_dir.parents) if out in p.parents), spec.run_dir]


def execute_run(spec: RunSpec, wait: bool = False) -> RunOutcome:
    """Do (or resume, or skip) one run; exceptions propagate (the caller records failures).
    A folder another process holds is "busy" (or, with ``wait``, waited for, then done or skipped)."""
    folder = spec.run_dir
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder} is a file, not a run folder; choose a new folder (or a run folder) for --out")
    if spec.folder is not None:  # before: a run was written beside a comparison's runs/ or over the user's
        check_out_folder(folder, RUN)  # files, and a recipe's folder was "a different run (suite_id: absent...)"
    if spec.folder is not None and not is_done(folder) and not holds_a_run(folder):  # refused before its lock
        try:  # file is made in a user's folder (check_identity refuses it too, under the lock)
            run_json(folder / "config.json", DELETE_AND_RERUN, "a run's config.json")
        except (DamagedFile, OSError) as exc:
            if not isinstance(exc, UnreadableFile) and (folder / "config.json").is_file():
                raise _not_a_run(folder, exc) from None
    if is_done(folder):
        check_identity(spec)
        return RunOutcome(spec.method.label, spec.seed, str(folder), "skipped")
    for below in folders_below_out(spec):  # Before: a linked run folder was written where it pointed
        refuse_link(below)
    lock = FolderLock(folder)
    before = take_lock(lock, wait)
    if before is None:
        return RunOutcome(spec.method.label, spec.seed, str(folder), "busy",
                          error=f"another live process (PID {lock.holder()}) is writing {folder}")
    try:
        if is_done(folder):  # finished by that process while this one waited
            check_identity(spec)
            return RunOutcome(spec.method.label, spec.seed, str(folder), "skipped")
        held = run_entries(folder)
        try:
            return _execute_locked(spec)
        except BaseException:  # an unbuilt method leaves nothing that refuses the corrected command
            remove_unplayed_attempt(before, held)
            raise
    finally:
        lock.release()


def _not_a_run(folder: Path, damage: Exception) -> DifferentRun:
    what = damage.what if isinstance(damage, DamagedFile) else str(damage)
    return DifferentRun(f"{folder} is not a run folder: its config.json {what}, and it holds no run's lock, log "
                        "(metrics.jsonl) or checkpoint; its files are kept: choose another --out")


def _execute_locked(spec: RunSpec) -> RunOutcome:
    folder = spec.run_dir
    start = time.monotonic()
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("checkpoint", *(name for name in ("tensorboard", "wandb") if name == spec.logger)):
        refuse_link(folder / name)  # Before: a linked checkpoint/ had checkpoints written where it pointed
    refuse_link(folder / "metrics.jsonl", DELETE_LINK)  # before: found after the run, which wrote DONE
    for part in (folder, folder / "checkpoint"):  # what a killed attempt's atomic writes left, under the lock
        remove_stale_temp_files(part)
    for name in WRITTEN_LAST:  # before: found only when written, after the whole training and evaluation
        if (folder / name).is_dir() and not (folder / name).is_symlink():
            raise DamagedFile(folder / name, "is a folder where the run writes a file at its end",
                              "move it away and re-run the same command")
    earlier = earlier_config(folder / "config.json")
    attempt = check_identity(spec) + 1
    method = load_method(spec.method)
    device = run_device(spec.device, trains(method))  # a baseline on a task Ray gave no GPU: the CPU
    _limit_threads(spec.threads)
    config = {**spec.identity(), "harness_version": HARNESS_VERSION, "suite": spec.suite.definition(),
              "trains": trains(method), "privileged": _reads_private_state(spec, method), "training_budget": spec.budget if spends_budget(method) else 0,
              "attempt": attempt, "started": _now(), "threads": spec.threads, **provenance(device)}
    atomic_write_json(folder / "config.json", config)
    label = f"{spec.method.label}/seed{spec.seed}"
    metrics_logger = make_logger(spec.logger, folder, label, spec.identity())
    metrics = folder / "metrics.jsonl"
    logged = logged_iterations(metrics)  # by earlier attempts; forgotten at this attempt's first new row
    check_row = RowCheck()  # before: a step that went back, dev_success 2.0 and a non-JSON value were written

    def log(row: dict) -> None:
        nonlocal logged
        check_row(row)
        iteration = row.get("iteration")
        if logged and isinstance(iteration, int) and not isinstance(iteration, bool):
            if iteration in logged:
                return  # written by an earlier attempt, before the checkpoint that would have skipped it
            if max(logged) > iteration:  # no earlier attempt logs past the iteration its checkpoint redoes
                warn_damaged(DamagedFile(metrics, f"holds rows past iteration {iteration}, where the resumed "
                                                  "run goes on (damage, or another run's rows)"),
                             "writing the resumed run's rows after them")
            logged = set()  # Before: no row up to the highest iteration was written; 10**17: none at all
        full = {**row, "time": round(time.monotonic() - start, 3), "attempt": attempt}
        append_jsonl(metrics, full)
        metrics_logger.log(full)

    ctx = RunContext(suite=spec.suite, seed=spec.seed, budget=spec.budget, device=device, run_dir=folder,
                     policy=spec.policy, log=log, progress=spec.progress, threads=spec.threads,
                     options=dict(spec.options), eval_limit=spec.limit,
                     bases_dir=Path(spec.out) / "bases")
    try:
        actor = method(ctx)
    except OtherRunsFile:  # refused, untouched: so is the folder's record of that run (or its lack of one)
        restore_config(folder / "config.json", earlier)
        raise
    finally:
        metrics_logger.close()
    if ctx.records:  # what the run started from (a supervised base's key and sha256)
        config.update(ctx.records)
        atomic_write_json(folder / "config.json", config)
    if actor is None or not callable(getattr(actor, "act", None)):
        raise TypeError(f"method {spec.method.label!r} returned {type(actor).__name__}; it must return an Actor "
                        "with an act(env, observation(s), info(s)) method")
    trained = time.monotonic()
    tally = ActionTally() if spec.method.path == AGENT_METHOD else None  # an evaluated agent's: warned about
    try:
        test, dev = [evaluate_suite(spec.suite, actor, split, spec.seed, spec.limit, progress=spec.progress,
                                    desc=f"{label} {split}", tally=tally if split == "test" else None)
                     for split in ("test", "dev")]
        unfinished = getattr(actor, "unfinished_reason", None)
        reason = unfinished() if callable(unfinished) else None
        recorded = getattr(actor, "result_record", None)
        record = recorded() if callable(recorded) and not reason else {}
    finally:
        end_run = getattr(actor, "end_run", None)
        if callable(end_run):
            end_run()
    if reason:  # no scores, no DONE: the run stays unfinished and a re-run plays every task again
        raise RunNotFinished(str(reason))
    if not isinstance(record, dict):
        raise TypeError(f"the actor of {spec.method.label!r} returned {type(record).__name__} from result_record(); "
                        "it must return a dict of JSON values for result.json")
    settled = _reads_private_state(spec, method, record.get("endpoint"))
    if settled != config["privileged"]:  # the replies said who played the agent (the scripted endpoint)
        atomic_write_json(folder / "config.json", {**config, "privileged": settled})
    atomic_write_jsonl(folder / "predictions.jsonl", as_rows(test))
    seconds, (rows, earlier) = time.monotonic() - start, attempts_summary(folder / "metrics.jsonl", attempt)
    atomic_write_json(folder / "result.json", {**record,  # the harness's own keys below win over the actor's
        "test": summarise_predictions(test), "dev": summarise_predictions(dev),
        "train_seconds": round(trained - start + earlier, 3), "eval_seconds": round(seconds - (trained - start), 3),
        "attempt": attempt, "metrics_rows": rows, **(tally.record() if tally is not None else {})})
    failed = folder / "error.txt"  # an earlier attempt's: beside DONE, it said a finished run had failed
    if failed.is_file() or failed.is_symlink():  # (error.txt is read of unfinished runs alone)
        failed.unlink()
    atomic_write_text(folder / DONE, f"finished {_now()}\n")
    return RunOutcome(spec.method.label, spec.seed, str(folder), "done", seconds)


def _reads_private_state(spec: RunSpec, method: Any, endpoint: Any = None) -> bool:
    """config.json's ``privileged``: the method's own flag, or what its identity (and, once the run has
    played, the endpoint's replies: ``result.json["endpoint"]``) says it read."""
    return privileged(method) or run_reads_private_state(spec.identity(), endpoint)


def execute_run_safely(spec: RunSpec, wait: bool = False) -> RunOutcome:
    """``execute_run`` that turns an exception into a "failed" outcome (and ``error.txt``)."""
    start = time.monotonic()
    try:
        return execute_run(spec, wait)
    except Exception as exc:  # noqa: BLE001 - one failed run must not stop the comparison
        text, written = "".join(traceback.format_exception(exc)), None
        other_run = isinstance(exc, DifferentRun | OtherRunsFile)
        advice = OTHER_RUN if other_run else rerun_advice(exc)
        try:  # never through a link; nor into another run's folder (its error.txt is its own failure)
            if not any(p.is_symlink() for p in folders_below_out(spec)) and not other_run:
                atomic_write_text(spec.run_dir / "error.txt", text)
                written = str(spec.run_dir / "error.txt")
        except OSError:
            pass
        return RunOutcome(spec.method.label, spec.seed, str(spec.run_dir), "failed",
                          time.monotonic() - start, f"{type(exc).__name__}: {exc}", written, advice is None, advice)


def _limit_threads(threads: int) -> None:
    """Every run uses the threads its plan gave it (recorded in config.json: they change the bits)."""
    try:
        import torch
    except ImportError:  # torch comes with the train extra; a run of baselines needs none
        return
    torch.set_num_threads(max(1, int(threads)))


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def outcome_dict(outcome: RunOutcome) -> dict[str, Any]:
    return asdict(outcome)
