"""``leaderboard retrain``: re-run a submission's recorded config and compare with what it claims.

Verification re-scores predictions but cannot tell who produced them: the oracle's predictions
resubmitted under another name verify. A submission built by ``leaderboard submit`` records its
run (method, import path, seed, budget, policy, options, and the SHA-256 of ``config.json``);
a maintainer re-runs exactly that here (one run through the harness, into a fresh folder) and
compares the predictions task by task. The outcome is recorded in ``retrained.json`` keyed by
the submission file's SHA-256, so editing the submission afterwards drops the mark.

Only searchgym's own methods (``harness.methods.METHODS``) are re-run: a submitted import path
is never imported.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from searchgym.fileio import atomic_write_json, read_jsonl
from searchgym.harness.methods import METHODS, MethodRef
from searchgym.harness.runner import RunSpec, execute_run_safely
from searchgym.leaderboard import DEFAULT_DIR, RETRAINED_FILE, read_retrained, rescore, verify_file
from searchgym.leaderboard_checks import SubmissionRejected
from searchgym.suites import get_suite


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

    def record(self) -> dict[str, Any]:
        return {"file": Path(self.path).name, "matches": self.matches, "same_answers": self.same_answers,
                "tasks": self.tasks, "submitted_success": self.submitted_success,
                "retrained_success": self.retrained_success,
                "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}


def run_spec(submission: dict[str, Any], out: Path, device: str = "cpu") -> RunSpec:
    """The RunSpec a submission recorded; SubmissionRejected when it recorded none we may run."""
    run = submission.get("run")
    if not isinstance(run, dict) or "method_path" not in run:
        raise SubmissionRejected("the submission records no run config (no \"run\" with a method_path); "
                                 "it can only be self-reported")
    path = run["method_path"]
    if path not in METHODS.values():
        raise SubmissionRejected(f"the recorded method {path!r} is not one of searchgym's own methods "
                                 f"({', '.join(sorted(METHODS))}); re-train it by hand")
    label = run.get("method") or next(name for name, p in METHODS.items() if p == path)
    suite = get_suite(submission["suite"]["id"])
    return RunSpec(suite, MethodRef(label, path), int(run.get("seed", submission["method"].get("seed", 0))),
                   int(run.get("budget", submission["training_budget"])), out, device,
                   str(run.get("policy", submission["method"].get("policy") or "hash")),
                   options=dict(run.get("options") or {}), folder=out / "run")


def retrain(path: str | os.PathLike, out: str | os.PathLike | None = None, device: str = "cpu") -> RetrainResult:
    """Verify the submission, re-run its recorded config into ``out`` (a fresh temporary folder by
    default) and compare the predictions task by task."""
    verdict = verify_file(path)
    if not verdict.ok or verdict.verified is None:
        raise SubmissionRejected(f"the submission does not verify: {verdict.reason}")
    submission = verdict.verified.submission
    folder = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="searchgym-retrain-"))
    spec = run_spec(submission, folder, device)
    outcome = execute_run_safely(spec)
    base = {"path": str(path), "sha256": verdict.verified.sha256, "tasks": len(submission["predictions"]),
            "submitted_success": verdict.verified.metrics["success"], "run_dir": str(spec.run_dir)}
    if outcome.status == "failed":
        return RetrainResult(matches=False, same_answers=0, retrained_success=0.0,
                             reason=f"the re-run failed: {outcome.error}", **base)
    rows = read_jsonl(spec.run_dir / "predictions.jsonl")
    mine = {r["task_id"]: r.get("answer") for r in rows}
    same = sum(mine.get(p["task_id"]) == p["answer"] for p in submission["predictions"])
    success = rescore(submission["suite"]["id"], rows)["success"] if rows else 0.0
    matches = same == len(submission["predictions"]) and len(rows) == len(submission["predictions"])
    reason = "" if matches else f"{len(submission['predictions']) - same} answer(s) differ from the re-run"
    return RetrainResult(matches=matches, same_answers=same, retrained_success=success, reason=reason, **base)


def record_result(result: RetrainResult, directory: str | os.PathLike = DEFAULT_DIR) -> Path:
    """Add the result to ``directory/retrained.json`` (keyed by the submission's SHA-256)."""
    records = read_retrained(directory)
    records[result.sha256] = result.record()
    return atomic_write_json(Path(directory) / RETRAINED_FILE, dict(sorted(records.items())))
