"""`leaderboard submit` on a finished run whose files were damaged: one line on stderr that names the
file, what is wrong and what to do; exit 2; no traceback, no submission written."""

from __future__ import annotations

import json
import os
import re
import shutil

import pytest

from searchgym.cli import main
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.suites import Suite, register_suite

pytestmark = pytest.mark.timeout(300)

SUITE = register_suite(Suite("test-lb-damaged-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4}, world_size="tiny",
                             dev_size=2, test_size=6, description="tests: submit from damaged runs"))


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    run_comparison(Comparison(SUITE, parse_methods("oracle"), [0], 0, out, "cpu", progress=False))
    return out / "runs" / "oracle" / "seed0"


def _lines(path):
    return path.read_bytes().splitlines(keepends=True)


def _config_with(**changes):
    def change(path):
        config = json.loads(path.read_text())
        for key, value in changes.items():
            if value is _DROP:
                config.pop(key)
            else:
                config[key] = value
        path.write_text(json.dumps(config))
    return change


_DROP = object()


def _special(kind):
    def change(path):
        path.unlink()
        if kind == "folder":
            path.mkdir()
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "/dev/zero":
            path.symlink_to("/dev/zero")
        elif kind == "missing":
            pass
    return change


PREDICTIONS = {  # damage -> words of the message
    "empty": (lambda p: p.write_bytes(b""), "holds no predictions"),
    "missing": (_special("missing"), "holds no predictions"),
    "garbage only": (lambda p: p.write_bytes(b"\x00\xff garbage\n{cut\n"), "holds no predictions"),
    "invalid UTF-8 only": (lambda p: p.write_bytes(b"\xff\xfe\xfd\n" * 3), "holds no predictions"),
    "lists only": (lambda p: p.write_text("[1, 2]\n[3]\n"), "holds no predictions"),
    "a line cut": (lambda p: p.write_bytes(b"".join(_lines(p)[:-1]) + _lines(p)[-1][:20]), "1 missing"),
    "a line lost": (lambda p: p.write_bytes(b"".join(_lines(p)[1:])), "1 missing"),
    "a bad byte in a line": (lambda p: p.write_bytes(b"".join(_lines(p)[:-1]) + b"\xff" + _lines(p)[-1]), "1 missing"),
    "a line twice": (lambda p: p.write_bytes(b"".join(_lines(p)) + _lines(p)[0]), "1 repeated"),
    "an unknown task": (lambda p: p.write_bytes(b"".join(_lines(p)) + b'{"task_id": "nope", "answer": "x"}\n'),
                        "1 unknown"),
    "task_id a number": (lambda p: p.write_bytes(b'{"task_id": 3, "answer": "x"}\n' + b"".join(_lines(p))),
                         "prediction 1 lacks a text task_id"),
    "no task_id": (lambda p: p.write_bytes(b'{"answer": "x"}\n' + b"".join(_lines(p))), "prediction 1 lacks"),
    "steps a string": (lambda p: p.write_text(re.sub(r'"steps": (\d+)', r'"steps": "\1"', p.read_text(), count=1)),
                       "prediction 1 lacks a text task_id or int steps and tool_calls"),
    "a folder": (_special("folder"), "is a folder"),
    "a FIFO": (_special("fifo"), "is a FIFO"),
    "a link to /dev/zero": (_special("/dev/zero"), "is a symbolic link, which submit never follows"),
}
CONFIG = {
    "empty": (lambda p: p.write_bytes(b""), "is empty"),
    "cut in half": (lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]), "is not valid JSON"),
    "cut by one": (lambda p: p.write_bytes(p.read_bytes().rstrip()[:-1]), "is not valid JSON"),
    "garbage": (lambda p: p.write_bytes(bytes(range(1, 200))), "is not"),
    "not UTF-8": (lambda p: p.write_bytes(b'{"a": "\xff"}'), "is not UTF-8"),
    "a list": (lambda p: p.write_text("[1, 2, 3]"), "holds a list where an object belongs"),
    "a string": (lambda p: p.write_text('"config"'), "holds a string where an object belongs"),
    "a number": (lambda p: p.write_text("42"), "holds a number where an object belongs"),
    "null": (lambda p: p.write_text("null"), "holds null where an object belongs"),
    "deeply nested": (lambda p: p.write_text("[" * 100_000 + "]" * 100_000), "nested too deeply"),
    "no suite_id": (_config_with(suite_id=_DROP), "has no str 'suite_id'"),
    "suite_id a number": (_config_with(suite_id=7), "has no str 'suite_id'"),
    "suite_hash null": (_config_with(suite_hash=None), "has no str 'suite_hash'"),
    "method a list": (_config_with(method=["oracle"]), "has no str 'method'"),
    "seed a string": (_config_with(seed="0"), "'seed' is '0', not an int"),
    "seed a bool": (_config_with(seed=True), "'seed' is True, not an int"),
    "training_budget a float": (_config_with(training_budget=1.5), "'training_budget' is 1.5"),
    "git a list": (_config_with(git=["abc"]), "'git' is not an object"),
    "packages a string": (_config_with(packages="torch"), "'packages' is not an object"),
    "an unknown suite": (_config_with(suite_id="no-such-suite-v9"), "which this searchgym does not know"),
    "a folder": (_special("folder"), "is a folder"),
    "a FIFO": (_special("fifo"), "is a FIFO"),
    "a link to /dev/zero": (_special("/dev/zero"), "is a symbolic link, which submit never follows"),
    "missing": (_special("missing"), "is missing"),
}
CASES = [("predictions.jsonl", name, *PREDICTIONS[name]) for name in PREDICTIONS] + \
        [("config.json", name, *CONFIG[name]) for name in CONFIG]


@pytest.mark.parametrize(("filename", "name", "damage", "words"), CASES, ids=[f"{f}-{n}" for f, n, *_ in CASES])
def test_submit_on_a_damaged_run_names_the_file_in_one_line(tmp_path, capsys, finished, filename, name, damage, words):
    run = tmp_path / "run"
    shutil.copytree(finished, run)
    damage(run / filename)
    out = tmp_path / "submission.json"
    assert main(["leaderboard", "submit", str(run), "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.err.startswith(f"searchgym leaderboard: damaged file: {run / filename}: ")
    assert words in captured.err, captured.err
    if name != "an unknown suite":
        assert f"delete {run / 'DONE'} and re-run the same command" in captured.err
    assert not out.exists()


def test_the_undamaged_run_still_submits(tmp_path, capsys, finished):
    out = tmp_path / "submission.json"
    assert main(["leaderboard", "submit", str(finished), "--out", str(out)]) == 0
    assert "verified" in capsys.readouterr().out and len(json.loads(out.read_text())["predictions"]) == 6


def test_there_are_many_damaged_run_cases():
    assert len(CASES) >= 40
