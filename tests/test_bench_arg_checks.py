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
    # a text suite where the script needs candidates (before: a traceback, at times after a part ran)
    case("bench_policy", ["--suite", "searchqa-text-v2"], "'searchqa-text-v2' is not a suite in candidate mode"),
    case("bench_reader", ["--suite", "searchqa-text-v2"], "is not a suite in candidate mode; accepted: quick-v2"),
    case("reader_rounds", ["--suite", "searchqa-text-v2", "--rounds", "2"], "is not a suite in candidate mode"),
    case("learn_quick", ["--suite", "searchqa-text-v2", "--methods", "grpo", "--budget", "50", "--workers", "1"],
         "argument --suite: 'searchqa-text-v2' is not a suite in candidate mode"),
    case("bench_train", ["--floor", "--suite", "searchqa-text-v2"], "is not a suite in candidate mode"),
    case("bench_train", ["--env", "SearchQA-v0", "--before", "DIR"],
         "argument --env: 'SearchQA-v0' is not a candidate-mode env; accepted: "),
    case("claims", ["--smoke", "--parts", "main", "--suite", "searchqa-text-v2"], "is not a suite in candidate mode"),
    case("claims", ["--role-suite", "searchqa-text-v2"], "'searchqa-text-v2' is not a team suite in candidate mode"),
    # a file above the folder or file to write (before: a traceback, at times after the runs)
    case("claims", ["--smoke", "--parts", "main", "--out", "FILE/sub"], "argument --out: "),
    case("claims", ["--results", "FILE/R.md"], "argument --results: "),
    case("claims", ["--figures", "FILE/figs"], "argument --figures: "),
    case("rl_from_base", ["--out", "FILE/sub"], "argument --out: "),
    case("bench_scale", ["--sizes", "1000", "--queries", "5", "--json", "FILE/x.json"], "argument --json: "),
    case("gpu_check", ["--cpu-smoke", "--parts", "b", "--max-seconds", "0", "--json", "FILE/x.json"],
         "argument --json: "),
    case("text_suite_submissions", ["--out", "FILE/sub"], "argument --out: "),
    # part d's model, before any part (before: checked in part d, with `hf download /...` as the advice)
    case("gpu_check", ["--max-seconds", "0", "--model", "/no/such/model-xyz"],
         "--model '/no/such/model-xyz': no such folder"),
    case("gpu_check", ["--max-seconds", "0", "--model", "random:nope"], "--model 'random:nope': unknown preset"),
    # labels compare refuses, refused here (before: after the base was built)
    case("rl_from_base", ["--out", "OUT", "--methods", "random=grpo"], "method label 'random' is the name of"),
    case("rl_from_base", ["--out", "OUT", "--methods", "grpo,grpo_from_base=grpo"], "method labels must be unique"),
]



