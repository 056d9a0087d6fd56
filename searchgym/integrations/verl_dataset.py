"""A searchgym split as verl's multi-turn tool-calling dataset: parquet rows and the tool config.

verl reads a parquet file whose rows hold ``data_source``, ``prompt`` (chat messages),
``ability``, ``reward_model`` (``style``, ``ground_truth``), ``extra_info`` and ``agent_name``;
its tool agent loop passes ``extra_info["tools_kwargs"][tool]["create_kwargs"]`` to each tool's
``create`` and offers the row only the tools named in ``extra_info["tool_selection"]``. The tool
config YAML names the tool classes by dotted path (``class_name``) with their OpenAI schemas, and
the agent loop YAML (verl's ``agent_loop_config_path``) registers the row's ``agent_name``:
:class:`searchgym.integrations.verl_agent_loop.SearchgymToolAgentLoop`, verl's tool agent loop
whose trajectories carry the episode's return as their reward.

Here every tool's ``create_kwargs`` is the row's task locator (suite, split, task id, seed):
:class:`searchgym.integrations.verl.SearchgymTool` plays that task in searchgym's env, and the
reward comes from the env during the rollout. ``reward_model.ground_truth`` is the JSON list of
gold answers on train and dev and ``""`` on test: the test split's answers are never written
(the task API does not give them). Needs no verl: pandas with pyarrow, and pyyaml.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

from searchgym.damaged import DamagedFile, open_regular
from searchgym.extras import MissingExtra
from searchgym.fileio import atomic_write_bytes, atomic_write_text, not_a_folder
from searchgym.harness.out_folders import EXPORT, check_out_folder
from searchgym.integrations.text_tasks import check_seed, text_task_records

__all__ = ["AGENT_NAME", "TOOL_CLASS", "export_verl", "verl_agent_loop_config", "verl_rows", "verl_tool_config"]

TOOL_CLASS = "searchgym.integrations.verl.SearchgymTool"
#: The rows' agent loop: verl's ToolAgentLoop with the episode's return as reward (before: "tool_agent",
#: whose output dropped the episode's record, so a right answer scored as a format error)
AGENT_NAME = "searchgym_tool_agent"
INSTALL = "pip install 'searchgym[verl]'  (or: pip install pandas pyarrow pyyaml)"


def _single_agent_records(suite: str, split: str) -> list[Any]:
    return text_task_records(suite, split, "the verl export")


def _tool_names(records: list[Any]) -> list[str]:
    names: dict[str, None] = {}
    for record in records:
        names.update({tool["function"]["name"]: None for tool in record.tools})
    return list(names)


def verl_rows(suite: str, split: str, seed: int = 0) -> list[dict[str, Any]]:
    """One verl row per task of ``split``, in the suite's order (see the module docstring)."""
    check_seed(seed, "the verl export's", optional=False)
    records = _single_agent_records(suite, split)
    names = _tool_names(records)
    rows = []
    for index, record in enumerate(records):
        locator = {"suite": suite, "split": split, "task_id": record.task_id, "seed": seed}
        rows.append({
            "data_source": f"searchgym/{suite}",
            "prompt": record.messages,
            "ability": "search",
            "reward_model": {"style": "searchgym-env",
                             "ground_truth": json.dumps(record.answers) if record.answers is not None else ""},
            "extra_info": {"split": split, "index": index, "task_id": record.task_id, "question": record.question,
                           "need_tools_kwargs": True, "searchgym": locator,
                           "tools_kwargs": {name: {"create_kwargs": dict(locator)} for name in names},
                           "tool_selection": [tool["function"]["name"] for tool in record.tools]},
            "agent_name": AGENT_NAME,
        })
    return rows


def verl_tool_config(suite: str, split: str = "test") -> dict[str, Any]:
    """verl's tool config: one ``SearchgymTool`` entry per tool of the suite, with its schema."""
    schemas: dict[str, dict[str, Any]] = {}
    for record in _single_agent_records(suite, split):
        for tool in record.tools:
            schemas.setdefault(tool["function"]["name"], tool)
    return {"tools": [{"class_name": TOOL_CLASS, "config": {"type": "native"}, "tool_schema": schema}
                      for schema in schemas.values()]}


def verl_agent_loop_config() -> list[dict[str, str]]:
    """The agent loop YAML's content: the rows' ``agent_name`` and its class (verl instantiates ``_target_``)."""
    from searchgym.integrations.verl_agent_loop import AGENT_LOOP_CLASS

    return [{"name": AGENT_NAME, "_target_": AGENT_LOOP_CLASS}]


