"""Every check of a leaderboard submission, in one module: :func:`verify_file` makes them in order.

:func:`verify_file` trusts nothing in a file:

1. the file's size is checked *before* it is read (at most :data:`MAX_BYTES`);
2. it must be UTF-8 JSON with finite numbers, integers of at most 18 digits and strings free of
   control, bidirectional-override and unpaired surrogate characters (below), valid against the
   schema (which bounds every string and list; anchored patterns must match the whole string);
3. the ``run`` block must name the run's method (``run.method_path``) and agree with the board's fields
   (:func:`run_block_problem`: the comparison a retrain makes, :func:`run_block_mismatch`);
4. the suite must be known and its hash equal to the suite regenerated here (looked up once and
   passed through);
5. the predictions must cover every test task of the suite exactly once (no unknown ids);
6. every claimed metric (success and F1, overall and per family) must equal, within
   :data:`TOLERANCE`, the value re-scored here with :func:`searchgym.scoring.score_answer`.

Any failure while checking a file is that file's rejection: :func:`verify_file` never raises.

The checks of its bytes and values that JSON Schema cannot make are in :mod:`searchgym.leaderboard_values`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import stat
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from searchgym.harness.methods import AGENT_METHOD, METHODS, load_callable, spends_budget, trains
from searchgym.leaderboard_values import (  # noqa: F401  (re-exported: where the checks were)
    FORBIDDEN_CHARS,
    MAX_INT_DIGITS,
    MAX_ITEMS,
    SubmissionRejected,
    check_values,
    clean_text,
    parse_submission,
)
from searchgym.scoring import score_answer
from searchgym.suites import Suite, get_suite, tasks

MAX_BYTES = 5 * 1024 * 1024
#: The schema errors looked at to pick the one to name (the first ones: every item's took 85 s for 2.6M
#: items).
MAX_SCHEMA_ERRORS = 100
TOLERANCE = 1e-6
#: Package data, so an installed wheel verifies submissions without the source tree.
SCHEMA_PATH = Path(__file__).resolve().parent / "assets" / "leaderboard_schema.json"


@lru_cache(maxsize=4)
def _validator_class() -> Any:
    """Draft 2020-12 with ``pattern`` read as ECMA-262 reads it: an anchored ``^...$`` must match
    the whole string (``re.fullmatch``), not stop before a final newline; and ``integer`` read as
    JSON written without a fraction (an int, not a bool): the draft's also takes 0.0 and 1e17, which
    verified and showed a seed of "0.0" on the board."""
    import jsonschema

    def pattern(validator: Any, regex: str, instance: Any, schema: Mapping[str, Any]) -> Any:
        if not validator.is_type(instance, "string"):
            return
        anchored = regex.startswith("^") and regex.endswith("$") and not regex.endswith("\\$")
        matched = re.fullmatch(regex[1:-1], instance) if anchored else re.search(regex, instance)
        if matched is None:
            yield jsonschema.ValidationError(f"{instance[:80]!r} does not match {regex!r}")

    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine(
        "integer", lambda _, instance: isinstance(instance, int) and not isinstance(instance, bool))
    return jsonschema.validators.extend(base, {"pattern": pattern}, type_checker=checker)


#: Size keywords of the schema -> what they count.
_SIZE_UNITS = {"maxLength": "characters", "minLength": "characters", "maxItems": "items", "minItems": "items",
               "maxProperties": "properties", "minProperties": "properties"}


def check_schema(submission: Any, schema: Mapping[str, Any] | None = None) -> None:
    """Valid against ``schema`` (default: the one that ships in the package), or a rejection naming where."""
    import jsonschema

    validator = _validator_class()(schema or load_schema())
    first = itertools.islice(validator.iter_errors(submission), MAX_SCHEMA_ERRORS)  # not every item's
    error = jsonschema.exceptions.best_match(first)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        message = error.message if len(error.message) <= 300 else error.message[:300] + "..."
        if error.validator == "pattern" or error.validator == "not":
            message = f"value does not match the accepted form ({error.schema.get('description') or error.validator})"
        elif error.validator == "type":  # named, not shown: a value is never echoed (it may come from any file)
            message = f"a JSON {_json_type(error.instance)} where {error.validator_value} is accepted"
        elif error.validator == "additionalProperties":
            message = (f"{len(set(error.instance) - set(error.schema.get('properties', {})))} key(s) the schema does "
                       f"not have; accepted keys: {', '.join(error.schema.get('properties', {}))}")
        elif error.validator in _SIZE_UNITS:  # else the value's repr, cut before "is too long" and the limit
            most = "at most" if error.validator.startswith("max") else "at least"
            message = (f"{len(error.instance)} {_SIZE_UNITS[error.validator]}, where {most} {error.validator_value} "
                       "are accepted")
        raise SubmissionRejected(f"schema violation at {where}: {message}")


def _json_type(value: Any) -> str:
    """The JSON type of a parsed value, as the schema names types."""
    for kind, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (list, "array"),
                       (Mapping, "object")):
        if isinstance(value, kind):
            return name
    return "null"


@lru_cache(maxsize=4)
def load_schema(path: str = str(SCHEMA_PATH)) -> dict[str, Any]:
    """The schema. The shipped file bounds an answer by the number MAX_ANSWER_CHARS holds, the limit the
    action parsers enforce (a test keeps the two equal), so every answer an env records is one ``submit`` accepts."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"the submission schema is not at {path} (it ships in the package as "
                                "searchgym/assets/leaderboard_schema.json; reinstall searchgym)")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


