"""Every leaderboard check is in one module, and a verification looks the suite up once."""

from __future__ import annotations

from pathlib import Path

import searchgym.leaderboard_checks as checks
from searchgym import suites

ROOT = Path(__file__).resolve().parents[1]
SUBMISSION = ROOT / "leaderboard" / "submissions" / "quick-v2__random__seed0.json"


def test_verify_looks_the_suite_up_once_and_passes_it_through(monkeypatch) -> None:
    looked_up = []

    def counting_get_suite(suite_id):
        looked_up.append(suite_id)
        return suites.get_suite(suite_id)

    monkeypatch.setattr(checks, "get_suite", counting_get_suite)
    verdict = checks.verify_file(SUBMISSION)
    assert verdict.ok, verdict.reason
    assert looked_up == ["quick-v2"]


def test_the_checks_live_in_one_module() -> None:
    import searchgym.leaderboard as leaderboard

    source = Path(leaderboard.__file__).read_text()
    for check in ("def verify_file", "def check_content", "def rescore", "def read_limited", "def check_schema"):
        assert check in Path(checks.__file__).read_text() and check not in source
