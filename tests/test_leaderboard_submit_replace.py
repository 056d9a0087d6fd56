"""`leaderboard submit` never replaces the submission of another run without a word.

Before: submitting a second run under a name already on the board (``--name random`` for the
reader's run, or the same method's re-run) silently overwrote the first submission's file. Now that
is one error line naming the file and what to do, and the first file is kept; submitting the same
run again (say, with a new description) still rewrites its own file."""

from __future__ import annotations

import json

import pytest

from searchgym.cli import main
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.suites import Suite, register_suite

pytestmark = pytest.mark.timeout(300)

SUITE = register_suite(Suite("test-lb-replace-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4}, world_size="tiny",
                             dev_size=2, test_size=6, description="tests: submit does not replace another run"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    run_comparison(Comparison(SUITE, parse_methods("random,oracle"), [0], 0, out, "cpu", progress=False))
    return out / "runs"


def test_submit_refuses_to_replace_another_runs_submission(tmp_path, capsys, runs):
    board = tmp_path / "board"
    assert main(["leaderboard", "submit", str(runs / "random" / "seed0"), "--dir", str(board)]) == 0
    path = board / "submissions" / f"{SUITE.id}__random__seed0.json"
    first = path.read_bytes()
    capsys.readouterr()

    assert main(["leaderboard", "submit", str(runs / "oracle" / "seed0"), "--name", "random", "--dir", str(board)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]
    assert f"{path} already exists and is not this run's submission" in err[0]
    assert "choose another --name or --out, or delete that file" in err[0]
    assert path.read_bytes() == first  # nothing lost

    # the same run again (a new description) rewrites its own file
    assert main(["leaderboard", "submit", str(runs / "random" / "seed0"), "--dir", str(board),
                 "--description", "uniform over the listed actions"]) == 0
    assert json.loads(path.read_text())["method"]["description"] == "uniform over the listed actions"


def test_submit_refuses_to_replace_a_file_that_is_not_a_submission(tmp_path, capsys, runs):
    out = tmp_path / "notes.json"
    out.write_text("my notes, not a submission")
    assert main(["leaderboard", "submit", str(runs / "oracle" / "seed0"), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{out} already exists and is not this run's submission" in err[0]
    assert out.read_text() == "my notes, not a submission"
