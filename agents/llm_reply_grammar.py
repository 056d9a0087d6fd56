"""The replies an agent may write next, built only from what it has seen (for guided decoding).

Why: a model of a few million parameters trained for minutes on a CPU does not learn the
tool-call syntax nor how to copy a name letter by letter; constrained ("guided") decoding writes
the syntax for it, so every reply parses and the model only ranks the admissible ones.

What is admissible, from the conversation's *visible* text only (the question line of the first
user message and every tool message: results, clarifications, blackboard notes; never the task's
gold chain nor the world's hidden state):

- a call of each tool the agent may use, its required argument a span it has seen: ``web_search``
  and ``knowledge_base`` (and any other tool with one required parameter) take a name;
  ``ask_for_clarification`` asks ``Which <name> do you mean?``; ``calculator`` takes
  ``a + b`` or ``a - b`` of two figures seen; a tool without parameters is called with ``{}``;
- an answer: a name or a figure seen, or several names joined with ``; `` (list questions).

A call the agent already made is not offered again: the tools are deterministic, so it would
only return the same result (and a small model's commonest failure is to loop on one call).

A *name* is a run of capitalised or alphanumeric words inside one sentence, or a part of it cut at
its inner connectors (``of``, ``and``, ``:`` ...: "Stuzael and Preisteter" gives "Stuzael",
"Preisteter" and both), plus ``Name (descriptor)`` where the text writes a descriptor in
brackets after it. A run is never cut between two capitalised words ("The Last Shiothith" is one
name, "Saebrae" alone is not offered for "Saebrae Labs"). Replies are
rendered with :func:`searchgym.actions.format_action`, the text the env parses and the reader's
transcripts use.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from searchgym.action_types import Action
from searchgym.actions import format_action
from searchgym.chat_content import message_text
from searchgym.observation_format import question_text

#: lower-case words that may sit inside a name ("University of Jeisydu", "Night over Stiozoqeim");
#: a colon may too ("Baechaes: A Memoir")
CONNECTORS = frozenset({"of", "the", "and", "over", "to", "in", "on", "for", "de", "a", "an", "at", "under",
                        "from", "with", "by", "upon"})
#: capitalised words that are not a name on their own (a sentence's first word)
FUNCTION_WORDS = frozenset({"The", "A", "An", "In", "On", "At", "Of", "Which", "What", "When", "Where", "Who", "Whom",
                            "Whose", "Why", "How", "Is", "Was", "Are", "Were", "Did", "Does", "Do", "It", "Its",
                            "This", "That", "These", "Those", "There", "No", "Answer", "News", "Critics", "Your",
                            "Question", "Use"})
#: the knowledge base's type labels ("Fouthal 510 (product)"): not part of a name, unlike a
#: namesake's descriptor ("Hystu Cepri (architect)")
ENTITY_TYPES = frozenset({"person", "company", "city", "country", "product", "film", "book", "university"})
CALCULATOR_OPERATORS = ("+", "-")
MAX_FIGURES = 40  # the calculator's operands: the most recent distinct figures seen
_WORD = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9'\-]*[A-Za-z0-9])?|\([a-z][a-z ]*\)|[^\sA-Za-z0-9]")
_FIGURE = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?![\w,]*\w)|(?<![\w.,])\d+(?:\.\d+)?(?![\w.]*\w)")
_QUESTION = re.compile(rf"^{re.escape(question_text(''))}(.*)$", re.MULTILINE)
_PAGE_URL = re.compile(r"\(https?://\S+\)")


@dataclass(frozen=True)
class AdmissibleReplies:
    """Complete reply texts, plus the pieces an answer is built from."""

    calls: tuple[str, ...]  # complete tool-call replies
    answer_open: str  # the answer's markup around its text (``<answer>`` ... ``</answer>``)
    answer_close: str
    answers: tuple[str, ...]  # what one answer may say
    list_items: tuple[str, ...]  # names an answer may join with "; "


def visible_texts(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """The question line of the first user message, then every later non-assistant message; a content
    is read as :func:`message_text` reads it (a list of text parts as its text; before: its Python repr)."""
    texts: list[str] = []
    first_user = True
    for message in messages:
        role, content = message.get("role"), message_text(message.get("content"))
        if role in ("system", "assistant"):
            continue
        if first_user and role == "user":
            texts += _QUESTION.findall(content)
            first_user = False
        else:
            texts.append(content)
    return texts


def _is_name_word(word: str) -> bool:
    """A word a name may start with: capitalised, or a code such as ``X18`` / ``150-B``."""
    return word[0].isupper() or (word[0].isdigit() and any(c.isalpha() for c in word))


def _may_end(word: str) -> bool:
    """A word a name may end with: a name word, or a number after one (``Myjos 120``)."""
    return _is_name_word(word) or word.isdigit()


def name_spans(text: str) -> list[str]:
    """Every name in ``text`` (see the module docstring), in order of first appearance."""
    out: dict[str, None] = {}
    for line in _PAGE_URL.sub(" ", text).splitlines():
        words = _WORD.findall(line)
        run: list[str] = []
        for word in [*words, "."]:
            name_like = (word[0].isalnum() or word == ":") and (_is_name_word(word) or bool(run) and (
                word in CONNECTORS or word.isdigit() or word == ":"))
            if name_like:
                run.append(word)
                continue
            descriptor = word if word.startswith("(") and word[1:-1] not in ENTITY_TYPES else None
            _add_runs(run, descriptor, out)
            run = []
    return list(out)


def _add_runs(run: list[str], descriptor: str | None, out: dict[str, None]) -> None:
    """The run's segments (split at connectors) and every sequence of adjacent segments, plus
    ``run (descriptor)`` from each segment's start; a lone function word ("The", "Which") is none."""
    while run and not _may_end(run[-1]):
        run = run[:-1]
    bounds: list[tuple[int, int]] = []  # [start, end) of each segment
    for k, word in enumerate(run):
        if word in CONNECTORS or word == ":":
            continue
        if bounds and bounds[-1][1] == k:
            bounds[-1] = (bounds[-1][0], k + 1)
        else:
            bounds.append((k, k + 1))
    bounds = [(i, j) for i, j in bounds if _is_name_word(run[i])]
    for a, (i, _) in enumerate(bounds):
        for _, j in bounds[a:]:
            span = _join(run[i:j])
            if span not in FUNCTION_WORDS:
                out.setdefault(span, None)
    if descriptor:
        for i, _ in bounds:
            out.setdefault(_join(run[i:]) + " " + descriptor, None)


