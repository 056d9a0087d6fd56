"""The tiny-LM recipe's records (:mod:`searchgym.agents.tiny_lm_recipe`): what each finished stage's
file must hold, the stages' recorded seconds, and each RL run's per-iteration rows.

An RL run (``rl/<method>-s<seed>/``) logs one row per iteration to ``metrics.jsonl`` before its
checkpoint, as the harness trainer does, and its ``eval.json`` figures are taken from that file. Why:
the rows were kept in memory, so a recipe killed after a checkpoint and re-run skipped the
checkpointed iterations and wrote ``train_success []``, ``rl_generate_tokens_per_s 0.0`` and
``rl_train_tokens_per_s None`` (and about 0 s) where the uninterrupted run had that run's figures.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from searchgym.damaged import (
    DELETE_AND_RERUN,
    DamagedFile,
    JsonlRows,
    read_json_capped,
    warn_damaged,
)
from searchgym.fileio import atomic_write_jsonl
from searchgym.json_fields import (
    COUNT,
    INT,
    NUMBER,
    OBJECT,
    Kind,
    check_fields,
    field_problem,
    is_number,
    number_text,
    optional,
    shown,
)

#: An RL run's per-iteration rows, next to its checkpoint (the trainer's names).
METRICS, CHECKPOINT = "metrics.jsonl", "checkpoint.pt"
#: A recipe's JSON records (config.json, a stage's figures with one score per test task, its seconds) are
#: kilobytes: the caps of a run's config.json and result.json (harness.run_reads), far above them.
MAX_RECORD_BYTES, MAX_RECORD_VALUES = 4 * 1024 * 1024, 200_000
#: An RL run's metrics.jsonl, bounded as the harness bounds a run's (harness.run_reads): a row of ~50 values
#: (~2 KB) an iteration, and at most 100,000 iterations (RecipeConfig).
MAX_ROW_LINE, MAX_ROWS_VALUES, MAX_ROWS_BYTES = 1024 * 1024, 8_000_000, 1024 * 1024 * 1024
#: The most seconds one iteration (or stage) is taken to have run, and tokens it generated or scored:
#: far above any run's, and low enough that their sums and rates stay finite.
MAX_SECONDS, MAX_TOKENS = 1e9, 1e15


def _between(low: float, high: float) -> Kind:
    return Kind(f"a number in {low:g}..{high:g}", lambda v: is_number(v) and low <= v <= high)


#: What a row must hold for the resume and the run's figures (rl_figures); the others are left alone.
ROW_FIELDS = {"train_success": _between(0, 1)}
ROW_PRESENT = {**dict.fromkeys(("seconds", "cpu_seconds", "rollout_seconds", "update_seconds"),
                               _between(0, MAX_SECONDS)),
               **dict.fromkeys(("generated_tokens", "tokens/scored"), _between(0, MAX_TOKENS))}


def logged_rows(path: Path, iterations: int) -> tuple[list[dict], list[int], str]:
    """The rows of iterations 1..``iterations`` in order, one per iteration (the last one logged:
    a redone iteration's), the iterations that have none, and what was wrong with the first of those
    that has a damaged row ("" when none has). A cut last line is skipped. A row whose fields
    (``ROW_FIELDS``, ``ROW_PRESENT``) are missing or not finite numbers of their range counts as none.
    Why: ``"seconds": "x"`` ended in "unsupported operand type(s) for +", a missing ``train_success``
    in "error: 'train_success'", naming no file, and ``NaN`` was written into eval.json,
    results.json and RESULTS.md as the run's seconds."""
    rows: dict[int, dict] = {}
    problems: dict[int, str] = {}
    for row in _bounded_rows(path, f"delete {path.parent} and re-run the same command to redo this RL run"):
        n = row.get("iteration")
        if isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= iterations:
            problem = field_problem(row, ROW_FIELDS, ROW_PRESENT)
            if problem:
                problems[n] = problem
                rows.pop(n, None)
            else:
                rows[n] = row
                problems.pop(n, None)
    missing = [n for n in range(1, iterations + 1) if n not in rows]
    damaged = next((f"; iteration {n}'s row: {problems[n]}" for n in missing if n in problems), "")
    return [rows[n] for n in sorted(rows)], missing, damaged


def _bounded_rows(path: Path, remedy: str) -> Iterator[dict]:
    """The JSON objects of ``path``'s lines (one cut, overlong or not an object is skipped), not through a
    link and within :data:`MAX_ROWS_BYTES`, :data:`MAX_ROW_LINE` and :data:`MAX_ROWS_VALUES` (counted from
    commas and brackets, before parsing), else :class:`DamagedFile`; a missing file has none. Before:
    ``read_jsonl`` followed a link and read a file of any size (lines of 16 MB each, kept per iteration)."""
    lines = JsonlRows(path, MAX_ROW_LINE, remedy, MAX_ROWS_BYTES, MAX_ROWS_VALUES)
    yield from lines
    if lines.past_values:
        raise DamagedFile(path, f"holds more than {MAX_ROWS_VALUES} JSON values, more than the rows of "
                          "any RL run", remedy)


def resume_rows(folder: Path, trainer: Any, restart: Callable[[], Any]) -> tuple[Any, list[dict]]:
    """The trainer to go on with and the rows of the iterations its checkpoint holds, to which
    ``metrics.jsonl`` is cut: a row logged after the last checkpoint is of an iteration the resumed run
    does again (two rows of it would count its tokens twice). A checkpoint whose iterations have no
    rows (metrics.jsonl deleted, or a folder of a recipe that kept them in memory) is deleted with a
    warning and ``restart()`` makes the trainer anew: the same run (a function of its seed), whole."""
    path, iteration = folder / METRICS, trainer.state.iteration
    rows, missing, damaged = logged_rows(path, iteration)
    if path.exists() or path.is_symlink():
        atomic_write_jsonl(path, rows)
    if not missing:
        return trainer, rows
    shown = ", ".join(map(str, missing[:8])) + (" ..." if len(missing) > 8 else "")
    warn_damaged(DamagedFile(path, f"has no rows of iterations {shown}, which the checkpoint (iteration "
                             f"{iteration}) holds{damaged}"), "running this RL run again from its beginning")
    (folder / CHECKPOINT).unlink()
    path.unlink(missing_ok=True)
    return restart(), []


def run_rows(folder: Path, iterations: int) -> list[dict]:
    """The rows of a finished run's iterations, each there (this process wrote or kept them)."""
    rows, missing, damaged = logged_rows(folder / METRICS, iterations)
    if missing:  # deleted or damaged while the run went on
        raise DamagedFile(folder / METRICS, f"has no rows of iterations {missing[:8]}{damaged}",
                          f"delete {folder} and re-run the same command to redo this RL run")
    return rows


def rl_figures(rows: list[dict]) -> dict[str, Any]:
    """An RL run's figures from its logged rows: the iterations' seconds (collect and update, as
    logged; not this process's, so a resumed run reports the run's) and tokens per second from the
    rows' token counts and seconds."""
    train_tokens = sum(r.get("tokens/scored", 0.0) for r in rows)
    update_seconds = sum(r.get("update_seconds", 0.0) for r in rows)
    generated = sum(r.get("generated_tokens", 0) for r in rows)
    rollout_seconds = sum(r.get("rollout_seconds", 0.0) for r in rows)
    return {"rl_seconds": sum(r.get("seconds", 0.0) for r in rows),
            "rl_generate_tokens_per_s": generated / max(rollout_seconds, 1e-9),
            "rl_train_tokens_per_s": train_tokens / max(update_seconds, 1e-9) if rows else None,
            "train_success": [r["train_success"] for r in rows]}


#: Settings a re-run into the same --out may change: where and how fast it runs, and which RL runs it adds.
FREE_ON_RERUN = frozenset({"device", "threads", "sft_workers", "methods", "seeds"})
#: What to do with a damaged config.json: the stages' files are intact, and the next run writes it anew.
REDO_CONFIG = ("delete it and re-run the command that made this folder (its finished stages are kept), or use "
               "another --out")


@dataclass(frozen=True)
class OtherCommandLine:
    """The settings another command line gives (``config``: the dataclass's fields), and what to say when a
    folder holds them: it was ``made`` that way ("made with --smoke"), and the ``advice`` ("add --smoke to
    go on with it"). Why: a folder made with --smoke, re-run without it, was refused with four of the
    settings --smoke sets listed, and --smoke not named."""

    made: str
    advice: str
    config: dict[str, Any]


def _differences(earlier: dict[str, Any], config: dict[str, Any]) -> list[str]:
    """Each setting other than :data:`FREE_ON_RERUN` that ``config`` gives otherwise than ``earlier`` holds."""
    mine = json.loads(json.dumps(config))  # as config.json holds it (tuples as lists)
    return [f"{k}: {earlier.get(k)!r:.40} there, {v!r:.40} now" for k, v in mine.items()
            if k not in FREE_ON_RERUN and earlier.get(k, v) != v]


def check_same_recipe(out: Path, config: dict[str, Any], others: tuple[OtherCommandLine, ...] = ()) -> None:
    """Refuse an --out made with other settings (``config``: the dataclass's fields); where they are those of
    one of ``others``, say so. Why: its stages were skipped as done and the results then described
    settings they were not made with (shape l4-w192 over an l2-w128 model)."""
    path = out / "config.json"
    if not path.exists():
        return
    earlier = read_record(path, REDO_CONFIG)  # before: "delete the folder", while the file alone would do
    differ = _differences(earlier, config)
    if not differ:
        return
    listed = "; ".join(differ[:4])
    for other in others:
        if not _differences(earlier, other.config):
            raise ValueError(f"{out} holds a recipe run {other.made} ({listed}); {other.advice}, or use another --out")
    raise ValueError(f"{out} holds a recipe run with other settings ({listed}); use another --out (copy its "
                     "sft_data/ there to reuse the reader's episodes) or delete it")


def seconds_lost(which: str) -> str:
    """What a recipe run does with a damaged stage_seconds.json: seconds are a report, not a result."""
    return (f"{which} are lost (a finished stage is not run again): RESULTS.md and results.json give them, and "
            "the wall and CPU time, as unknown")


def _seconds_problem(name: str, value: Any) -> str:
    """What is wrong with one stage's record ("" when nothing): [wall, CPU] seconds in range, or null (lost)."""
    if value is None:
        return ""
    if not isinstance(value, list) or len(value) != 2:
        return f"its {name!r} is {shown(value)} where [wall, CPU] seconds belong"
    wrong = next((x for x in value if not (is_number(x) and 0 <= x <= MAX_SECONDS)), None)
    return "" if wrong is None else \
        f"its {name!r} holds {shown(wrong)} where seconds in 0..{MAX_SECONDS:g} belong"


def read_seconds(path: Path) -> dict[str, Any]:
    """The stages' recorded seconds, each [wall, CPU] or None (lost); a missing record is an empty one,
    and a damaged one, or a stage's entry in it, is left out with a warning naming it (:func:`seconds_lost`).
    Before: read whole and without a word, text nested 100,000 deep ended in a RecursionError, and
    the warning said the stages were timed again, while they were skipped and reported as 0 s."""
    try:
        record = read_record(path)
    except FileNotFoundError:
        return {}
    except DamagedFile as error:
        warn_damaged(error, seconds_lost("the seconds of the finished stages it held"))
        return {}
    problems = {name: _seconds_problem(name, value) for name, value in record.items()}
    damaged = [problem for problem in problems.values() if problem]
    if damaged:
        warn_damaged(DamagedFile(path, damaged[0] + (f" (and {len(damaged) - 1} more)" if len(damaged) > 1 else "")),
                     seconds_lost("those seconds"))
    return {name: value for name, value in record.items() if not problems[name]}


#: What each stage's file must hold for the results (``present``: checked when there).
SFT_FIELDS = {"parameters": COUNT, "sft_steps": COUNT, "sft_loss": NUMBER, "sft_tokens_per_s": NUMBER}
SFT_PRESENT = {"kept": COUNT, "transcripts": COUNT, "worlds": COUNT}
#: A share (a success rate, a parse rate, an accuracy) and one task's success (0 or 1, as a float).
SHARE = _between(0, 1)
SHARES = Kind("a list of numbers in 0..1", lambda v: isinstance(v, list) and all(SHARE.test(x) for x in v))
EVAL_FIELDS = {"success": SHARE, "parse_rate": SHARE, "tasks": COUNT, "generate_tokens_per_s": NUMBER,
               "per_task": SHARES}
CHOICES_FIELDS = {"transcripts": COUNT, "tasks": COUNT, "counts": OBJECT, "episodes": optional(SHARE),
                  **{kind: optional(SHARE) for kind in ("act", "tool", "arg", "answer")}}
CHOICES_PRESENT = {f"counts.{kind}": COUNT for kind in ("act", "tool", "arg", "answer")}
RL_FIELDS = {"seed": INT, "success": SHARE, "parse_rate": SHARE, "per_task": SHARES, "rl_seconds": NUMBER,
             "rl_generate_tokens_per_s": NUMBER, "rl_train_tokens_per_s": optional(NUMBER)}
REDO_EVALUATION = "delete it and re-run the same command to redo this evaluation"


def read_stage(path: Path, fields: dict[str, Kind], present: dict[str, Kind] | None = None,
               remedy: str = REDO_EVALUATION) -> dict[str, Any]:
    """A finished stage's file, read bounded and checked to hold what the results take from it.
    Before: ``json.loads(read_text())``, so a cut file said "Unterminated string starting at: line 1
    column 11" naming no file, ``"success": "x"`` ended in "Unknown format code 'f'", a list was
    taken as the stage's figures, and text nested 100,000 deep ended in a RecursionError."""
    record = read_record(path, remedy)
    check_fields(path, record, fields, present, remedy)
    if "tasks" in fields and "per_task" in fields and len(record["per_task"]) != record["tasks"]:
        # before: a cut per_task was blamed on each RL run, whose eval.json scores the tasks the SFT model had
        raise DamagedFile(path, f"its 'per_task' scores {len(record['per_task'])} tasks where its 'tasks' says "
                          f"{record['tasks']}", remedy)
    if "success" in fields and "per_task" in fields:
        check_success_is_mean(path, record["success"], record["per_task"], remedy)
    return record


def check_success_is_mean(path: Path, success: float, per_task: list[float], remedy: str) -> None:
    """A stage's ``success`` is the mean of its ``per_task`` (what the evaluation wrote; 0 with no tasks),
    else :class:`DamagedFile`. Why: a file claiming success 0.9 over per_task all 0 was taken, and its
    success printed beside gains computed from the scores."""
    mean = sum(per_task) / len(per_task) if per_task else 0.0
    if not math.isclose(success, mean, rel_tol=1e-9, abs_tol=1e-9):
        raise DamagedFile(path, f"its 'success' {number_text(success)} is not the mean of its 'per_task' "
                          f"({number_text(round(mean, 6))} over {len(per_task)} tasks)", remedy)


def read_record(path: Path, remedy: str = DELETE_AND_RERUN) -> dict[str, Any]:
    """One of the recipe's JSON records (an object), not through a link, at most :data:`MAX_RECORD_BYTES`
    bytes and :data:`MAX_RECORD_VALUES` values; damage is :class:`DamagedFile`. Missing: ``FileNotFoundError``.
    Why: a handed-over recipe folder's records were read through links, up to 256 MB, values unbounded."""
    return read_json_capped(path, MAX_RECORD_BYTES, MAX_RECORD_VALUES, "more than any recipe's record", dict, remedy)
