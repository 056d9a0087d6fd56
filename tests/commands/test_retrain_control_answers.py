"""``leaderboard retrain`` compares a re-run's answers as ``submit`` writes them.

Before: the submission held each control character of a run's answer as its stand-in
(``leaderboard_values.run_answer_text``), the re-run's answers were compared raw, so a run whose agent
wrote "Quell\\x00" never matched its own re-run ("answer(s) differ from the re-run").
"""

from __future__ import annotations

import json

import searchgym.leaderboard_retrain as retraining
from searchgym.cli import main
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.leaderboard import build_submission, write_submission
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-pkg-retrain-ctrl-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4},
                             world_size="tiny", dev_size=2, test_size=4,
                             description="tests: retrain compares answers as submitted"))


def _with_control_characters(predictions) -> None:
    """Every answer of a run as an agent that ends it with a NUL and a tab would write it."""
    rows = [json.loads(line) for line in predictions.read_text().splitlines()]
    predictions.write_text("".join(json.dumps({**row, "answer": "Quell\x00\t"}) + "\n" for row in rows))


def test_a_run_whose_answers_hold_control_characters_matches_its_re_run(tmp_path, monkeypatch, capsys) -> None:
    run_comparison(Comparison(SUITE, parse_methods("random"), [0], 0, tmp_path / "cmp", "cpu", progress=False))
    _with_control_characters(tmp_path / "cmp" / "runs" / "random" / "seed0" / "predictions.jsonl")
    path = write_submission(build_submission(tmp_path / "cmp" / "runs" / "random" / "seed0"), folder=tmp_path / "subs")
    assert all(p["answer"] != "Quell\x00\t" for p in json.loads(path.read_text())["predictions"])
    real = retraining.execute_run_safely

    def the_same_agent_again(spec):
        outcome = real(spec)
        _with_control_characters(spec.run_dir / "predictions.jsonl")
        return outcome

    monkeypatch.setattr(retraining, "execute_run_safely", the_same_agent_again)
    assert main(["leaderboard", "retrain", str(path), "--out", str(tmp_path / "again")]) == 0
    assert capsys.readouterr().out.startswith("MATCHES")


def test_the_re_runs_success_scores_each_answer_as_the_agent_gave_it(tmp_path, monkeypatch) -> None:
    """A surrogate before a right answer: evaluate scored the answer with the surrogate; the re-run's
    success scored the escape text predictions.jsonl holds ("ud800" glued to the answer: wrong)."""
    from searchgym.harness.written_text import written_answer
    from searchgym.scoring import score_answer
    from searchgym.suites import tasks

    gold = {t.id: t.answers[0] for t in tasks(SUITE, "test")}

    def surrogate_then_gold(predictions) -> None:
        rows = [json.loads(line) for line in predictions.read_text().splitlines()]
        predictions.write_text("".join(json.dumps({**row, "answer": written_answer("\ud800" + gold[row["task_id"]])})
                                       + "\n" for row in rows))

    run_comparison(Comparison(SUITE, parse_methods("random"), [0], 0, tmp_path / "cmp", "cpu", progress=False))
    surrogate_then_gold(tmp_path / "cmp" / "runs" / "random" / "seed0" / "predictions.jsonl")
    path = write_submission(build_submission(tmp_path / "cmp" / "runs" / "random" / "seed0"), folder=tmp_path / "subs")
    real = retraining.execute_run_safely

    def the_same_agent_again(spec):
        outcome = real(spec)
        surrogate_then_gold(spec.run_dir / "predictions.jsonl")
        return outcome

    monkeypatch.setattr(retraining, "execute_run_safely", the_same_agent_again)
    result = retraining.retrain(path, tmp_path / "again")
    scored = [score_answer(t, "\ud800" + t.answers[0]).success for t in tasks(SUITE, "test")]
    assert 0 < sum(scored) < len(scored)  # the numbers are right with it, the names are not
    assert result.matches and result.retrained_success == sum(scored) / len(scored)
