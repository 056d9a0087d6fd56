"""Bring-your-own data: JSONL corpora and tasks (for example Wikipedia + NQ / HotpotQA).

A corpus line is ``{"id", "title", "text"}`` (``url`` optional); a task line is
``{"id", "question", "answers"}`` (``split``, ``family`` optional). Bad lines are reported with
their line number and what was expected; nothing is downloaded.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

from searchgym.world.model import Page, Sentence, Task
from searchgym.world.world import SPLITS, World

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _read_jsonl(path: str | Path, required: tuple[str, ...]) -> list[dict]:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such JSONL file: {path}")
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise ValueError(f"{path}:{number}: expected a JSON object with keys {list(required)}")
            missing = [k for k in required if k not in row]
            if missing:
                raise ValueError(f"{path}:{number}: missing key(s) {missing}; expected {list(required)}")
            rows.append(row)
    return rows


def load_corpus(path: str | Path) -> list[Page]:
    """Read a JSONL corpus into pages (split into sentences; no fact ids: real text has none)."""
    pages = []
    for row in _read_jsonl(path, ("id", "title", "text")):
        sentences = tuple(Sentence(s) for s in _SENTENCE_END.split(str(row["text"]).strip()) if s)
        url = str(row.get("url") or f"doc://{row['id']}")
        pages.append(Page(str(row["id"]), url, str(row["title"]), sentences, "external", None))
    return pages


def load_tasks(path: str | Path, default_split: str = "test") -> list[Task]:
    """Read JSONL tasks; ``answers`` is a list of aliases (a bare string is accepted)."""
    tasks = []
    for row in _read_jsonl(path, ("id", "question", "answers")):
        answers = row["answers"]
        answers = [answers] if isinstance(answers, str) else [str(a) for a in answers]
        split = row.get("split", default_split)
        if split not in SPLITS:
            raise ValueError(f"task {row['id']}: unknown split {split!r}; accepted: {', '.join(SPLITS)}")
        tasks.append(Task(
            id=str(row["id"]), family=str(row.get("family", "external")), question=str(row["question"]),
            answers=tuple(answers), answer_type=str(row.get("answer_type", "text")), evidence=(),
            tools=("web_search",), split=split,
        ))
    return tasks


def world_from_files(corpus: str | Path, tasks: str | Path, now: dt.date | None = None) -> World:
    """A world over a user corpus and tasks: no entities and no KB facts, only pages and questions."""
    return World(
        seed=0, size="external", now=now or dt.date(2030, 1, 1), entities={}, facts={},
        pages=tuple(load_corpus(corpus)), kb={}, tasks=tuple(load_tasks(tasks)), version="external-v0",
        meta={"corpus": str(corpus), "tasks": str(tasks)},
    )
