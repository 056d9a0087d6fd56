"""A world from a user's files, as a reviewer met it: answers that score as nothing are refused, the
fingerprint is the content's, huge lines are refused before they fill memory, candidate envs say they
cannot play it, and zero-width or empty inputs are named."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import searchgym
from searchgym.scoring import score_answer
from searchgym.tools import Calculator
from searchgym.world import jsonl_records, load_corpus, load_tasks, world_from_files
from searchgym.world.jsonl_records import RecordError


def _files(tmp_path: Path, task: dict | None = None) -> tuple[Path, Path]:
    corpus, tasks = tmp_path / "corpus.jsonl", tmp_path / "tasks.jsonl"
    corpus.write_text(json.dumps({"id": "p1", "title": "Alpha", "text": "Alpha Corp was founded in 1990."}) + "\n")
    tasks.write_text(json.dumps(task or {"id": "q", "question": "When was Alpha Corp founded?", "answers": ["1990"]})
                     + "\n")
    return corpus, tasks


@pytest.mark.parametrize(("answers", "answer_type", "empty"), [
    (["A"], "text", "A"), (["The"], "text", "The"), (["Paris", "..."], "text", "..."), (["A, C"], "list", "A"),
])
def test_an_answer_that_normalises_to_nothing_is_refused(tmp_path, answers, answer_type, empty):
    """Before: gold "A" (a multiple-choice option) was matched by an answer of "?" or "the" (0.99 reward),
    and a list gold "A, C" could never be won (0.667 at best)."""
    _, tasks = _files(tmp_path, {"id": "q", "question": "Which option?", "answers": answers, "answer_type": answer_type})
    with pytest.raises(RecordError) as caught:
        load_tasks(tasks)
    text = str(caught.value)
    assert text.startswith(f"{tasks}:1: answer {json.dumps(empty)} is empty once normalised") and "\n" not in text


def test_answers_with_words_still_load_and_score(tmp_path):
    _, tasks = _files(tmp_path, {"id": "q", "question": "Which city?", "answers": ["The Hague", "Den Haag"]})
    task = load_tasks(tasks)[0]
    assert score_answer(task, "the hague").success and not score_answer(task, "?").success


def test_the_fingerprint_is_the_contents_not_the_paths_spelling(tmp_path, monkeypatch):
    """Before: c.jsonl, ./c.jsonl and /tmp/.../c.jsonl gave three fingerprints of the same world."""
    corpus, tasks = _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    worlds = [world_from_files(corpus, tasks), world_from_files("corpus.jsonl", "tasks.jsonl"),
              world_from_files(os.path.join(".", "corpus.jsonl"), "./tasks.jsonl")]
    assert len({w.fingerprint for w in worlds}) == 1 and len({w.corpus_fingerprint for w in worlds}) == 1


def test_a_line_past_the_bound_is_refused_naming_it(tmp_path, monkeypatch):
    """Before: a 60 MB line was loaded, taking 1.8 GB and 14 s (the bound is lowered here to keep it small)."""
    monkeypatch.setattr(jsonl_records, "MAX_LINE_BYTES", 1000)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "p1", "title": "A", "text": "b"}) + "\n"
                      + json.dumps({"id": "p2", "title": "A", "text": "word. " * 400}) + "\n")
    with pytest.raises(RecordError, match=r"corpus.jsonl:2: a line of more than 0 MiB"):
        load_corpus(corpus)


@pytest.mark.parametrize(("field", "value"), [("question", "\u200b"), ("id", "\u200b\ufeff"), ("question", "\u2060 ")])
def test_a_zero_width_question_or_id_is_blank(tmp_path, field, value):
    row = {"id": "q", "question": "Where?", "answers": ["Oslo"], field: value}
    _, tasks = _files(tmp_path, row)
    with pytest.raises(RecordError, match=f"'{field}' must be a string with a non-blank character"):
        load_tasks(tasks)


def test_an_empty_path_is_named_as_empty():
    with pytest.raises(FileNotFoundError, match="the pages file path is empty"):
        load_corpus("")


@pytest.mark.parametrize("env_id", ["SearchQA-Candidates-v0", "SearchQA-Numeric-v0", "TeamSearch-Candidates-v0",
                                    "GroupSearch-Numeric-v0"])
def test_candidate_and_numeric_envs_refuse_a_world_with_no_names_or_facts(tmp_path, env_id):
    """Before: every step offered only current_time() and "Which the question do you mean?", and every
    episode ran out of steps without a search or an answer."""
    world = world_from_files(*_files(tmp_path))
    with pytest.raises(ValueError, match="build their actions from the names and facts of a generated world"):
        searchgym.make(env_id, world=world, split="test")
    env = searchgym.make("SearchQA-v0", world=world, split="test")  # text mode plays it
    env.reset(seed=0)
    assert env.step("<answer>1990</answer>")[4]["success"]


def test_the_calculators_overflow_message_shows_the_excess():
    assert Calculator()(expression="1e15+1").error.endswith("(1000000000000001)")  # was "(1e+15)"


def test_text_in_another_unicode_form_is_found_and_scored(tmp_path):
    """Before: a corpus exported decomposed (NFD) was not found by a composed query ("No results"), an
    answer copied from it did not score, and a full-width query missed an ASCII page."""
    import unicodedata

    from searchgym.tools import build_tools

    nfd = lambda text: unicodedata.normalize("NFD", text)  # noqa: E731
    corpus, tasks = tmp_path / "corpus.jsonl", tmp_path / "tasks.jsonl"
    corpus.write_text(json.dumps({"id": "p1", "title": nfd("Café Zürich"), "text": nfd("Zoë Müller founded the Café "
                                  "Zürich in 1999.")}, ensure_ascii=False) + "\n"
                      + json.dumps({"id": "p2", "title": "ABC Corp", "text": "ABC Corp makes kettles."}) + "\n",
                      encoding="utf-8")
    tasks.write_text(json.dumps({"id": "q", "question": nfd("Who founded Café Zürich?"), "answers": [nfd("Zoë Müller")]},
                                ensure_ascii=False) + "\n", encoding="utf-8")
    world = world_from_files(corpus, tasks)
    tools = build_tools(world)
    assert "Zoë Müller founded" in tools["web_search"](query="Café Zürich").text
    assert "ABC Corp makes kettles" in tools["web_search"](query="ＡＢＣ Ｃｏｒｐ").text
    assert score_answer(world.tasks[0], "Zoë Müller").success and world.tasks[0].question == "Who founded Café Zürich?"


def test_the_loaders_blank_answer_rule_agrees_with_the_scorers_normalisation():
    """The loader (layer 0) may not import the scorer (layer 1): its rule is written again, checked here."""
    from searchgym.scoring import normalize_answer
    from searchgym.world.loaders import _blank_when_scored

    texts = ["A", "The", "an", "...", "?!", "“”", "— the —", "a b", "Oslo", "The Hague", "1990", "¿?", " x ", "A.",
             "the-the", "café", "l'a", "an apple", "C", "a, an", "Ω"]
    assert [_blank_when_scored(t) for t in texts] == [not normalize_answer(t) for t in texts]


def test_typographic_punctuation_of_a_users_corpus_reaches_the_agent_as_ascii(tmp_path):
    """Before: every curly quote, dash and ellipsis became "?": the question read "When did O?Brien
    write ?The Book??", and a result's "O’Brien" could not be copied into an answer that scores."""
    corpus, tasks = tmp_path / "corpus.jsonl", tmp_path / "tasks.jsonl"
    corpus.write_text(json.dumps({"id": "p1", "title": "O’Brien", "text": "O’Brien wrote “The Book” in 1990–1991…"},
                                 ensure_ascii=False) + "\n", encoding="utf-8")
    tasks.write_text(json.dumps({"id": "q", "question": "When did O’Brien write “The Book”?", "answers": ["1990"]},
                                ensure_ascii=False) + "\n", encoding="utf-8")
    env = searchgym.make("SearchQA-v0", world=world_from_files(corpus, tasks), split="test")
    obs, _ = env.reset(seed=0)
    assert obs.endswith("When did O'Brien write \"The Book\"?")
    obs, *_ = env.step('<tool_call>{"name": "web_search", "arguments": {"query": "O\'Brien"}}</tool_call>')
    assert "O'Brien wrote \"The Book\" in 1990-1991..." in obs and "?" not in obs.split("O'Brien wrote")[1][:40]