def _join(words: list[str]) -> str:
    return " ".join(words).replace(" :", ":")


def figures(text: str) -> list[str]:
    """The numbers written in ``text`` (not inside names such as ``X18``), in order, thousands
    separators dropped (``3,465,000`` -> ``3465000``, as an answer or a calculator operand)."""
    return [f.replace(",", "") for f in _FIGURE.findall(_PAGE_URL.sub(" ", text))]


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


#: Where a template's argument goes: a private-use character, never in a world's text, and visible
#: to the parsers (an answer of only format characters, such as U+2063, is refused as empty).
_MARK = "\ue000"


@lru_cache(maxsize=64)
def _call_renderer(tool: str, param: str, tool_format: str):
    """``value -> format_action(call(tool, param=value))``, without parsing each text back (the
    template is rendered and checked once; a test compares it with ``format_action``)."""
    template = format_action(Action.call(tool, **{param: _MARK}), tool_format)
    head, tail = template.split(json.dumps(_MARK)[1:-1] if _MARK not in template else _MARK)

    def render(value: str) -> str:
        if json.dumps(value)[1:-1] != value:  # a quote, a backslash, non-ASCII: the careful path
            return format_action(Action.call(tool, **{param: value}), tool_format)
        return head + value + tail

    return render


def admissible_replies(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping],
                       tool_format: str = "hermes") -> AdmissibleReplies:
    """What the agent may reply after ``messages``, calling only ``tools`` (their JSON schemas)."""
    texts = visible_texts(messages)
    names = _unique(n for t in texts for n in name_spans(t))
    numbers = _unique(f for t in texts for f in figures(t))
    operands = _unique(reversed(numbers))[:MAX_FIGURES]
    calls: list[str] = []
    for schema in tools:
        function = schema.get("function", schema)
        tool = str(function["name"])
        params = list((function.get("parameters") or {}).get("required") or [])  # optional ones are left out
        if tool == "calculator":
            values = [f"{a} {op} {b}" for a in operands for b in operands if a != b for op in CALCULATOR_OPERATORS]
        elif tool == "ask_for_clarification":
            values = [f"Which {n} do you mean?" for n in names]
        elif len(params) == 1:
            values = names
        elif not params:
            calls.append(format_action(Action.call(tool), tool_format))
            continue
        else:
            continue  # several free arguments: not offered
        render = _call_renderer(tool, params[0], tool_format)
        calls += [render(v) for v in values]
    opened, closed = format_action(Action.answer(_MARK), tool_format).split(_MARK)
    made = {message_text(m.get("content")) for m in messages if m.get("role") == "assistant"}
    calls = [c for c in calls if c not in made]  # the same call returns the same result: no repeats
    return AdmissibleReplies(tuple(_unique(calls)), opened, closed, tuple(_unique([*names, *numbers])), tuple(names))
