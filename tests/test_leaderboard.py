"""Leaderboard: submissions from runs, verification that rejects tampering, the built pages."""

from __future__ import annotations

import builtins
import copy
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from searchgym.cli import main
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.leaderboard import build, build_submission, write_submission
from searchgym.leaderboard_checks import MAX_BYTES, load_schema, verify_file
from searchgym.suites import Suite, register_suite, tasks

SUITE = register_suite(Suite("test-lb-tiny-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 6}, world_size="tiny",
                             dev_size=4, test_size=10, description="tests: leaderboard"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    run_comparison(Comparison(SUITE, parse_methods("random,oracle"), [0], 0, out, "cpu", progress=False))
    return out / "runs"


@pytest.fixture
def oracle(runs):
    return build_submission(runs / "oracle" / "seed0", description="follows the gold evidence")


def write(tmp_path, submission, name="s.json"):
    path = tmp_path / name
    path.write_text(json.dumps(submission))
    return path


def test_schema_is_draft_2020_12():
    import jsonschema

    schema = load_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_a_submission_from_a_run_verifies(tmp_path, oracle, runs):
    assert oracle["suite"] == {"id": SUITE.id, "hash": SUITE.content_hash}
    assert oracle["metrics"]["success"] == 1.0 and oracle["training_budget"] == 0
    assert sorted(p["task_id"] for p in oracle["predictions"]) == sorted(t.id for t in tasks(SUITE, "test"))
    verdict = verify_file(write(tmp_path, oracle))
    assert verdict.ok, verdict.reason
    weak = build_submission(runs / "random" / "seed0")
    assert verify_file(write(tmp_path, weak, "r.json")).ok and weak["metrics"]["success"] < 1.0


def tampered(submission, change):
    bad = copy.deepcopy(submission)
    change(bad)
    return bad


CASES = {
    "metric changed": (lambda s: s["metrics"].update(success=0.9), "claimed success 0.9 differs from the re-scored 1.0"),
    "family metric changed": (lambda s: next(iter(s["metrics"]["families"].values())).update(f1=0.5),
                              "f1 0.5 differs from the re-scored 1.0"),
    "prediction removed": (lambda s: s["predictions"].pop(), "missing predictions for 1 test task(s)"),
    "prediction duplicated": (lambda s: s["predictions"].append(dict(s["predictions"][0])), "duplicated task ids"),
    "unknown task": (lambda s: s["predictions"].__setitem__(0, {**s["predictions"][0], "task_id": "x-1"}),
                     "task ids not in the test split of test-lb-tiny-v0: 'x-1'"),
    "wrong hash": (lambda s: s["suite"].update(hash="0" * 64), "wrong suite hash for test-lb-tiny-v0"),
    "unknown suite": (lambda s: s["suite"].update(id="nope-v0"), "unknown suite 'nope-v0'"),
    "retired suite": (lambda s: s["suite"].update(id="quick-v1"),
                      "suite quick-v1 was retired: the scoring rules changed (scoring-v2 matched a computed answer"),
    "path-like name": (lambda s: s["method"].update(name="../../etc"), "schema violation at method/name"),
    "dot-dot name": (lambda s: s["method"].update(name="a..b"), "schema violation at method/name"),
    "slash in name": (lambda s: s["method"].update(name="a/b"), "schema violation at method/name"),
    "extra field": (lambda s: s.update(command="rm -rf /"), "schema violation at (top level)"),
    "success over 1": (lambda s: s["metrics"].update(success=2), "schema violation at metrics/success"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_tampered_submissions_are_rejected_with_the_reason(tmp_path, oracle, case):
    change, reason = CASES[case]
    verdict = verify_file(write(tmp_path, tampered(oracle, change)))
    assert not verdict.ok and reason in verdict.reason, verdict.reason


def test_metrics_within_the_tolerance_pass(tmp_path, oracle):
    assert verify_file(write(tmp_path, tampered(oracle, lambda s: s["metrics"].update(success=1 - 1e-9)))).ok


def test_a_50_mb_file_is_rejected_before_it_is_read(tmp_path, monkeypatch):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(50 * 1024 * 1024)
    real_open = builtins.open

    def guarded_open(file, *args, **kwargs):
        if os.fspath(file) == os.fspath(big):
            raise AssertionError("the big file was opened")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded_open)
    verdict = verify_file(big)
    assert not verdict.ok and verdict.reason == f"file too large: {50 * 1024 * 1024} bytes, the limit is {MAX_BYTES} bytes"


def test_malformed_files(tmp_path):
    (tmp_path / "a.json").write_text("{not json")
    assert "invalid JSON: Expecting property name" in verify_file(tmp_path / "a.json").reason
    (tmp_path / "b.json").write_bytes(b"\xff\xfe")
    assert verify_file(tmp_path / "b.json").reason.startswith("not UTF-8 text")
    (tmp_path / "c.json").write_text("[" * 100_000 + "]" * 100_000)
    assert not verify_file(tmp_path / "c.json").ok
    assert verify_file(tmp_path / "absent.json").reason.startswith("cannot read the file")
    assert verify_file(tmp_path).reason == "not a regular file"


def test_verify_command_prints_the_reason_and_fails(tmp_path, oracle, capsys):
    good = write(tmp_path, oracle, "good.json")
    bad = write(tmp_path, tampered(oracle, lambda s: s["predictions"].pop()), "bad.json")
    assert main(["leaderboard", "verify", str(good)]) == 0
    assert main(["leaderboard", "verify", str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"OK       {good}: success 1.000" in out
    assert f"REJECTED {bad}: missing predictions for 1 test task(s)" in out


def build_board(tmp_path, runs):
    board = tmp_path / "board"
    hostile = "<script>alert(1)</script> & | *x*"
    write_submission(build_submission(runs / "oracle" / "seed0", name="Oracle", description=hostile),
                     folder=board / "submissions")
    write_submission(build_submission(runs / "random" / "seed0", name="Random walk"), folder=board / "submissions")
    bad = build_submission(runs / "oracle" / "seed0", name="Cheater")
    bad["metrics"]["success"] = 0.5
    write(board / "submissions", bad, "cheater.json")
    return board, build(board)


def test_build_shows_verified_submissions_only_and_escapes_them(tmp_path, runs, capsys):
    board, (verdicts, readme, page) = build_board(tmp_path, runs)
    assert [v.ok for v in verdicts] == [False, True, True]  # sorted: cheater.json first
    text, html = readme.read_text(), page.read_text()
    # the oracle's run under another name is still marked privileged (its run block says oracle)
    assert "| 1 | Oracle \\(privileged\\) | 1.000 | 1.000 |" in text and "| 2 | Random walk |" in text
    assert "Cheater" not in text
    assert "&lt;script&gt;alert\\(1\\)&lt;/script&gt; &amp; \\| \\*x\\*" in text
    assert "Oracle" in html and "Random walk" in html and "Cheater" not in html
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; | *x*" in html
    assert (board / "submissions" / f"{SUITE.id}__Random_walk__seed0.json").exists()
    assert main(["leaderboard", "build", "--dir", str(board)]) == 1  # one rejected
    assert "REJECTED" in capsys.readouterr().out and page.read_text() == html  # rebuilds byte for byte


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def test_the_built_page_shows_the_sorted_table_in_headless_chromium(tmp_path, runs):
    browser = chromium()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is required when CI is set: apt-get install -y chromium")
        pytest.skip("chromium is not installed (apt-get install -y chromium); with CI set this test fails")
    _, (_, _, page) = build_board(tmp_path, runs)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.resolve().as_uri()]
    result = subprocess.run([browser, *flags], check=False, capture_output=True, text=True, timeout=120)
    dom = result.stdout
    assert result.returncode == 0, result.stderr[-2000:]
    table = re.search(r'<table class="board" id="board-test-lb-tiny-v0"[^>]*>', dom)
    assert table and 'data-sorted="success-desc"' in table.group(0)  # the sort script ran
    assert re.search(r'<th data-key="success" data-type="number" aria-sort="descending">', dom)
    names = re.findall(r'<td class="text" data-value="([^"]+)">', dom)
    assert [n for n in names if n in ("Oracle (privileged)", "Random walk")] == ["Oracle (privileged)", "Random walk"]
    assert "<script>alert(1)</script>" not in dom.split("<script>(function")[0]


def test_submit_command_writes_and_verifies(tmp_path, runs, capsys):
    out = tmp_path / "sub.json"
    assert main(["leaderboard", "submit", str(runs / "oracle" / "seed0"), "--name", "My Oracle", "--out", str(out),
                 "--url", "https://example.org/paper"]) == 0
    assert "verified" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["method"]["name"] == "My Oracle" and data["method"]["url"] == "https://example.org/paper"
    assert main(["leaderboard", "submit", str(runs / "oracle" / "seed0"), "--name", "../x", "--out", str(out)]) == 2
    assert "error: --name must be 1 to 64 characters: letters, digits" in capsys.readouterr().err
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    assert main(["leaderboard", "submit", str(unfinished)]) == 2
    assert "not a finished run folder" in capsys.readouterr().err
    assert Path(out).exists()


def test_submit_command_says_what_is_wrong_with_its_paths_and_url(tmp_path, runs, capsys):
    run = str(runs / "oracle" / "seed0")
    assert main(["leaderboard", "submit", str(tmp_path / "typo")]) == 2  # before: "no DONE marker; finish it"
    assert f"{tmp_path / 'typo'} is not a run folder (no such folder)" in capsys.readouterr().err
    (tmp_path / "file").write_text("x")
    assert main(["leaderboard", "submit", str(tmp_path / "file")]) == 2
    assert "is not a run folder (a file, not a folder)" in capsys.readouterr().err
    assert main(["leaderboard", "submit", run, "--url", "ftp://x", "--out", str(tmp_path / "u.json")]) == 2
    assert "accepted form (an http:// or https:// link" in capsys.readouterr().err  # before: "(pattern)"
    (tmp_path / "taken").mkdir()  # before: exit 1 once the run was scored, "Is a directory (...)"
    assert main(["leaderboard", "submit", run, "--out", str(tmp_path / "taken")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"searchgym leaderboard: error: --out {tmp_path / 'taken'} is a folder, not a file; give the file "
                   f"to write ({tmp_path / 'taken' / 'NAME.json'}, say), or leave --out out for the default file "
                   "name under --dir")
    assert list((tmp_path / "taken").iterdir()) == []



def test_submit_refuses_a_limited_evaluation_by_name(tmp_path, capsys):
    # Before: "damaged file: .../predictions.jsonl: does not hold one prediction per test task ...;
    # delete DONE and re-run the same command", and the same command limits the run again.
    run = tmp_path / "quick"
    assert main(["evaluate", "--suite", SUITE.id, "--agent", "oracle", "--limit", "3", "--no-progress",
                 "--out", str(run)]) == 0
    capsys.readouterr()
    assert main(["leaderboard", "submit", str(run), "--out", str(tmp_path / "s.json")]) == 2
    err = capsys.readouterr().err
    assert f"{run} was scored on the first 3 tasks only (--limit)" in err and "re-run it without --limit" in err
    assert "damaged" not in err and not (tmp_path / "s.json").exists()


def test_submit_takes_a_run_whose_limit_covers_the_test_split(tmp_path, capsys):
    """Before: `evaluate --limit 100000000` scored every task and was refused as "scored on the first
    100000000 tasks only"."""
    run = tmp_path / "whole"
    assert main(["evaluate", "--suite", SUITE.id, "--agent", "oracle", "--limit", "100000000", "--no-progress",
                 "--out", str(run)]) == 0
    assert main(["leaderboard", "submit", str(run), "--out", str(tmp_path / "s.json")]) == 0
    assert (tmp_path / "s.json").is_file()


def test_the_committed_leaderboard_is_verified_and_up_to_date(tmp_path):
    """Every committed submission verifies against today's suites, and the committed pages are
    what ``build`` writes from them (after a world or suite change: re-run, re-submit, re-build)."""
    from searchgym.leaderboard import DEFAULT_DIR

    committed = sorted((DEFAULT_DIR / "submissions").glob("*.json"))
    assert committed, "leaderboard/submissions/ holds no submission"
    for path in committed:
        verdict = verify_file(path)
        assert verdict.ok, f"{path.name}: {verdict.reason}"
    shutil.copytree(DEFAULT_DIR / "submissions", tmp_path / "submissions")
    _, readme, page = build(tmp_path)
    assert readme.read_text() == (DEFAULT_DIR / "README.md").read_text()
    assert page.read_text() == (DEFAULT_DIR / "index.html").read_text()
