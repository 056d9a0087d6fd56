"""A run that another ``compare`` on the same --out finishes, with other settings, while this one waits for
it, is refused as a finished run found up front is: "holds a different run ... use another --out", no report.

Before: the waiting compare recorded the refusal as a failed run, then wrote its report over the other's
(results.md said "training budget 80 ... Finished runs: 1 of 1" of a run trained at 40) and advised moving
that run's files away; with another suite, its report stopped on a "damaged" predictions.jsonl and advised
deleting the other run's DONE. The other compare is stood in for here: the test holds the run's lock
(so the run is busy), and finishes that run with its own settings when this comparison starts to wait.
"""

from __future__ import annotations

import pytest
from harness_helpers import TINY_QA

from searchgym.folder_lock import FolderLock
from searchgym.harness import compare
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.harness.runner import DifferentRun
from searchgym.suites import Suite, register_suite

OTHER_QA = register_suite(Suite("test-other-tiny-qa-v0", 1, "SearchQA-Candidates-v0", {"max_steps": 6},
                                world_size="tiny", dev_size=6, test_size=12, description="tests: another tiny suite"))


def _finished_meanwhile_by(other: Comparison, mine: Comparison, monkeypatch) -> None:
    """Hold ``mine``'s run as the other compare would; when ``mine`` waits for it, ``other`` runs (and reports)."""
    holder = FolderLock(mine.plan()[0].run_dir)
    assert holder.acquire()
    real = compare.execute_run_safely

    def after_the_wait(spec, wait=False):
        if wait:  # the other compare finishes the run and its report, and drops the lock
            holder.release()
            monkeypatch.setattr(compare, "execute_run_safely", real)
            assert [o.status for o in run_comparison(other).outcomes] == ["done"]
        return real(spec, wait)

    monkeypatch.setattr(compare, "execute_run_safely", after_the_wait)


def _fast(out, budget: int) -> Comparison:
    return Comparison(TINY_QA, parse_methods("fast=harness_helpers:fast_learner"), [0], budget, out, "cpu",
                      progress=False, reference="fast")


def test_another_budget_finished_while_waiting_is_refused_and_its_report_kept(tmp_path, monkeypatch, capsys) -> None:
    _finished_meanwhile_by(_fast(tmp_path, 40), _fast(tmp_path, 80), monkeypatch)
    with pytest.raises(DifferentRun, match=r"fast/seed0 holds a different run \(budget: 40 there, 80 now\); "
                                           r"use another --out or delete it$"):
        run_comparison(_fast(tmp_path, 80))
    assert "waiting for it after the others" in capsys.readouterr().err
    text = (tmp_path / "results.md").read_text()
    assert "training budget 40 env steps" in text and "Finished runs: 1 of 1." in text  # the other's report, kept


def test_another_suite_finished_while_waiting_is_refused_not_called_damaged(tmp_path, monkeypatch) -> None:
    theirs = Comparison(TINY_QA, parse_methods("random"), [0], 0, tmp_path, "cpu", progress=False)
    mine = Comparison(OTHER_QA, parse_methods("random"), [0], 0, tmp_path, "cpu", progress=False)
    _finished_meanwhile_by(theirs, mine, monkeypatch)
    report = (tmp_path / "results.md")
    with pytest.raises(DifferentRun, match=r"random/seed0 holds a different run \(suite_id: 'test-tiny-qa-v0' "
                                           r"there, 'test-other-tiny-qa-v0' now; .*use another --out"):
        run_comparison(mine)
    assert f"Comparison on `{TINY_QA.id}`" in report.read_text()
    assert (tmp_path / "runs" / "random" / "seed0" / "DONE").is_file()  # the other's run, untouched
