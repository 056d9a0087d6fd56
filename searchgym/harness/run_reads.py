"""A run folder read back when it may come from someone else: never through a link, never without bound.

Why: ``report``, ``load_results`` and ``evaluate --agent run`` read folders that are copied between
people, and each read was as trusting as a read of our own: a ``runs/<method>`` or ``config.json`` that
was a link to a file elsewhere was read as the run's, a ``metrics.jsonl`` padded with 60 MB of ``{}``
took 1.5 GB to read (a ``result.json`` padded so: 1.6 GB), every row of a file was kept whatever
its size. Each limit here is far above what a run writes, and each refusal is one line naming the file.
"""

from __future__ import annotations

from collections.abc import Collection
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from searchgym.damaged import (
    LINKED_READ,
    DamagedFile,
    JsonlRows,
    parse_json_bytes,
    read_bounded,
    shown_text,
)
from searchgym.fileio import refuse_link
from searchgym.shown import terminal_safe

#: A run's config.json and result.json are kilobytes (a config with its packages and options: ~10 KB).
MAX_RUN_JSON_BYTES = 4 * 1024 * 1024
#: ... and hold a few hundred JSON values; padded with ``{}`` the cap above would hold a million.
MAX_RUN_JSON_VALUES = 200_000
#: A prediction row: an answer of at most 10,000 characters (action_types.MAX_ANSWER_CHARS), written
#: as up to 12 bytes each (a character outside the BMP: two \\u escapes), and a few fields.
MAX_PREDICTION_LINE = 128 * 1024
#: ... of eight flat fields: more JSON values in one is no row a run wrote.
MAX_PREDICTION_VALUES = 64
#: Rows read where neither the run's suite nor its result.json says how many it scored.
MAX_PREDICTION_ROWS = 100_000
#: Lines a predictions.jsonl may hold beyond two a row (:func:`prediction_lines`).
PREDICTION_SPARE_LINES = 10
#: A metrics row of a learning run holds ~50 values (~1.5 KB); a user's row may hold lists.
MAX_METRICS_LINE = 1024 * 1024
#: JSON values of one metrics file, counted as it is read: ~160,000 rows of a GRPO run (one an
#: iteration: ~10**8 env steps), so that padding cannot grow memory beyond what the rows themselves need.
MAX_METRICS_VALUES = 8_000_000
MAX_METRICS_BYTES = 1024 * 1024 * 1024
#: What a linked file or folder of a run says to do.
UNLINK = "replace the link with a copy of what it points to (if that is this run's), or remove it"


def refuse_linked(path: Path, remedy: str = UNLINK) -> Path:
    """``path`` once it is no symbolic link (else :class:`DamagedFile` naming it, unread): a read's
    :func:`fileio.refuse_link`, saying why a read refuses one."""
    return refuse_link(path, remedy, LINKED_READ)


def count_values(value: Any, limit: int) -> int:
    """How many JSON values ``value`` holds (itself included), counted without recursion and stopping
    once past ``limit`` (the count then returned is ``limit + 1``)."""
    count, stack = 0, [value]
    while stack:
        item = stack.pop()
        count += 1
        if count > limit:
            return limit + 1
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


def run_json(path: Path, remedy: str, what: str = "a run's config.json or result.json") -> dict[str, Any]:
    """A run's small JSON file (an object), not through a link, at most :data:`MAX_RUN_JSON_BYTES` bytes
    and :data:`MAX_RUN_JSON_VALUES` values. Missing: ``FileNotFoundError``."""
    record = parse_json_bytes(path, read_bounded(path, MAX_RUN_JSON_BYTES, remedy, follow_links=False), dict,
                              remedy)
    if count_values(record, MAX_RUN_JSON_VALUES) > MAX_RUN_JSON_VALUES:
        raise DamagedFile(path, f"holds more than {MAX_RUN_JSON_VALUES} JSON values, where {what} holds a few "
                          "hundred", remedy)
    return record


