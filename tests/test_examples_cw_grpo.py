"""The one-file CW-GRPO example runs end to end on a tiny budget, and a seed fixes its output."""

from __future__ import annotations

import re
import subprocess
import sys

TINY = ["--updates", "3", "--tasks-per-update", "2", "--group-size", "4", "--eval-tasks", "5"]
UPDATE_LINE = re.compile(r"^update (\d+)/3: train success ([\d.]+), mean return (-?[\d.]+), loss (-?[\d.]+), "
                         r"attempts reweighted by CW ([\d.]+)$")


def run_example(*extra: str, ok: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "searchgym.examples.cw_grpo_in_one_file", *TINY, *extra],
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode == 0) == ok, done.stderr[-2000:]
    return done


def test_cw_grpo_example_prints_updates_and_a_dev_success_and_is_deterministic() -> None:
    first = run_example("--seed", "3").stdout
    lines = first.strip().splitlines()
    updates = [UPDATE_LINE.match(line) for line in lines[:-1]]
    assert all(updates) and [int(m.group(1)) for m in updates] == [1, 2, 3], first
    for m in updates:
        assert 0.0 <= float(m.group(2)) <= 1.0 and 0.0 <= float(m.group(5)) <= 1.0
    final = re.fullmatch(r"dev success ([\d.]+) \(5 dev tasks, greedy\)", lines[-1])
    assert final and 0.0 <= float(final.group(1)) <= 1.0, lines[-1]
    assert run_example("--seed", "3").stdout == first  # same seed, same numbers
    assert run_example("--seed", "4").stdout != first  # the seed is used


def test_cw_grpo_example_refuses_an_env_without_candidates_in_one_line() -> None:
    done = run_example("--env-id", "SearchQA-v0", ok=False)
    assert done.stderr.strip() == ("--env-id 'SearchQA-v0' is not a single-agent candidate env; "
                                   "accepted: SearchQA-Candidates-v0, SearchQA-Candidates-Easy-v0")


def test_contribution_weighting_moves_a_success_credit_to_the_contributing_rounds() -> None:
    import numpy as np

    from searchgym.examples.cw_grpo_in_one_file import Round, contribution_weighted, is_evidence_round

    assert is_evidence_round('web_search(query="x")') and not is_evidence_round('calculator(expression="1")')
    # (contribution c_k, can reveal evidence) per round: two lookups, a calculator, the answer
    rounds = [(1.0, True), (0.0, True), (0.0, False), (0.0, False)]
    attempt = {"steps": [Round(None, 0, 0.0, c, evidence) for c, evidence in rounds]}
    adv = contribution_weighted(2.0, attempt, gamma=1.0)
    e = np.e
    assert np.allclose(adv, [2 * 2 * e / (e + 1), 2 * 2 / (e + 1), 2.0, 2.0])  # J = 2 rounds share 2 * A_i
    assert np.isclose(adv.sum(), 2.0 * 4)  # the attempt's total is GRPO's
    assert np.allclose(contribution_weighted(-1.0, attempt, gamma=1.0), -1.0)  # a failure keeps A_i
