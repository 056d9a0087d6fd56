"""``leaderboard retrain``: re-run a submission's recorded config and compare with what it claims.

Verification re-scores predictions but cannot tell who produced them: the oracle's predictions
resubmitted under another name verify. A submission built by ``leaderboard submit`` records its
run (method, import path, seed, budget, policy, options, and the SHA-256 of ``config.json``);
a maintainer re-runs exactly that here (one run through the harness, into a fresh folder) and
compares the predictions task by task. The outcome is recorded in ``retrained.json`` keyed by
the submission file's SHA-256, so editing the submission afterwards drops the mark.

Only searchgym's own methods (``harness.methods.METHODS``) are re-run: a submitted import path
is never imported. Nor is any size run that the board does not show or that exceeds a stated
limit: the run block's budget, seed and policy must be the ones the board shows
(``training_budget``, ``method.seed``, ``method.policy``; a method that does not train shows a
budget of 0 whatever its run recorded, and the supervised base the agent-steps of its
demonstrations, which its run's budget does not set), the budget at most
:data:`MAX_RETRAIN_BUDGET` env steps, each size-like option (``group_size``,
``tasks_per_iteration``, ``hidden``, the supervised base's ``sft_epochs``, ... at any depth) within
:data:`OPTION_LIMITS`, every other number in the options within :data:`MAX_OPTION_NUMBER`, and the
work those sizes multiply into within a limit of its own: the learning curve's dev episodes
(:data:`MAX_EVAL_EPISODES`), the base's episodes played (:data:`MAX_BASE_EPISODES`) and fitted
(:data:`MAX_BASE_FIT`), which the env-step budget does not count. A submission asking for 10^17 env
steps would otherwise keep the maintainer's machine busy for good.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from searchgym.devices import resolve_device
from searchgym.fileio import atomic_write_json, read_json, read_jsonl
from searchgym.harness.method_specs import HARNESS_FIELDS
from searchgym.harness.methods import AGENT_METHOD, METHODS, SPEC_METHOD_PREFIX, MethodRef, load_callable
from searchgym.harness.option_bounds import (  # noqa: F401 (the limits are part of this module's interface)
    MAX_OPTION_NUMBER,
    OPTION_LIMITS,
    POSITIVE_OPTIONS,
    option_out_of_bounds,
)
from searchgym.harness.preflight import baseline_options, check_comparison
from searchgym.harness.runner import RunSpec, execute_run_safely, is_done
from searchgym.harness.written_text import read_answer
from searchgym.leaderboard import DEFAULT_DIR, RETRAINED_FILE, read_retrained
from searchgym.leaderboard_checks import SubmissionRejected, rescore, run_block_mismatch, verify_file
from searchgym.leaderboard_from_run import submitted_answer
from searchgym.method_table import METHOD_SPECS
from searchgym.suites import get_suite, tasks


@dataclass(frozen=True)
class RetrainResult:
    """What re-running a submission gave: matching tasks, both success rates, and why not, if not."""

    path: str
    sha256: str
    matches: bool
    same_answers: int
    tasks: int
    submitted_success: float
    retrained_success: float
    run_dir: str
    reason: str = ""
    #: the re-run itself failed (a wrong --out, a crash): no outcome, so nothing to record
    failed: bool = False
    #: whether ``run_dir`` is still there (a temporary folder is removed unless asked to keep it)
    kept: bool = True

    def record(self) -> dict[str, Any]:
        return {"file": Path(self.path).name, "matches": self.matches, "same_answers": self.same_answers,
                "tasks": self.tasks, "submitted_success": self.submitted_success,
                "retrained_success": self.retrained_success,
                "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}


#: The most env steps a retrain runs (the board's runs use 20,000).
MAX_RETRAIN_BUDGET = 1_000_000
#: Dev episodes a trainer's curve may play over a retrain (evaluations are not part of the budget:
#: ``group_size=1, tasks_per_iteration=1, eval_every=1`` would evaluate after every env step or so).
MAX_EVAL_EPISODES = 200_000
#: Episodes the supervised base's demonstrator plays in a retrain: ``sft_tasks`` (at most the train split)
#: plus ``sft_dagger_rounds x sft_dagger_tasks`` (those wrap round the split). make main's base plays
#: quick-v2's 894 train tasks, the docs' DAgger base 1,494 (2 rounds of 300): 13x that.
MAX_BASE_EPISODES = 20_000
#: Episodes fitted, summed over the base's epochs: ``sft_epochs`` epochs over the demonstrations, then again
#: after each DAgger round over all episodes so far (``partial.pt`` is saved, whole, after each epoch).
#: make main's base fits 16 x 894 = 14,304 (78-100 CPU-s), the docs' DAgger base 57,312 (370-418 CPU-s);
#: the limit is 70x make main's, as MAX_RETRAIN_BUDGET is 50x the board's RL runs (about 2 CPU-hours).
MAX_BASE_FIT = 1_000_000


def _evaluation_episodes(run: dict[str, Any], suite_id: str) -> tuple[int, dict[str, int]] | None:
    """An upper bound of the dev episodes a trainer's run plays, and the values it used (None: no trainer).

    An iteration takes at least ``group_size * tasks_per_iteration`` env steps, so a run has at most
    ``budget / that`` iterations, a curve point every ``eval_every`` of them, ``eval_tasks`` episodes each
    (the suite's dev size, or the limit of ``eval_tasks``, when unset)."""
    spec = METHOD_SPECS.find(run["method_path"].removeprefix(SPEC_METHOD_PREFIX))
    if not run["method_path"].startswith(SPEC_METHOD_PREFIX) or spec is None:
        return None
    from searchgym.agents.train import TrainConfig

    base = TrainConfig()
    values: dict[str, Any] = {"group_size": base.group_size, "tasks_per_iteration": base.tasks_per_iteration,
                              "eval_every": base.eval_every, "eval_tasks": base.eval_tasks}
    for source in (spec.defaults, run.get("options") or {}):
        for key, value in source.items():
            if str(key).rpartition(".")[2] in values:
                values[str(key).rpartition(".")[2]] = value
    if values["eval_tasks"] is None:
        values["eval_tasks"] = get_suite(suite_id).dev_size or OPTION_LIMITS["eval_tasks"]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in values.values()):
        return None  # a value out of its own limit is refused by name first
    iterations = -(-int(run["budget"]) // (values["group_size"] * values["tasks_per_iteration"]))
    return (iterations // values["eval_every"] + 1) * values["eval_tasks"], values


def _base_work(options: dict[str, Any], suite_id: str) -> tuple[int, int, str] | None:
    """(episodes played, episodes fitted over every epoch, the settings used) of the supervised base the
    options ask for (an RL run with ``init=sft`` builds it too), with ``SFTConfig``'s defaults; None when a
    setting is no int (refused by name elsewhere)."""
    from searchgym.agents.imitation import SFTConfig

    names = ("sft_tasks", "sft_epochs", "sft_dagger_rounds", "sft_dagger_tasks")
    values = {name: getattr(SFTConfig, name) for name in names}
    for key, value in options.items():  # as harness.sft.sft_config reads them: plain or sft.-prefixed
        if str(key).removeprefix("sft.") in values:
            values[str(key).removeprefix("sft.")] = value
    if not all(type(v) is int and v >= 0 for v in values.values()):
        return None
    shown_tasks, epochs, rounds, per_round = (values[name] for name in names)

    def work(shown: int) -> tuple[int, int]:
        return shown + rounds * per_round, epochs * ((rounds + 1) * shown + per_round * rounds * (rounds + 1) // 2)

    episodes, fitted = work(shown_tasks)
    if episodes > MAX_BASE_EPISODES or fitted > MAX_BASE_FIT:
        try:  # past the train split's size, sft_tasks demonstrates the split (looked up only here: it is slow)
            split = len(tasks(get_suite(suite_id), "train"))
        except Exception:  # noqa: BLE001 - an unknown suite is refused by verify; count the tasks as given
            split = shown_tasks
        episodes, fitted = work(min(shown_tasks, split))
    return episodes, fitted, ", ".join(f"{name}={value}" for name, value in values.items())


def _runnable(submission: dict[str, Any]) -> dict[str, Any]:
    """The run block, if it names one of searchgym's own methods and stays in bounds."""
    run = submission.get("run")
    if not isinstance(run, dict) or "method_path" not in run:
        raise SubmissionRejected("the submission records no run config (no \"run\" with a method_path); "
                                 "it can only be self-reported")
    if run["method_path"] == AGENT_METHOD:  # before: "not one of searchgym's own methods; re-train it by hand"
        raise SubmissionRejected("it was made by `searchgym evaluate`, which trains nothing: there is no training to "
                                 "re-run; `leaderboard verify` re-scores its predictions, and `searchgym evaluate` "
                                 "with the same --agent plays them again")
    if run["method_path"] not in METHODS.values():
        raise SubmissionRejected(f"the recorded method {run['method_path']!r} is not one of searchgym's own methods "
                                 f"({', '.join(sorted(METHODS))}); re-train it by hand")
    check_run_bounds(submission)
    return run


def check_run_bounds(submission: dict[str, Any]) -> None:
    """SubmissionRejected, naming the field, its value and the limit, unless the run block runs
    exactly what the board shows and stays within the stated limits (module docstring)."""
    run = submission["run"]
    mismatch = run_block_mismatch(submission)  # the comparison verify makes too
    if mismatch is not None:
        raise SubmissionRejected(f"{mismatch}; a retrain runs only what the board shows")
    budget = run.get("budget", submission.get("training_budget"))
    if isinstance(budget, bool) or not isinstance(budget, int) or not 0 <= budget <= MAX_RETRAIN_BUDGET:
        raise SubmissionRejected(f"run.budget ({budget!r}) is outside the retrain limit: an int in "
                                 f"0..{MAX_RETRAIN_BUDGET} env steps")
    options = run.get("options") or {}
    if not isinstance(options, dict):
        raise SubmissionRejected(f"run.options must be an object, got {type(options).__name__}")
    reserved = sorted({str(k) for k in options if str(k).rsplit(".", 1)[-1] in HARNESS_FIELDS})
    if reserved:
        raise SubmissionRejected(f"run.options sets {', '.join(reserved)}, which the harness sets from the board's "
                                 "fields; options may not")
    problem = option_out_of_bounds(options)
    if problem:
        raise SubmissionRejected(problem)
    if "budget" not in run:
        run = {**run, "budget": budget}
    evaluation = _evaluation_episodes(run, submission["suite"]["id"])
    if evaluation is not None and evaluation[0] > MAX_EVAL_EPISODES:
        shown = ", ".join(f"{k}={v}" for k, v in evaluation[1].items())
        raise SubmissionRejected(f"run.options ({shown}) with run.budget {budget} could play up to {evaluation[0]} "
                                 f"dev episodes for the learning curve; the retrain limit is {MAX_EVAL_EPISODES}")
    work = _base_work(options, submission["suite"]["id"])
    if work is not None and work[0] > MAX_BASE_EPISODES:
        raise SubmissionRejected(f"run.options ({work[2]}) would have the supervised base play {work[0]} episodes "
                                 f"(sft_tasks + sft_dagger_rounds x sft_dagger_tasks); the retrain limit is "
                                 f"{MAX_BASE_EPISODES}")
    if work is not None and work[1] > MAX_BASE_FIT:
        raise SubmissionRejected(f"run.options ({work[2]}) would have the supervised base fit {work[1]} episodes over "
                                 f"its epochs (sft_epochs x the episodes so far, after each DAgger round); the retrain "
                                 f"limit is {MAX_BASE_FIT}")


def run_spec(submission: dict[str, Any], out: Path, device: str = "cpu") -> RunSpec:
    """The RunSpec a submission recorded; SubmissionRejected when it recorded none we may run
    (:func:`check_run_bounds`)."""
    run = _runnable(submission)
    path = run["method_path"]
    label = run.get("method") or next(name for name, p in METHODS.items() if p == path)
    suite = get_suite(submission["suite"]["id"])
    method = MethodRef(label, path)
    options = dict(run.get("options") or {})
    baseline = baseline_options(method)
    if baseline is not None:
        # a compare run records the comparison's options for every method; a baseline does not read
        # the learners' ones (make main's reader run holds init=sft, lr, ...), so they are not its to
        # re-run (before: "unknown option 'init' for reader" refused every baseline row of make main).
        # Options no learner takes either (or with a value none accepts) stay, and are refused as before.
        learners = {name: value for name, value in options.items() if name not in baseline[1]}
        if learners and _some_learner_takes(learners):
            options = {name: value for name, value in options.items() if name in baseline[1]}
    return RunSpec(suite, method, int(run.get("seed", submission["method"].get("seed", 0))),
                   int(run.get("budget", submission["training_budget"])), out, device,
                   str(run.get("policy", submission["method"].get("policy") or "hash")),
                   options=options, folder=out / "run")


def _some_learner_takes(options: dict[str, Any]) -> bool:
    """Whether one registered learning method accepts every one of ``options``, names and values:
    what a comparison beside a baseline could have recorded for it."""
    from searchgym.harness.method_specs import resolve_options

    for spec in METHOD_SPECS.values():
        try:
            resolve_options(spec, options, load_callable(spec.trainer, f"trainer of {spec.name}"))
        except Exception:  # noqa: BLE001 - refused (or no torch to load it): not this one
            continue
        return True
    return False


def retrain(path: str | os.PathLike, out: str | os.PathLike | None = None, device: str = "cpu",
            keep: bool = False) -> RetrainResult:
    """Verify the submission, re-run its recorded config into ``out`` (a fresh temporary folder by
    default, removed when done, whatever the outcome, unless ``keep``; ``out`` itself is never
    removed) and compare the predictions task by task. A device torch cannot use is a ValueError
    before anything runs; a re-run that fails is a result with ``failed`` set, which
    :func:`record_result` refuses (a typo in ``--device`` or ``--out`` once marked a reproducible
    submission "re-trained: differs"). Why the removal: each retrain left a ``searchgym-retrain-*``
    folder (a whole run) in the temporary folder."""
    resolve_device(device)
    verdict = verify_file(path)
    if not verdict.ok or verdict.verified is None:
        raise SubmissionRejected(f"the submission does not verify: {verdict.reason}")
    submission = verdict.verified.submission
    _runnable(submission)  # refused before any folder is made
    if out is not None:
        return _retrain_into(path, verdict, Path(out), device)
    folder = Path(tempfile.mkdtemp(prefix="searchgym-retrain-"))
    try:
        result = _retrain_into(path, verdict, folder, device)
    finally:
        if not keep:  # made here, just now: nothing of the user's is in it
            shutil.rmtree(folder, ignore_errors=True)
    return result if keep else replace(result, kept=False)


def _retrain_into(path: str | os.PathLike, verdict: Any, folder: Path, device: str) -> RetrainResult:
    """:func:`retrain`'s re-run into ``folder`` and the comparison."""
    submission = verdict.verified.submission
    spec = run_spec(submission, folder, device)
    try:  # the checks compare and train make (before: random re-ran with an "lr" option compare refuses)
        check_comparison(SimpleNamespace(suite=spec.suite, methods=[spec.method], seeds=[spec.seed],
                                         budget=spec.budget, policy=spec.policy, options=spec.options))
    except ValueError as exc:
        raise SubmissionRejected(f"the submission's run settings would not run: {exc}") from None
    if is_done(spec.run_dir):  # a finished run there would be skipped, not trained again, and called a match
        raise ValueError(f"--out {folder} already holds a finished run ({spec.run_dir}); re-training there would "
                         "re-use it instead of training again: give a new or empty folder")
    outcome = execute_run_safely(spec)
    base = {"path": str(path), "sha256": verdict.verified.sha256, "tasks": len(submission["predictions"]),
            "submitted_success": verdict.verified.metrics["success"], "run_dir": str(spec.run_dir)}
    if outcome.status == "failed":
        return RetrainResult(matches=False, same_answers=0, retrained_success=0.0,
                             reason=f"the re-run failed: {outcome.error}", failed=True, **base)
    rows = read_jsonl(spec.run_dir / "predictions.jsonl")
    # as submit wrote the submission's (before: a raw answer with a control character never matched its stand-in)
    types = {t.id: t.answer_type for t in tasks(get_suite(submission["suite"]["id"]), "test")}
    mine = {r["task_id"]: submitted_answer(r.get("answer"), types.get(r["task_id"])) for r in rows}
    same = sum(mine.get(p["task_id"]) == p["answer"] for p in submission["predictions"])
    # each answer as the agent gave it, as evaluate scored it (before: a surrogate's escape text was scored)
    given = [{**r, "answer": read_answer(r["answer"])} if isinstance(r.get("answer"), str) else r for r in rows]
    success = rescore(get_suite(submission["suite"]["id"]), given)["success"] if rows else 0.0
    matches = same == len(submission["predictions"]) and len(rows) == len(submission["predictions"])
    reason = "" if matches else f"{len(submission['predictions']) - same} answer(s) differ from the re-run"
    # the board shows training_budget beside the re-trained mark (before: a random row edited to claim
    # 5000 env steps matched, as random's budget is not compared before the run: it spends none)
    spent = read_json(spec.run_dir / "config.json", expect=dict).get("training_budget")
    if spent != submission["training_budget"]:
        matches = False
        budget = f"training_budget ({submission['training_budget']}) differs from the re-run's ({spent!r})"
        reason = f"{reason}; {budget}" if reason else budget
    return RetrainResult(matches=matches, same_answers=same, retrained_success=success, reason=reason, **base)


def record_result(result: RetrainResult, directory: str | os.PathLike = DEFAULT_DIR) -> Path:
    """Add the result to ``directory/retrained.json`` (keyed by the submission's SHA-256); a
    failed re-run is no outcome and is refused (ValueError), leaving any earlier record as it was."""
    if result.failed:
        raise ValueError(f"not recorded: {result.reason} (a re-run that failed says nothing of the submission; "
                         "fix that and retrain again)")
    records = read_retrained(directory)
    records[result.sha256] = result.record()
    return atomic_write_json(Path(directory) / RETRAINED_FILE, dict(sorted(records.items())))


def check_record_dir(directory: str | os.PathLike) -> None:
    """ValueError unless ``directory/retrained.json`` can be read and replaced, checked before the re-run.
    Why: a damaged record, or a folder in its place, failed ``--record`` only after minutes of training."""
    path = Path(directory) / RETRAINED_FILE
    if os.path.lexists(path) and not path.is_file():
        raise ValueError(f"{path} is not a regular file, so --dir {directory} cannot hold the record; move it or "
                         "choose another --dir")
    read_retrained(directory)  # a damaged record is refused here, naming it
