"""An agent's answer holding a lone surrogate (a cut emoji) is written to predictions.jsonl as text a
strict JSON reader takes. Before: json.dumps wrote it as the escape ``\\ud800``, which pyarrow's and
jq's readers refuse (the file could not be read there at all); a NUL (``\\u0000``) was and is fine. The run's
own reader gives the agent's answer back (test_written_text.py: exactly, whatever it holds)."""

from __future__ import annotations

import json

import pytest

from searchgym.cli import main
from searchgym.fileio import atomic_write_jsonl
from searchgym.harness.evaluate import Prediction, as_rows, written_answer
from searchgym.harness.finished_files import finished_predictions
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-prediction-answer-text-v0", 0, "SearchQA-v0", {"max_steps": 3}, world_size="tiny",
                             dev_size=1, test_size=2, description="tests: answers with odd characters"))
ANSWER = "Par\x00is\ud800 x \ud83d\ude00"
#: as written: the NUL kept, each surrogate code point as its escape text (the pair's two as well: read back,
#: they are the two code points the agent gave, not the emoji they encode)
WRITTEN = "Par\x00is\\ud800 x \\ud83d\\ude00"
AGENT = '''
class Odd:
    def act(self, env, observation, info):
        return "<answer>Par\\x00is\\ud800 x \\ud83d\\ude00</answer>"


def factory():
    return Odd()
'''


def _strictly_read(path) -> list[dict]:
    """The rows as a strict reader gets them: UTF-8 bytes, no text a UTF-8 encoder refuses."""
    rows = [json.loads(line.decode("utf-8")) for line in path.read_bytes().splitlines()]
    for row in rows:
        str(row["answer"]).encode("utf-8")  # a lone surrogate cannot be: UnicodeEncodeError
    return rows


def test_the_written_answer_is_text_any_json_reader_takes(tmp_path):
    path = tmp_path / "predictions.jsonl"
    atomic_write_jsonl(path, as_rows([Prediction("t1", "lookup", ANSWER, 1, 0, False, 0.0, 0.0),
                                      Prediction("t2", "lookup", None, 1, 0, False, 0.0, 0.0)]))
    assert [row["answer"] for row in _strictly_read(path)] == [WRITTEN, None]
    arrow = pytest.importorskip("pyarrow.json")  # a strict reader (RapidJSON)
    assert arrow.read_json(path).column("answer").to_pylist() == [WRITTEN, None]


def test_plain_answers_are_written_as_they_are():
    for answer in (None, "", "Paris", "Zürich \U0001f600", "a\x00b\x1f"):
        assert written_answer(answer) == answer


def test_evaluate_writes_it_and_the_run_reads_back(tmp_path, monkeypatch, capsys):
    (tmp_path / "odd_agent.py").write_text(AGENT)
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "run"
    assert main(["evaluate", "--suite", SUITE.id, "--agent", "odd_agent:factory", "--out", str(out),
                 "--no-progress"]) == 0
    rows = _strictly_read(out / "predictions.jsonl")
    assert [row["answer"] for row in rows] == [WRITTEN] * 2 and not any(row["success"] for row in rows)
    assert [row["answer"] for row in finished_predictions(out, 2)] == [ANSWER] * 2
