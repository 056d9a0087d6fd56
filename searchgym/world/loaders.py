"""Bring-your-own data: JSONL corpora and tasks (for example Wikipedia + NQ / HotpotQA).

A corpus line is ``{"id", "title", "text"}`` (``url`` optional); a task line is
``{"id", "question", "answers"}`` (``split``, ``family``, ``answer_type`` optional). Each line is
checked against :data:`PAGE_SCHEMA` / :data:`TASK_SCHEMA` and nothing is coerced: a number or
``null`` where text belongs, an empty answer list and a repeated id are errors that name
``file:line`` and what is accepted (:mod:`searchgym.world.jsonl_records`). Other keys are
ignored. Nothing is downloaded.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import string
import unicodedata
from pathlib import Path

from searchgym.world.jsonl_records import read_records
from searchgym.world.model import Page, Sentence, Task
from searchgym.world.world import SPLITS, World

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
ANSWER_TYPES = ("entity", "number", "list", "text")
#: a character that shows: not a space, and not a zero-width one (U+200B..U+200D, U+2060, U+FEFF)
_VISIBLE = "[^\\s\\u200b-\\u200d\\u2060\\ufeff]"
_NAME = {"type": "string", "pattern": _VISIBLE, "maxLength": 1000}  # an id or a name: not blank
_TEXT = {"type": "string"}

PAGE_SCHEMA = {
    "type": "object", "required": ["id", "title", "text"],
    "properties": {"id": _NAME, "title": _TEXT, "text": _TEXT, "url": _NAME},
}
TASK_SCHEMA = {
    "type": "object", "required": ["id", "question", "answers"],
    "properties": {
        "id": _NAME, "question": {"type": "string", "pattern": _VISIBLE},
        "answers": {"anyOf": [_NAME, {"type": "array", "minItems": 1, "items": _NAME}]},
        "split": {"enum": list(SPLITS)}, "family": _NAME, "answer_type": {"enum": list(ANSWER_TYPES)},
    },
}
_NAME_FORM = "a string with a non-blank character (at most 1000 characters)"
PAGE_FORMS = {"id": _NAME_FORM, "title": "a string", "text": "a string", "url": _NAME_FORM}
TASK_FORMS = {
    "id": _NAME_FORM, "question": "a string with a non-blank character",
    "answers": "a non-empty list of non-blank strings (or one non-blank string)",
    "split": f"one of {', '.join(SPLITS)}", "family": _NAME_FORM, "answer_type": f"one of {', '.join(ANSWER_TYPES)}",
}


_DIGIT = re.compile(r"\d")
_ARTICLE_WORDS = re.compile(r"\b(a|an|the)\b")
_LIST_PARTS = re.compile(r"[,;\n&]| and ", re.IGNORECASE)


def _blank_when_scored(text: str) -> bool:
    """Whether ``text`` is nothing once normalised as answers are scored: lower case, no punctuation, no
    articles (SQuAD's rule, ``scoring.normalize_answer``, which this layer may not import; a test keeps
    the two in step)."""
    kept = "".join(ch for ch in text.lower() if ch not in string.punctuation and not unicodedata.category(ch)
                   .startswith("P"))
    return not _ARTICLE_WORDS.sub(" ", kept).split()


def _task_problem(row: dict) -> str | None:
    """A number task is scored by the first number of an answer (:mod:`searchgym.numbers`), so one
    whose answers hold no digit ("twelve") could never be answered right: refused, not loaded."""
    answers = [row["answers"]] if isinstance(row["answers"], str) else row["answers"]
    if row.get("answer_type") == "number" and not any(_DIGIT.search(a) for a in answers):
        return (f"'answers' of a number task must hold a number written in digits (answers are matched by "
                f"their first number), got {json.dumps(answers, ensure_ascii=False)[:60]}")
    # a list task is scored item by item (its first answer split at the list's separators)
    scored = [p for p in _LIST_PARTS.split(answers[0]) if p.strip()] if row.get("answer_type") == "list" else answers
    empty = next((a for a in scored if _blank_when_scored(a)), None)
    if empty is not None:  # before: "A", "The" or "..." as gold was matched by an answer of "?" or "the"
        return (f"answer {json.dumps(empty, ensure_ascii=False)[:40]} is empty once normalised as answers are "
                "scored (lower case, no punctuation, no articles a/an/the), so an empty or punctuation-only answer "
                "would match it; write the answer's words (for a multiple-choice option, the option's text)")
    return None


def _nfc(text: str) -> str:
    """Text in one Unicode form (NFC). Why: a page exported decomposed (NFD, as some Wikipedia dumps
    are) was not found by a query typed composed, and an answer copied from it did not score."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def load_corpus(path: str | Path) -> list[Page]:
    """Read a JSONL corpus into pages (split into sentences; no fact ids: real text has none)."""
    pages = []
    for row in read_records(path, PAGE_SCHEMA, PAGE_FORMS, "page"):
        sentences = tuple(Sentence(s) for s in _SENTENCE_END.split(_nfc(row["text"]).strip()) if s)
        pages.append(Page(row["id"], row.get("url", f"doc://{row['id']}"), _nfc(row["title"]), sentences, "external",
                          None))
    return pages


def load_tasks(path: str | Path, default_split: str = "test") -> list[Task]:
    """Read JSONL tasks; ``answers`` is a list of aliases (a bare string is one alias)."""
    if default_split not in SPLITS:
        raise ValueError(f"default_split must be one of {', '.join(SPLITS)}, got {default_split!r}")
    tasks = []
    for row in read_records(path, TASK_SCHEMA, TASK_FORMS, "task", _task_problem):
        answers = row["answers"]
        tasks.append(Task(
            id=row["id"], family=row.get("family", "external"), question=_nfc(row["question"]),
            answers=tuple(map(_nfc, (answers,) if isinstance(answers, str) else answers)),
            answer_type=row.get("answer_type", "text"), evidence=(), tools=("web_search",),
            split=row.get("split", default_split),
        ))
    return tasks


def world_from_files(corpus: str | Path, tasks: str | Path, now: dt.date | None = None) -> World:
    """A world over a user corpus and tasks: no entities and no KB facts, only pages and questions.
    ``now`` (a ``datetime.date``; default 2030-01-01) is the date ``current_time`` tells."""
    if now is not None and not isinstance(now, dt.date):  # before: taken, and the env failed on it later
        raise TypeError(f"now must be a datetime.date (the world's clock, e.g. datetime.date(2024, 5, 1)) or None "
                        f"for 2030-01-01, got {type(now).__name__} {repr(now)[:40]}")
    return World(
        seed=0, size="external", now=now or dt.date(2030, 1, 1), entities={}, facts={},
        pages=tuple(load_corpus(corpus)), kb={}, tasks=tuple(load_tasks(tasks)), version="external-v0",
        # what it is, not where it was read from: the fingerprints hash ``meta``, and the same files gave
        # three fingerprints when named as c.jsonl, ./c.jsonl and /tmp/c.jsonl
        meta={"source": "world_from_files"},
    )