def export_verl(suite: str, split: str, out: str | Path, seed: int = 0) -> dict[str, Path]:
    """Write ``out/<split>.parquet``, ``out/tool_config.yaml`` and ``out/agent_loop.yaml``; their paths
    by kind. None is written over: an existing ``<split>.parquet`` is refused, and so is a YAML file that
    differs from this export's, or a link in its place (the splits of one suite share them: train and
    dev go into one folder for verl), and a folder holding other files than an export's (another command's,
    or the user's own: :func:`~searchgym.harness.out_folders.check_out_folder`). Why: a second export
    replaced the first one's files without a word. ``out`` is made first: one that cannot be is a ValueError naming ``--out``."""
    try:
        import pandas as pd
        import pyarrow  # noqa: F401  (pandas writes parquet with it)
        import yaml
    except ImportError as exc:  # one line (a plain ImportError was a traceback in `searchgym export`)
        raise MissingExtra(f"the verl export needs pandas, pyarrow and pyyaml ({exc.name or exc} is missing): "
                           f"{INSTALL}") from None
    out = Path(out)
    data = out / f"{split}.parquet"
    _refuse_link(data)  # before: a dangling link there "already exists (an earlier export ...?)"
    if data.exists():  # before the rows are built
        raise ValueError(f"{data} already exists (an earlier export of the {split} split?) and is kept; delete it "
                         "or export into another folder (--out)")
    check_out_folder(out, EXPORT)  # before: a dataset was written into a finished run's folder, without a word
    check_same_suite(out, suite)
    made = _make_folder(out)
    try:
        configs = {"tool_config": (out / "tool_config.yaml", verl_tool_config(suite, split)),
                   "agent_loop_config": (out / "agent_loop.yaml", verl_agent_loop_config())}
        texts = {}
        for kind, (path, content) in configs.items():
            text = yaml.safe_dump(content, sort_keys=False, allow_unicode=True)
            if not _holds(path, text.encode("utf-8")):
                _check_replaceable(path, content, "tool config" if kind == "tool_config" else "agent loop config")
                texts[path] = text
        buffer = io.BytesIO()
        pd.DataFrame(verl_rows(suite, split, seed)).to_parquet(buffer, index=False)
    except BaseException:
        for folder in made:  # an export that failed before writing leaves no empty folder behind
            try:
                folder.rmdir()
            except OSError:
                break
        raise
    atomic_write_bytes(data, buffer.getvalue())
    for path, text in texts.items():
        atomic_write_text(path, text)
    return {"data": data, **{kind: path for kind, (path, _) in configs.items()}}


def _make_folder(out: Path) -> list[Path]:
    """Make ``out`` (and its missing parents) before the tasks are built; the folders made, deepest first.
    Why: ``--out /proc/nope`` was a bare "[Errno 2] No such file or directory: '/proc/nope'", after the rows;
    a broken link was "cannot be made a folder (File exists)", naming neither the link nor its target."""
    made = [folder for folder in (out, *out.parents) if not folder.exists()]
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        if out.is_symlink():  # a broken one: named with its target, as compare, train and evaluate name it
            raise ValueError(f"--out {out} is {not_a_folder(out)}; delete the link or choose another "
                             "--out") from None
        raise ValueError(f"--out {out} cannot be made a folder ({exc.strerror or exc}); accepted: a folder that "
                         "exists or that this user can create, on a writable disk (not under /proc or /sys)") from None
    return made


#: The most bytes of an existing YAML file read to tell what it holds (this export's are a few kB).
MAX_CONFIG_BYTES = 1 << 20


def _refuse_link(path: Path) -> None:
    """ValueError naming ``path`` if it is a symbolic link (dangling or not): the export never writes
    through a link, nor replaces one."""
    if path.is_symlink():
        raise ValueError(f"{path} is a symbolic link (to {os.readlink(path)}), which the export does not write "
                         f"through or replace; remove the link or export into another folder (--out)")


def _check_replaceable(path: Path, content: Any, what: str) -> None:
    """ValueError unless ``path`` is free to write: a link, or a file that differs from this export's
    ``content``, is kept, each said as what it is. Why: a dangling link, or this export's own file with a
    comment added, was said to hold "another tool config"."""
    import yaml

    keep = "is kept; delete it or export into another folder (--out)"
    _refuse_link(path)
    if not path.exists():
        return
    try:  # one regular file, bounded (a FIFO of that name blocked read_text for ever)
        with open_regular(path, MAX_CONFIG_BYTES, keep, follow_links=False) as handle:
            found = yaml.safe_load(handle.read().decode("utf-8"))
    except (DamagedFile, OSError, ValueError, RecursionError, yaml.YAMLError):  # not a file, too big, not YAML
        found = None
    if found == content:
        raise ValueError(f"{path} already exists and differs from what this export writes only in its text (the "
                         f"same {what}, with a comment or its layout edited?) and is kept; delete it (the export "
                         "writes it again) or export into another folder (--out)")
    holds = ("holds another {what} than this export's (another suite's export?)" if isinstance(found, dict | list)
             else "differs from what this export writes (it holds no {what}: not YAML, or not a mapping or list)")
    raise ValueError(f"{path} already exists and {holds.format(what=what)} and {keep}")