@pytest.mark.parametrize("module, argv, said", CASES)
def test_a_bad_argument_is_one_usage_line(tmp_path, capsys, module, argv, said):
    (tmp_path / "FILE").write_text("")
    argv = [str(tmp_path / a) if a.split("/")[0] in ("OUT", "FILE") else str(tmp_path) if a == "DIR" else a
            for a in argv]
    script = importlib.import_module(module)
    with pytest.raises(SystemExit) as exit_:
        (script.parse_args if module == "claims" else script.main)(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2, err
    assert said in err and "Traceback" not in err, err
    if any(a.startswith(str(tmp_path / "FILE") + "/") for a in argv):
        assert f"{tmp_path / 'FILE'} is a file, so " in err, err
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


def _compare_run(rl_from_base, argv, tmp_path, monkeypatch) -> tuple[list, dict]:
    """rl_from_base's compare commands (exit status 3: compare failed, its status passed on), and
    each one's settings as ``searchgym compare`` checks them, up to the first run."""
    import argparse
    import subprocess

    from searchgym.commands import compare

    class Checked(Exception):
        """compare's checks all passed: it was about to run the comparison."""

    calls = []
    monkeypatch.setattr(rl_from_base, "clone_oracle", lambda *a: {"states": 0})
    monkeypatch.setattr(subprocess, "run", lambda command, **kw: calls.append((command, kw["env"])) or
                        subprocess.CompletedProcess(command, 3))
    assert rl_from_base.main(["--out", str(tmp_path / "o"), *argv]) == 3  # compare's exit status, not a traceback
    (command, env), = calls
    assert command[1:4] == ["-m", "searchgym.cli", "compare"]
    parser = argparse.ArgumentParser()
    compare.add_arguments(parser)
    monkeypatch.setattr(compare, "run_comparison", lambda comparison: (_ for _ in ()).throw(Checked()))
    with pytest.raises(Checked):
        compare.run(parser.parse_args(command[4:]))
    return command, env


def test_rl_from_base_finds_itself_from_any_folder(tmp_path, monkeypatch):
    """Before: compare's PYTHONPATH was the working folder, so only a run from the repository's root
    could import ``benchmarks.rl_from_base``; any other folder failed every run."""
    import rl_from_base

    monkeypatch.chdir(tmp_path)
    _, env = _compare_run(rl_from_base, [], tmp_path, monkeypatch)
    first = env["PYTHONPATH"].split(":")[0]
    assert (rl_from_base.Path(first) / "benchmarks" / "rl_from_base.py").is_file()


@pytest.mark.parametrize("methods, labels", [
    (None, ["base", "grpo_from_base", "cw_grpo_from_base"]),
    ("base,grpo,cw_grpo,cw_all=cw_grpo[cw_rounds=all],grpo_kl=grpo[loss.kl_coef=0.05]",  # the docstring's
     ["base", "grpo_from_base", "cw_grpo_from_base", "cw_all", "grpo_kl"]),
    ("grpo[loss.kl_coef=0.05]", ["grpo_from_base"]),  # no base: compare's own reference, not --reference base
])
def test_rl_from_base_passes_compare_labels_it_accepts(tmp_path, monkeypatch, methods, labels):
    """Before: the default --methods (and the docstring's) became grpo=benchmarks.rl_from_base:grpo,
    which compare refuses ("method label 'grpo' is the name of the built-in method grpo"), after the
    base was built."""
    import rl_from_base

    from searchgym.harness.methods import parse_methods

    command, _ = _compare_run(rl_from_base, ["--methods", methods] if methods else [], tmp_path, monkeypatch)
    refs = parse_methods(command[command.index("--methods") + 1])
    assert [r.label for r in refs] == labels
    assert {r.path for r in refs} <= {f"benchmarks.rl_from_base:{m}" for m in rl_from_base.FROM_BASE_METHODS}


def test_bench_train_sides_share_their_thread_count(tmp_path, monkeypatch, capsys):
    """Before: the before side ran on every core and the after side on one, so identical code printed
    a 2.6x "speed-up (goal >= 2x)"; now one thread each unless told, and a warning when they differ."""
    import bench_train

    threads = []
    result = {"wall_s": 2.0, "cpu_s": 2.0, "setup_wall_s": 1.0, "setup_cpu_s": 1.0, "env_steps": 100, "dev_tasks": 8,
              "curve": [(0, 0.5)]}
    monkeypatch.setattr(bench_train, "run_child", lambda tree, n, seed, args: threads.append(n) or dict(result))
    monkeypatch.setattr("os.cpu_count", lambda: 8)  # the before side once took them all
    (tmp_path / "searchgym").mkdir()  # a stand-in checkout: --before takes a folder that holds one
    (tmp_path / "searchgym" / "__init__.py").write_text("")
    bench_train.main(["--before", str(tmp_path), "--seeds", "0"])
    out = capsys.readouterr().out
    assert threads == [1, 1] and "WARNING" not in out and "(goal >= 2x)" in out
    threads.clear()
    bench_train.main(["--before", str(tmp_path), "--seeds", "0", "--before-threads", "4"])
    out = capsys.readouterr().out
    assert threads == [4, 1] and "WARNING: the sides run on different torch thread counts" in out
    assert "(goal >= 2x)" not in out
