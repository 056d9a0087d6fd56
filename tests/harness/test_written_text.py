"""An answer written to predictions.jsonl reads back, as the harness and the leaderboard read it, as
exactly the text the agent gave. Before: a lone surrogate was written as its escape text ``\\ud800`` and
backslashes were not, so an agent that wrote those six characters itself was read back as a surrogate
(and scored as one on the board: "\\ud8001953" matched 1953 there, where evaluate had scored it wrong)."""

from __future__ import annotations

import json
import random

import pytest

from searchgym.fileio import atomic_write_jsonl
from searchgym.harness.evaluate import Prediction, as_rows
from searchgym.harness.finished_files import finished_predictions
from searchgym.harness.written_text import read_answer, read_strings, written_answer, written_strings
from searchgym.leaderboard_values import run_answer_text
from searchgym.scoring import score_answer
from searchgym.suites import Suite, register_suite, tasks

SUITE = register_suite(Suite("test-written-text-v0", 0, "SearchQA-v0", {"max_steps": 3}, world_size="tiny",
                             dev_size=1, test_size=8, description="tests: backslashes and surrogates"))
#: answers a plain escape of surrogates could not tell apart, and their neighbours
TRICKY = [
    "\\ud800", "\ud800", "\\\ud800", "\\\\ud800", "\\\\\ud800", "\\ud800\ud800", "\ud800\\ud800",
    "x\\udfffy", "\\udbff\\udc00", "\ud83d\ude00", "\udc00\ud800", "\\ud83d\ude00", "\\\\", "\\", "ud800",
    "\\uD800", "\\u0041", "\\ud7ff", "\\ue000", "\\ud80", "C:\\path\\udata", "\\n\\t",
    "".join(map(chr, range(0x20))), "\x7f\x85\x9f", "\u2028\u202e", "Zürich \U0001f600", "", "Paris",
]
_PIECES = ["\\", "\\", "u", "d", "8", "0", "f", "D", "x", "\ud800", "\udfff", "\ud83d", "\ude00", "é", "\x00",
           "\n"]


def _random_answers(count: int) -> list[str]:
    draw = random.Random(20240613)  # its own generator: the global one is left alone
    return ["".join(draw.choice(_PIECES) for _ in range(draw.randrange(1, 10))) for _ in range(count)]


def _strict_rows(path) -> list[dict]:
    """The rows as a strict reader gets them: UTF-8 bytes and no text a UTF-8 encoder refuses."""
    rows = [json.loads(line.decode("utf-8")) for line in path.read_bytes().splitlines()]
    json.dumps(rows, ensure_ascii=False).encode("utf-8")  # a lone surrogate cannot be: UnicodeEncodeError
    return rows


def test_every_answer_reads_back_exactly_as_the_harness_reads_it(tmp_path):
    answers = [*TRICKY, *_random_answers(400), None]
    path = tmp_path / "predictions.jsonl"
    atomic_write_jsonl(path, as_rows([Prediction(f"t{i}", "lookup", a, 1, 0, False, 0.0, 0.0)
                                      for i, a in enumerate(answers)]))
    written = [row["answer"] for row in _strict_rows(path)]
    assert [read_answer(text) for text in written] == answers
    assert [row["answer"] for row in finished_predictions(tmp_path, len(answers))] == answers
    arrow = pytest.importorskip("pyarrow.json")  # a strict reader (RapidJSON)
    assert arrow.read_json(path).column("answer").to_pylist() == written


def test_the_six_characters_and_a_surrogate_are_written_apart():
    assert written_answer("\\ud800") == "\\\\ud800" != written_answer("\ud800") == "\\ud800"
    assert written_answer("\\\ud800") == "\\\\\\ud800"
    assert written_answer("\ud83d\ude00") == "\\ud83d\\ude00"  # two code points stay two (the emoji is one)


def test_the_board_scores_a_run_answer_as_evaluate_scored_it():
    compared = 0
    for task in tasks(SUITE, "test"):
        gold = task.answers[0]
        for placed in ("\\ud800{}", "\\\\ud800{}", "\\\ud800{}", "\ud800{}", "{}\\udfff", "x\\udc00 {}"):
            answer = placed.format(gold)
            on_board = run_answer_text(written_answer(answer))
            assert score_answer(task, on_board) == score_answer(task, answer), answer
            compared += 1
    assert compared == 48


def test_ordinary_answers_are_written_as_before():
    for answer in (None, "", "Paris", "Zürich \U0001f600", "a\x00b\x1f", "C:\\path\\new", "\\uD800", "ud800",
                   "\\u0041\\n", "tab\\\tend", "\\\\", "\\ue000"):
        assert written_answer(answer) == answer
        assert read_answer(answer) == answer


def test_files_written_before_read_as_they_did():
    """What the earlier writer made: a lone surrogate as ``\\udXXX``, a pair as the character it encodes."""
    assert read_answer("Par\x00is\\ud800 x \U0001f600") == "Par\x00is\ud800 x \U0001f600"
    assert read_answer("a\\udfff1953") == "a\udfff1953"
    assert run_answer_text("\\ud8001953") == "\ufffd1953"
    assert read_answer(7) == 7 and read_answer(None) is None


def test_every_string_of_a_row_reads_back():
    row = {"reply": "<answer>\\ud800\ud800</answer>", "turns": [{"\ud800key": ["\\\ud800", 3, None, True]}],
           "plain": "C:\\path"}
    written = written_strings(row)
    json.dumps(written, ensure_ascii=False).encode("utf-8")
    assert written["plain"] == "C:\\path"
    assert read_strings(json.loads(json.dumps(written))) == row