SPLITS = ("train", "dev", "test")


#: The most bytes a searchgym export's data_source column takes, uncompressed (a 1,090-row split's is
#: about 33 kB plain and far less dictionary-encoded): a larger one is read no further.
MAX_SOURCE_BYTES = 8 << 20
#: The most row groups such a file has (pandas writes one per 1M rows: an export has one).
MAX_ROW_GROUPS = 64


def check_same_suite(out: Path, suite: str) -> None:
    """ValueError unless every ``<split>.parquet`` in ``out`` is an export of ``suite`` (each row names its
    suite in ``data_source``, so any earlier export tells, with no record beside it to go stale). Why: an
    export of another suite into a folder holding one's splits succeeded, mixing two suites in one dataset."""
    for split in SPLITS:
        path = out / f"{split}.parquet"
        if not path.is_file():
            continue
        found = _exported_suite(path, split)
        if found is None:
            raise ValueError(f"{out} holds {path.name}, which is not a searchgym verl export (its rows name no single "
                             f"suite in data_source), so {suite}'s export would be mixed with it; export into "
                             "another folder (--out)")
        if found != suite:
            raise ValueError(f"{out} holds an export of suite {found!r} ({path.name}), not {suite!r}: one folder "
                             f"holds the splits of one suite; export {suite} into another folder (--out)")


def _exported_suite(path: Path, split: str) -> str | None:
    """The suite a searchgym verl parquet file of ``split`` was exported from; None when it is not one (or
    unreadable). Its footer is read first, and the rows only when they are no more than that suite's
    split has (a ValueError naming the file otherwise). Why: the whole column was read into a Python list,
    so a 108 kB file of 20 million dictionary-encoded rows took 1.9 GB and 90 s, and was then accepted."""
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path, read_dictionary=["data_source"])  # values once, not per row
        meta = parquet.metadata
        column = next((i for i in range(meta.num_columns) if meta.schema.column(i).path == "data_source"), None)
        if column is None:
            return None
        if meta.num_row_groups > MAX_ROW_GROUPS:
            raise _TooLarge(f"{path} holds {meta.num_row_groups} row groups, more than a searchgym export has "
                            f"({MAX_ROW_GROUPS} at most)")
        if sum(meta.row_group(i).column(column).total_uncompressed_size for i in range(meta.num_row_groups)) \
                > MAX_SOURCE_BYTES:
            raise _TooLarge(f"{path} holds more than {MAX_SOURCE_BYTES} bytes of data_source, more than a searchgym "
                            "export has")
        first = next(parquet.iter_batches(batch_size=1, columns=["data_source"]), None)
        source = first.column(0)[0].as_py() if first is not None and first.num_rows else None
        if not (isinstance(source, str) and source.startswith("searchgym/")):
            return None
        found = source.removeprefix("searchgym/")
        size = _split_size(found, split)
        if size is None:
            return None
        if meta.num_rows > size:
            raise _TooLarge(f"{path} holds {meta.num_rows} rows, more than the {split} split of suite {found!r} has "
                            f"({size})")
        table = parquet.read(columns=["data_source"], use_threads=False)
        sources = set()
        for chunk in table.column(0).chunks:  # the distinct values, not a Python object per row
            sources.update(chunk.dictionary.take(chunk.indices.unique().drop_null()).to_pylist())
            if chunk.null_count:
                sources.add(None)
    except _TooLarge as exc:
        raise ValueError(f"{exc}, so it is not a searchgym verl export and was read no further; delete it or "
                         "export into another folder (--out)") from None
    except Exception:  # noqa: BLE001 - damaged, not parquet, or no such column: not a searchgym export
        return None
    return found if sources == {source} else None


class _TooLarge(Exception):
    """A parquet file larger than any searchgym export (its footer says so)."""


def _split_size(suite: str, split: str) -> int | None:
    """How many tasks ``split`` of ``suite`` has; None when there is no such suite."""
    import searchgym

    try:
        return len(searchgym.tasks(suite, split))
    except Exception:  # noqa: BLE001 - an unknown suite (or one that cannot be built) exported nothing
        return None


def _holds(path: Path, content: bytes) -> bool:
    """Whether ``path`` is a regular file holding exactly ``content`` (read only when the sizes agree)."""
    try:
        return path.is_file() and path.stat().st_size == len(content) and path.read_bytes() == content
    except OSError:
        return False
