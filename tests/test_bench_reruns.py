"""benchmarks/*.py run again, or run into a folder of other runs: claims.py refuses runs of other settings
in one line before any part runs, and finds its default paths from any folder; text_suite_submissions.py
re-runs as its docstring says; bench_endpoint.py refuses a level given twice. Before: a traceback after
the parts before it, paths under the working folder, "a different run" for the scripted server's port."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from baselines_helpers import SMALL_RUN, TINY_TEAM

REPO = Path(__file__).resolve().parents[1]


def claims_argv(out: Path, *argv: str) -> list[str]:
    options = [word for key, value in SMALL_RUN.items() for word in ("--option", f"{key}={value}")]
    return ["--smoke", "--start", "scratch", "--suite", TINY_TEAM.id, "--seeds", "1", "--workers", "1",
            "--out", str(out), *options, *argv]


def test_claims_refuses_runs_of_other_settings_in_one_line_before_any_part(tmp_path, capsys):
    import claims

    out = tmp_path / "claims"
    assert claims.main(claims_argv(out, "--parts", "ablation", "--ablation", "plain", "--budget", "16")) == 0
    capsys.readouterr()
    code = claims.main(claims_argv(out, "--parts", "main,ablation", "--methods", "grpo", "--ablation",
                                   "plain", "--budget", "24"))
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("claims.py: error: "), err
    assert "ablation/runs/grpo_plain/seed0 holds a different run (budget: 16 there, 24 now)" in err
    assert not (out / "main").exists()  # refused before the main part ran


def test_claims_default_paths_are_the_repositorys_from_any_folder(tmp_path, monkeypatch):
    import claims

    monkeypatch.chdir(tmp_path)
    full, smoke = claims.parse_args([]), claims.parse_args(["--smoke"])
    assert (full.out, full.results, full.figures) == (REPO / "runs/claims", REPO / "docs/RESULTS.md",
                                                      REPO / "docs/results")
    assert full.shown_out == Path("runs/claims")  # what RESULTS.md names, as before
    assert smoke.out == REPO / "runs/claims-smoke" and smoke.results == smoke.out / "RESULTS.md"
    given = claims.parse_args(["--smoke", "--out", "mine", "--figures", "figs"])  # the working folder's
    assert (given.out, given.results, given.figures) == (Path("mine"), Path("mine/RESULTS.md"), Path("figs"))
    assert given.shown_out == Path("mine")


def _submissions(folder: Path) -> dict[str, dict]:
    files = {path.name: json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))}
    for submission in files.values():
        submission.pop("created")
    return files


def test_text_suite_submissions_re_runs_into_the_same_folders(tmp_path, capsys):
    import text_suite_submissions as script

    argv = ["--suites", "searchqa-text-v2", "--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "out")]
    assert script.main(argv) == 0
    first = _submissions(tmp_path / "out")
    assert len(first) == 3
    assert script.main(argv) == 0  # before: "holds a different run (options.agent_options.base_url: ...)"
    assert _submissions(tmp_path / "out") == first  # the same play: the same files
    played = tmp_path / "runs" / "searchqa-text-v2" / "scripted-endpoint"
    (played / "DONE").unlink()  # an unfinished run: played again on the port it recorded
    assert script.main(argv) == 0
    name = "searchqa-text-v2__scripted-endpoint__seed0.json"
    again = _submissions(tmp_path / "out")[name]
    assert again["run"]["options"] == first[name]["run"]["options"]  # the same URL: the same run, resumed
    assert again["metrics"]["success"] == 1.0


def test_bench_endpoint_refuses_a_level_given_twice(monkeypatch, capsys):
    import bench_endpoint

    monkeypatch.setattr(bench_endpoint, "one_run", lambda *a: pytest.fail("a run started"))
    with pytest.raises(SystemExit) as exit_:
        bench_endpoint.main(["--latency", "0", "--concurrency", "8,1,8"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.strip().splitlines()[-1].endswith(
        ": error: argument --concurrency: level(s) 8 given more than once; give each level once "
        "(e.g. 1,8)"), err
