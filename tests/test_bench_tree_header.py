"""Benchmarks: a ``--tree`` run names the checkout it measured; bench_env's ``--episodes`` reaches the
team rows; bench_scale's gen/load column says it is a CPU-time ratio; rl_from_base's ``--methods``
errors quote what was typed. The subprocess runs use the smallest settings (seconds each)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = REPO / "benchmarks"


def checkout_said() -> str:
    """What a header names for ``--tree REPO``: the folder, and its commit where it is a git checkout."""
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
    if head.returncode != 0 or not (REPO / ".git").exists():
        return f"checkout {REPO} (not a git checkout)"
    return f"checkout {REPO} at commit {head.stdout.strip()[:12]}"


def header(script: str, *argv: str) -> str:
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), "--tree", str(REPO), *argv], cwd=REPO,
                          capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()[0]


@pytest.mark.parametrize(("script", "argv"), [
    ("bench_env.py", ["--env-only", "--episodes", "1"]),
    ("bench_team.py", ["--episodes", "1", "--envs", "1"]),
    ("bench_train.py", ["--floor", "--budget", "20"]),
])
def test_a_tree_run_names_the_checkout_it_measured_in_its_header(script, argv):
    assert checkout_said() in header(script, *argv)  # before: no word of which checkout


def test_a_tree_that_is_no_git_checkout_is_said_so(tmp_path):
    from source_tree import describe_tree

    assert describe_tree(tmp_path) == f"checkout {tmp_path.resolve()} (not a git checkout)"


def test_bench_env_episodes_reach_the_team_rows(monkeypatch):
    import bench_env
    import bench_search
    import bench_team

    calls: dict[str, list] = {}
    monkeypatch.setattr(bench_env, "env_rows", lambda episodes, *a, **k: calls.setdefault("env", []).append(episodes))
    monkeypatch.setattr(bench_search, "main", lambda argv=None: None)
    monkeypatch.setattr(bench_team, "main", lambda argv=None: calls.setdefault("team", []).append(list(argv)))
    bench_env.main(["--episodes", "7"])
    assert calls["env"] == [7]
    assert calls["team"][0][calls["team"][0].index("--episodes") + 1] == "7"  # before: bench_team's 200
    bench_env.main([])  # the defaults stay each part's own
    assert calls["env"][1] == 300 and "--episodes" not in calls["team"][1]


def test_bench_scale_labels_gen_load_a_cpu_time_ratio():
    import bench_scale

    row = {"pages": 10_000, "gen_cpu": 3.0, "gen_wall": 3.5, "world_gb": 0.1, "bm25s_build_cpu": 1.0,
           "bm25s_build_wall": 1.1, "index_mb": 5.0, "bm25s_gb": 0.05, "cache_load_cpu": 0.3,
           "cache_load_wall": 0.4, "tasks": 10, "latency": {}}
    lines = bench_scale.report([row]).splitlines()
    assert "gen/load CPU: generation's CPU time over the cache load's" in lines[0]
    columns, values = lines[2], lines[3]
    assert columns.endswith("gen/load CPU") and values.endswith("10.0x")
    assert len(columns) == len(values)  # the ratio sits under its label


@pytest.mark.parametrize(("typed", "said"), [
    ("=grpo", "method entry '=grpo' has an empty label"),
    ("grpo=grpo", "would report rl_from_base.py's grpo as it"),
])
def test_rl_from_base_quotes_the_entry_as_typed(typed, said):
    import rl_from_base

    with pytest.raises(argparse.ArgumentTypeError) as error:
        rl_from_base.method_entries(typed)
    assert said in str(error.value)
    assert "benchmarks.rl_from_base" not in str(error.value)  # before: the translated entry
