"""``compare`` and ``train`` refuse a budget past their most (a billion env steps) in one usage line,
before anything is written. Before: they took ``--budget 99999999999999999999`` and ran for good (only
``leaderboard retrain`` had a limit, its own lower one)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from searchgym.cli import main
from searchgym.commands.compare import MAX_BUDGET
from searchgym.leaderboard_retrain import MAX_RETRAIN_BUDGET

ROOT = Path(__file__).resolve().parents[2]
HUGE = "99999999999999999999"
TRAIN = ["train", "--world-size", "tiny", "--test-size", "2", "--device", "cpu", "--no-progress"]
COMPARE = ["compare", "--suite", "quick-v2", "--methods", "random", "--device", "cpu", "--no-progress"]


def test_the_limit_bounds_typos_not_research() -> None:
    assert MAX_BUDGET == 1_000_000_000 > MAX_RETRAIN_BUDGET


@pytest.mark.parametrize("argv", [TRAIN, COMPARE, [*TRAIN, "--policy", "llm"]])
@pytest.mark.parametrize("budget", [HUGE, str(MAX_BUDGET + 1)])
def test_a_budget_past_the_limit_is_one_usage_line_and_nothing_is_written(argv, budget, tmp_path, capsys) -> None:
    out = tmp_path / "out"
    assert main([*argv, "--budget", budget, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert err.endswith(f"error: --budget must be an int <= {MAX_BUDGET} (training env steps), got {budget}")
    assert "\n" not in err and "Traceback" not in err and captured.out == ""
    assert not out.exists()




def _budgets() -> list[tuple[str, int]]:
    """Every budget the Makefile, the benchmarks and the docs give (``--budget N``, ``BUDGET ?= N``,
    a benchmark's ``--budget`` default, ``"budget": N``)."""
    files = [ROOT / "Makefile", ROOT / "README.md", *sorted((ROOT / "benchmarks").glob("*.py")),
             *sorted((ROOT / "docs").rglob("*.md"))]
    patterns = [r"--budget[ =]+([0-9_]+)", r"BUDGET\s*\??=\s*([0-9_]+)", r"[\"']budget[\"']\s*:\s*([0-9_]+)",
                r"\"--budget\"[^\n]*default=([0-9_]+)"]
    found = []
    for path in files:
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [(path.name, int(m.replace("_", ""))) for p in patterns for m in re.findall(p, text)]
    return found


def test_the_main_job_benchmarks_and_docs_stay_within_the_limit() -> None:
    budgets = _budgets()
    assert ("Makefile", 10_000) in budgets  # MAIN_BUDGET is read
    assert any(name.startswith("bench") for name, _ in budgets)
    assert [(name, b) for name, b in budgets if b > MAX_BUDGET] == []