@dataclass
class Verified:
    """A submission that passed every check, with the metrics re-scored here."""

    path: str
    submission: dict[str, Any]
    metrics: dict[str, Any]
    sha256: str = ""  # of the file's bytes: what a maintainer's re-training record refers to
    retrained: dict[str, Any] | None = None  # that record, when there is one


@dataclass
class Verdict:
    path: str
    ok: bool
    reason: str = ""
    verified: Verified | None = field(default=None, repr=False)


# ------------------------------------------------------------------------------ scoring
def rescore(suite: Suite, predictions: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Success and F1 overall and per family of ``predictions`` on the suite's test split."""
    by_id = {t.id: t for t in tasks(suite, "test")}
    groups: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for p in predictions:
        task = by_id[p["task_id"]]
        s = score_answer(task, p.get("answer"))
        groups[task.family].append((float(s.success), float(s.f1)))
    every = [x for rows in groups.values() for x in rows]

    def mean(rows: list[tuple[float, float]], i: int) -> float:
        return sum(r[i] for r in rows) / len(rows)

    return {"success": mean(every, 0), "f1": mean(every, 1),
            "families": {f: {"success": mean(r, 0), "f1": mean(r, 1), "n": len(r)} for f, r in sorted(groups.items())}}


# ---------------------------------------------------------------------------- verifying
def read_limited(path: str | os.PathLike, max_bytes: int = MAX_BYTES) -> bytes:
    """The bytes of a regular file no larger than ``max_bytes`` (checked before reading)."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise SubmissionRejected(f"cannot read the file: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise SubmissionRejected("not a regular file")
    if info.st_size > max_bytes:
        raise SubmissionRejected(f"file too large: {info.st_size} bytes, the limit is {max_bytes} bytes")
    with open(path, "rb") as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:  # grew between stat and read
        raise SubmissionRejected(f"file too large: more than {max_bytes} bytes")
    return data


def _few(items: Iterable[str], n: int = 5) -> str:
    items = list(items)
    shown = ", ".join(repr(i) for i in items[:n])
    return shown + (f" and {len(items) - n} more" if len(items) > n else "")


def check_content(submission: Mapping[str, Any]) -> dict[str, Any]:
    """Suite, hash, task coverage and claimed metrics; returns the re-scored metrics."""
    suite_id = submission["suite"]["id"]
    try:
        suite = get_suite(suite_id)
    except KeyError as exc:  # an unknown id, or a retired one: the message says why and what replaces it
        raise SubmissionRejected(str(exc.args[0]) if exc.args else f"unknown suite {suite_id!r}") from None
    if submission["suite"]["hash"] != suite.content_hash:
        raise SubmissionRejected(f"wrong suite hash for {suite_id}: submitted {submission['suite']['hash'][:16]}..., "
                                 f"the suite regenerated here has {suite.content_hash[:16]}...")
    ids = [p["task_id"] for p in submission["predictions"]]
    expected = {t.id for t in tasks(suite, "test")}
    duplicated = sorted(i for i, c in Counter(ids).items() if c > 1)
    if duplicated:
        raise SubmissionRejected(f"duplicated task ids: {_few(duplicated)}")
    unknown = sorted(set(ids) - expected)
    if unknown:
        raise SubmissionRejected(f"task ids not in the test split of {suite_id}: {_few(unknown)}")
    missing = sorted(expected - set(ids))
    if missing:
        raise SubmissionRejected(f"missing predictions for {len(missing)} test task(s): {_few(missing)}")
    actual = rescore(suite, submission["predictions"])
    claimed = submission["metrics"]
    for key in ("success", "f1"):
        if not abs(claimed[key] - actual[key]) <= TOLERANCE:  # False for NaN too
            raise SubmissionRejected(f"claimed {key} {claimed[key]} differs from the re-scored {actual[key]:.6f}")
    if set(claimed["families"]) != set(actual["families"]):
        raise SubmissionRejected(f"claimed families {sorted(claimed['families'])} differ from the suite's "
                                 f"{sorted(actual['families'])}")
    for family, values in claimed["families"].items():
        for key in ("success", "f1", "n"):
            if key in values and not abs(values[key] - actual["families"][family][key]) <= TOLERANCE:
                raise SubmissionRejected(f"claimed {family} {key} {values[key]} differs from the re-scored "
                                         f"{actual['families'][family][key]:.6f}")
    return actual


# ---------------------------------------------------------------------------- run block
def _spends_budget(path: Any) -> bool:
    """Whether the run's method trains on the run's budget (else the board shows 0, or the supervised
    base's demonstrations). A method of one's own does; a built-in that cannot be imported here (the
    supervised base without torch) is not compared: a retrain, which needs it, finds out."""
    if path not in METHODS.values():
        return True
    try:
        return spends_budget(load_callable(path))
    except ValueError:
        return False


def run_block_mismatch(submission: Mapping[str, Any]) -> str | None:
    """The first of the run's budget, seed and policy that differs from the board's field
    (``training_budget``, ``method.seed``, ``method.policy``), in one line; None when they agree. One
    copy for verify and retrain; the method is imported only when the budgets differ (light installs)."""
    run, method = submission["run"], submission.get("method") or {}
    shown = {"budget": ("training_budget", submission.get("training_budget")),
             "seed": ("method.seed", method.get("seed")), "policy": ("method.policy", method.get("policy"))}
    for key, (board_field, board_value) in shown.items():
        if key in run and board_value is not None and run[key] != board_value:
            if key == "budget" and not _spends_budget(run.get("method_path")):
                continue
            return f"run.{key} ({run[key]!r}) differs from {board_field} ({board_value!r}), which the board shows"
    budget = submission.get("training_budget")
    if budget != 0 and not _trains(run.get("method_path")):  # before: a random row showed any budget it claimed
        return (f"training_budget ({budget!r}) is not 0, where the run's method ({run.get('method_path')}) does not "
                "train; the board shows 0 for it")
    return None


def _trains(path: Any) -> bool:
    """Whether the run's method trains at all (a built-in baseline or an evaluated agent does not: its
    budget is 0). A method of one's own is taken to, as is a built-in that cannot be imported here."""
    if path != AGENT_METHOD and path not in METHODS.values():
        return True
    try:
        return trains(load_callable(path))
    except ValueError:
        return True


def run_block_problem(submission: Mapping[str, Any]) -> str | None:
    """Why verify refuses the run block, or None. Why: verify never read it, so a block edited to hide
    what ran (another seed; an ``evaluate`` run without the agent the privileged mark is read from)
    verified; and a submission with no block (or one naming no method) verified too, though nothing
    then said what ran, nor let ``retrain`` re-run it, while ``leaderboard submit`` always writes one."""
    run = submission.get("run")
    redo = "the run block must record the run the board shows; submit the run folder again with `leaderboard submit`"
    if not isinstance(run, Mapping) or not run.get("method_path"):
        what = "no run block" if not isinstance(run, Mapping) else "a run block without run.method_path"
        return (f"the submission has {what}, so what ran can be neither checked against the board nor re-trained; "
                "make it with `searchgym leaderboard submit RUN_DIR` from the run folder, which records the run")
    mismatch = run_block_mismatch(submission)
    if mismatch is not None:
        return f"{mismatch}; {redo}"
    options = run.get("options")
    agent = options.get("agent") if isinstance(options, Mapping) else None
    if run.get("method_path") == AGENT_METHOD and not (isinstance(agent, str) and agent):
        return (f"run.options.agent is missing or not a name, where a `searchgym evaluate` run (run.method_path "
                f"{AGENT_METHOD}) records the agent it played; {redo}")
    return None


def verify_file(path: str | os.PathLike, max_bytes: int = MAX_BYTES) -> Verdict:
    """Every check of the module docstring; never raises: whatever goes wrong is a rejection."""
    try:
        data = read_limited(path, max_bytes)
        submission = parse_submission(data)
        check_values(submission)
        check_schema(submission)
        problem = run_block_problem(submission)
        if problem is not None:
            raise SubmissionRejected(problem)
        metrics = check_content(submission)
    except SubmissionRejected as exc:
        return Verdict(str(path), False, str(exc))
    except Exception as exc:  # noqa: BLE001 - a file that breaks a check is rejected, never fatal
        return Verdict(str(path), False, f"could not be checked ({type(exc).__name__}: {str(exc)[:200]})")
    sha = hashlib.sha256(data).hexdigest()
    return Verdict(str(path), True, verified=Verified(str(path), submission, metrics, sha))