@dataclass
class Rows:
    """A JSONL file's rows as :func:`read_rows` read them: ``overlong`` lines past the line cap and
    lines that are no JSON object are skipped as iter_jsonl skips them; ``stopped`` says a cap ended the
    reading."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    overlong: int = 0
    stopped: str = ""


def read_rows(path: Path, max_line: int, remedy: str, max_rows: int | None = None, max_values: int | None = None,
              max_bytes: int | None = None, row_values: int | None = None, max_lines: int | None = None) -> Rows:
    """The rows of a run's JSONL file, not through a link, read line by line (:class:`JsonlRows`): a line
    longer than ``max_line`` is skipped unparsed; reading stops (``stopped`` says why) past ``max_rows`` rows
    or once the lines hold ``max_values`` JSON values in all (counted from the line's commas and brackets, a
    bound that is cheap to take); a row of more than ``row_values`` values, or a file of more than
    ``max_lines`` lines (blank and skipped ones included), is :class:`DamagedFile`. A missing file has no
    rows; a file over ``max_bytes`` is refused unread."""
    found = Rows()
    lines = JsonlRows(path, max_line, remedy, max_bytes, max_values, max_lines)
    with closing(iter(lines)) as rows:  # the file closed here, not when the iterator is collected
        for row in rows:
            if row_values is not None and count_values(row, row_values) > row_values:
                raise DamagedFile(path, f"row {len(found.rows) + 1} holds more than {row_values} JSON values, "
                                  "which no row a run writes holds", remedy)
            if max_rows is not None and len(found.rows) >= max_rows:
                found.stopped = f"holds more than {max_rows} rows"
                break
            found.rows.append(row)
    if lines.past_lines:
        raise DamagedFile(path, f"holds more than {max_lines} lines (blank or unreadable ones among them), more "
                          "than a run writes", remedy)
    found.overlong = lines.overlong
    if lines.past_values:
        found.stopped = f"holds more than {max_values} JSON values"
    return found


def metrics_rows(path: Path, remedy: str) -> Rows:
    """A run's metrics.jsonl within the bounds of a metrics file (:data:`MAX_METRICS_LINE`,
    :data:`MAX_METRICS_VALUES`, :data:`MAX_METRICS_BYTES`)."""
    return read_rows(path, MAX_METRICS_LINE, remedy, max_values=MAX_METRICS_VALUES, max_bytes=MAX_METRICS_BYTES)


def prediction_rows(path: Path, remedy: str, cap: int | None) -> Rows:
    """A run's predictions.jsonl, at most ``cap`` rows (:data:`MAX_PREDICTION_ROWS` when None) of at most
    :data:`MAX_PREDICTION_LINE` bytes and :data:`MAX_PREDICTION_VALUES` values each, in at most
    :func:`prediction_lines` lines."""
    cap = min(MAX_PREDICTION_ROWS if cap is None else cap, MAX_PREDICTION_ROWS)
    return read_rows(path, MAX_PREDICTION_LINE, remedy, max_rows=cap, max_bytes=(cap + 1) * MAX_PREDICTION_LINE,
                     row_values=MAX_PREDICTION_VALUES, max_lines=prediction_lines(cap))


def prediction_lines(cap: int) -> int:
    """The lines a predictions.jsonl of at most ``cap`` rows may hold: a run writes one a row; room for a
    blank line after each and a few more (an edited copy). Why: blank lines counted against no cap, so a
    file of millions of them (or one run of newlines as long as the byte bound allows) was read through."""
    return 2 * cap + PREDICTION_SPARE_LINES


def suite_from_config(path: Path, config: dict[str, Any], remedy: str) -> Any:
    """The suite a run's config.json defines (``config["suite"]``), checked as the envs check its world
    and settings before anything generates its world (:func:`check_env_settings`). Why: ``report``
    built the suite of a handed-over folder and hashed it, so a world_size of 10**7 there generated that
    world for good (1.5 GB and growing after 2 minutes)."""
    from searchgym.suites import Suite

    try:
        suite = Suite(**config["suite"])
        check_env_settings(suite)
    except (TypeError, ValueError, KeyError) as exc:
        raise DamagedFile(path, f"holds a suite definition searchgym cannot read ({exc})", remedy) from None
    return suite


def check_env_settings(suite: Any) -> None:
    """ValueError unless the envs accept the suite's world and settings, checked as an env checks them
    (EnvConfig) without building a world. Before: a world_size of 10**11 in a run's config.json
    started generating that world, for good."""
    from searchgym.envs.config import CONFIG_KWARGS, EnvConfig
    from searchgym.registry import spec

    settings = {k: v for k, v in {**spec(suite.env_id).kwargs, **suite.kwargs}.items() if k in CONFIG_KWARGS}
    for families in (suite.families, suite.train_families):
        EnvConfig(**{**settings, "world_seed": suite.world_seed, "world_size": suite.world_size,
                     "families": families, "difficulty": suite.difficulty})


def scored_tasks(tests: list[tuple[str, str]], config: dict[str, Any], path: Path, remedy: str) -> dict[str, str]:
    """task id -> family of the test tasks a run with ``config`` (read from ``path``) scored: its suite's
    test split ``tests``, or its first ``limit`` tasks for a run made with ``--limit``."""
    limit = config.get("limit")
    if limit is None:
        return dict(tests)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise DamagedFile(path, f"records limit {terminal_safe(repr(limit)[:40])}, not a number of tasks >= 1 "
                          "(`evaluate --limit`)", remedy)
    return dict(tests[:limit])


def is_seed_folder(path: Path) -> bool:
    """Whether ``path`` is named as a comparison's run folder, ``seed<N>`` as the harness writes it (``seed_old``, a
    backup, is not; nor ``seed00``, a copy the report never reads, nor ``seed²``: ``str.isdigit`` took it, and
    ``int`` then failed the report)."""
    digits = path.name[4:]
    return path.name.startswith("seed") and digits.isascii() and digits.isdigit() and str(int(digits)) == digits


def linked_runs(runs: Path, labels: Collection[str] | None = None) -> dict[Path, list[Path]]:
    """:class:`DamagedFile` for the first link among a comparison's ``runs`` folder, its method folders (those
    named in ``labels`` alone, when given: the others are not read) and their ``seed<N>`` folders (a folder
    elsewhere, reported as one of this comparison's runs); else each method folder checked -> its ``seed<N>``
    folders, sorted, so that a caller reads on without listing them again."""
    refuse_linked(runs)
    if not runs.is_dir():
        return {}
    checked: dict[Path, list[Path]] = {}
    for label in sorted(runs.iterdir()):
        if (labels is None or label.name in labels) and refuse_linked(label).is_dir():
            checked[label] = [refuse_linked(seed) for seed in sorted(label.iterdir()) if is_seed_folder(seed)]
    return checked


__all__ = ["MAX_METRICS_BYTES", "MAX_METRICS_LINE", "MAX_METRICS_VALUES", "MAX_PREDICTION_LINE",
           "MAX_PREDICTION_ROWS", "MAX_PREDICTION_VALUES", "MAX_RUN_JSON_BYTES", "MAX_RUN_JSON_VALUES",
           "PREDICTION_SPARE_LINES", "Rows", "check_env_settings", "count_values", "is_seed_folder", "linked_runs",
           "metrics_rows", "prediction_lines", "prediction_rows", "read_rows", "refuse_linked", "run_json",
           "scored_tasks", "shown_text", "suite_from_config"]
