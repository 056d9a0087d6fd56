"""benchmarks/*.py: what a researcher plausibly gets wrong is one usage line naming what is accepted,
before any work starts (before, each of these was a traceback, a bare line without usage, or an
error after the runs: a single-agent suite for the team benchmark, a candidate suite for the chat
endpoint, a folder that is not a checkout as --tree, a misspelled method, seed or ablation, a folder
as claims' --results). Called in process through each script's ``main(argv)``: seconds, not minutes."""

from __future__ import annotations

import importlib

import pytest


def case(module: str, argv: list[str], said: str):
    return pytest.param(module, argv, said, id=f"{module} {' '.join(argv)}")


CASES = [
    case("bench_team", ["--suite", "searchqa-v2"], "'searchqa-v2' is not a multi-agent (team or group) suite"),
    case("bench_team", ["--memory", "2", "--suite", "searchqa-text-v2"], "is not a multi-agent"),
    case("bench_env", ["--suite", "searchqa-v2"], "is not a multi-agent"),
    case("bench_train", ["--seeds", "x"], "argument --seeds: 'x' is not a comma list of seeds >= 0"),
    case("bench_train", ["--seeds", "0,-1"], "argument --seeds"),
    case("bench_train", ["--eval-tasks", "0"], "argument --eval-tasks"),
    case("bench_train", ["--size", "nope"], "argument --size: unknown world size 'nope'"),
    case("bench_train", ["--env", "nope"], "argument --env: unknown env id 'nope'"),
    case("bench_train", ["--estimator", "nope"], "unknown estimator 'nope'; accepted"),
    case("bench_train", ["--before", "no-such-ref-xyz"], "argument --before: 'no-such-ref-xyz' is neither a folder"),
    case("bench_train", ["--floor", "--policy-kwargs", "[1]"], "argument --policy-kwargs: '[1]' is not a JSON object"),
    case("bench_train", ["--floor", "--policy", "nope", "--budget", "8"], "unknown policy/encoder 'nope'; accepted"),
    case("bench_search", ["--size", "nope"], "argument --size: unknown world size 'nope'"),
    case("bench_scale", ["--seed", "-1"], "argument --seed: '-1' is not a whole number >= 0"),
    case("bench_scale", ["--sizes"], "argument --sizes: expected at least one argument"),
    case("bench_endpoint", ["--suite", "quick-v2"], "'quick-v2' is not a text-mode suite; accepted: searchqa-text-v2"),
    case("bench_endpoint", ["--latency", "inf"], "argument --latency: 'inf' is not a finite number of seconds"),
    case("bench_tokenizer", ["--suite", "quick-v2"], "is not a text-mode suite"),
    case("cw_weights", ["--suite", "group-v2"], "'group-v2' is not a team suite in candidate mode; accepted: quick-v2"),
    case("cw_weights", ["--seed", "-1"], "argument --seed"),
    case("learn_quick", ["--methods", "nope"], "argument --methods: unknown method 'nope'"),
    case("learn_quick", ["--seeds", "x"], "argument --seeds"),
    case("rl_from_base", ["--out", "OUT", "--methods", "nope"], "'nope' names none of base, grpo, cw_grpo"),
    case("rl_from_base", ["--out", "OUT", "--suite", "searchqa-v2"], "is not a team suite in candidate mode"),
    case("rl_from_base", ["--out", "OUT", "--follow", "2"], "argument --follow"),
    case("claims", ["--smoke", "--out", "OUT", "--ablation", "nope"], "argument --ablation: unknown ablation"),
    case("claims", ["--smoke", "--out", "OUT", "--methods", "nope"], "argument --methods: unknown method 'nope'"),
    case("claims", ["--smoke", "--out", "OUT", "--results", "DIR"], "argument --results: "),
    case("claims", ["--smoke", "--out", "OUT", "--parts", ","], "argument --parts: names no part"),
    case("claims", ["--smoke", "--out", "OUT", "--device", "nope"], "argument --device: unknown device 'nope'"),
    case("text_suite_submissions", ["--runs", "FILE"], "argument --runs: "),
    case("gpu_check", ["--max-seconds", "-1"], "argument --max-seconds"),
]


@pytest.mark.parametrize("module, argv, said", CASES)
def test_a_bad_argument_is_one_usage_line(tmp_path, capsys, module, argv, said):
    (tmp_path / "FILE").write_text("")
    argv = [str(tmp_path / a) if a in ("OUT", "FILE") else str(tmp_path) if a == "DIR" else a for a in argv]
    script = importlib.import_module(module)
    with pytest.raises(SystemExit) as exit_:
        (script.parse_args if module == "claims" else script.main)(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2, err
    assert said in err and "Traceback" not in err, err
    assert err.startswith("usage:") and ": error: " in err.strip().splitlines()[-1]
    assert not (tmp_path / "OUT").exists()  # nothing written before the check


@pytest.mark.parametrize("module", ["bench_env", "bench_team", "bench_mentions"])
def test_tree_that_is_not_a_checkout_is_a_usage_line(tmp_path, capsys, module):
    """Before: a bare "... is not a searchgym checkout" line from source_tree, with no usage."""
    with pytest.raises(SystemExit) as exit_:
        importlib.import_module(module).main(["--tree", str(tmp_path)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "argument --tree: " in err and "is not a searchgym checkout" in err, err


def test_bench_env_passes_frozen_heap_to_the_team_rows(monkeypatch):
    """README: ``--frozen-heap`` times every row; before, bench_env's team rows ran without it."""
    import bench_env
    import bench_search
    import bench_team

    seen = {}
    monkeypatch.setattr(bench_env, "env_rows", lambda *a, **k: seen.setdefault("env", k))
    monkeypatch.setattr(bench_search, "main", lambda argv=None: None)
    monkeypatch.setattr(bench_team, "main", lambda argv=None: seen.setdefault("team", argv))
    bench_env.main(["--frozen-heap", "--episodes", "1"])
    assert seen["env"] == {"frozen_heap": True} and "--frozen-heap" in seen["team"]


def test_claims_option_overrides_make_mains_option(tmp_path):
    """Before: ``--option lr=0.01`` (a key of FROM_BASE) was refused as "given twice" in a traceback."""
    import claims

    from searchgym.commands.compare import parse_options

    args = claims.parse_args(["--smoke", "--out", str(tmp_path / "o"), "--option", "lr=0.01",
                              "--option", "sft_epochs=1"])
    options = parse_options(args.option)
    assert options["lr"] == 0.01 and options["sft_epochs"] == 1 and options["init"] == "sft"
    default = parse_options(claims.parse_args(["--smoke", "--out", str(tmp_path / "o")]).option)
    assert default["lr"] == 0.001 and default["sft_epochs"] == 2  # make main's, and the smoke base's


def test_rl_from_base_finds_itself_from_any_folder(tmp_path, monkeypatch):
    """Before: compare's PYTHONPATH was the working folder, so only a run from the repository's root
    could import ``benchmarks.rl_from_base``; any other folder failed every run."""
    import subprocess

    import rl_from_base

    calls = []
    monkeypatch.setattr(rl_from_base, "clone_oracle", lambda *a: {"states": 0})
    monkeypatch.setattr(subprocess, "run", lambda command, **kw: calls.append(kw["env"]) or
                        subprocess.CompletedProcess(command, 3))
    monkeypatch.chdir(tmp_path)
    assert rl_from_base.main(["--out", str(tmp_path / "o")]) == 3  # compare's exit status, not a traceback
    first = calls[0]["PYTHONPATH"].split(":")[0]
    assert (rl_from_base.Path(first) / "benchmarks" / "rl_from_base.py").is_file()
