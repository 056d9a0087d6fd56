"""The compare and evaluate commands, end to end in this process."""

from __future__ import annotations

from harness_helpers import TINY_QA

from searchgym.suites import Suite, register_suite

from searchgym.cli import main
from searchgym.fileio import read_json, read_jsonl


def test_compare_prints_the_table_and_where_the_curves_are(tmp_path, capsys):
    args = ["compare", "--suite", TINY_QA.id, "--methods", "random,oracle,fast=harness_helpers:fast_learner",
            "--seeds", "2", "--budget", "8", "--device", "cpu", "--out", str(tmp_path), "--no-progress"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "| oracle (privileged) | 2 | 1.000 [1.000, 1.000]" in out
    assert "runs: 6 done now, 0 already finished, 0 failed" in out
    assert f"learning curves: {tmp_path / 'learning_curves.png'}" in out
    assert main(args) == 0
    assert "runs: 0 done now, 6 already finished, 0 failed" in capsys.readouterr().out


def test_compare_reports_bad_input_as_a_usage_error(tmp_path, capsys):
    assert main(["compare", "--suite", "nope-v0", "--out", str(tmp_path)]) == 2
    assert "unknown suite 'nope-v0'; known suites: quick-v2" in capsys.readouterr().err
    assert main(["compare", "--suite", TINY_QA.id, "--seeds", "x", "--out", str(tmp_path)]) == 2
    assert "--seeds takes a count (3) or a comma list" in capsys.readouterr().err
    assert main(["compare", "--suite", TINY_QA.id, "--seeds", "0", "--out", str(tmp_path)]) == 2
    assert "--seeds '0' runs no seed; give a count of at least 1" in capsys.readouterr().err


def test_compare_refuses_settings_no_run_would_accept_before_any_run_starts(tmp_path, capsys):
    """A typo in an option, the policy or a decoding is one usage error, not a failed run per seed."""
    cases = [
        (["--methods", "grpo,random", "--option", "lr_rate=0.1"], "method 'grpo': unknown option 'lr_rate' for grpo"),
        (["--methods", "cw_grpo", "--policy", "bert"], "unknown --policy 'bert'; accepted: attn, hash, hf, minilm"),
        (["--methods", "base=sft[decoding=argmax]"], "method 'base': unknown decoding 'argmax'; accepted: sample, greedy"),
        (["--methods", "sft", "--option", "sft_epoch=3"], "method 'sft': unknown option 'sft_epoch'; the supervised base"),
        (["--methods", "grpo", "--option", 'policy_kwargs={"operand_source": true}'],
         "method 'grpo': policy_kwargs {'operand_source': True} do not fit --policy hash: bad arguments for encoder "
         "'hash': HashEncoder.__init__() got an unexpected keyword argument 'operand_source'; it accepts dim, "
         "n_buckets, cache_size, drop_names; and the candidate policy: hidden, overlap_features"),
        (["--methods", "sft", "--option", 'policy_kwargs={"operand_sources": true, "overlap_features": false}'],
         "method 'sft': policy_kwargs {'operand_sources': True, 'overlap_features': False} do not fit --policy hash: "
         "operand_sources=True is read beside the word-overlap features: it needs overlap_features=True"),
        (["--methods", "grpo", "--policy", "attn", "--option", 'policy_kwargs={"dims": 3}'],
         "unknown option(s) for the attn policy: dims; accepted: dim, heads, hidden, n_buckets, hop_features"),
        (["--methods", "grpo", "--option", "init=sft", "--option", "rl_fresh_tasks=true"],
         "method 'grpo': rl_fresh_tasks=true: the base was shown every train task (sft_tasks=1000, "),
        (["--methods", "grpo,mappo"], "method 'mappo': mappo needs a multi-agent suite with a global state() "
                                      "(GroupSearchEnv or TeamSearchEnv); 'SearchQA-Candidates-v0' is a single-agent env"),
        (["--methods", "grpo", "--option", "policy_kwargs=[1]"],
         "method 'grpo': policy_kwargs must be a mapping of the policy's keyword arguments, e.g. "),
        (["--methods", "grpo", "--option", "lr=abc"], "method 'grpo': option 'lr' of grpo takes a number, got \"abc\""),
    ]
    for k, (extra, message) in enumerate(cases):
        out = tmp_path / f"run{k}"
        args = ["compare", "--suite", TINY_QA.id, "--budget", "8", "--device", "cpu", "--out", str(out), *extra]
        assert main(args) == 2
        assert message in capsys.readouterr().err
        assert not out.exists()  # refused before a run folder was written
    # the same settings spelt right run (random ignores the options of the comparison's other methods)
    assert main(["compare", "--suite", TINY_QA.id, "--methods", "random,fast=harness_helpers:fast_learner",
                 "--option", "lr=0.1", "--budget", "0", "--out", str(tmp_path / "ok"), "--no-progress"]) == 0


def test_baselines_refuse_options_they_do_not_take_before_any_folder(tmp_path, capsys):
    """Before: random, oracle and the reader ran with any option (``lookup_ordr=...``, ``nosuch=1``),
    silently unused, and the reader read ``rotate_in_team=no`` as true."""
    train = ["train", "--env", "SearchQA-Candidates-v0", "--world-size", "tiny", "--test-size", "2", "--budget", "0"]
    compare = ["compare", "--suite", TINY_QA.id, "--budget", "0", "--no-progress"]
    evaluate = ["evaluate", "--suite", TINY_QA.id, "--no-progress"]
    reader_takes = "accepted: lookup_order, rotate_in_team"
    cases = [
        ([*train, "--method", "random", "--options", '{"nosuch": 1}'],
         "method 'random': unknown option 'nosuch' for random; random takes no options"),
        ([*train, "--method", "reader", "--options", '{"lookup_ordr": "web_search"}'],
         f"method 'reader': unknown option 'lookup_ordr' for reader; {reader_takes}"),
        ([*train, "--method", "reader", "--options", '{"rotate_in_team": "no"}'],
         "method 'reader': rotate_in_team takes true or false, got 'no'"),
        ([*compare, "--methods", "r=reader[lookup_ordr=web_search]"],
         f"method 'r': unknown option 'lookup_ordr' for reader; {reader_takes}"),
        ([*compare, "--methods", "o=oracle[x=1]"],
         "method 'o': unknown option 'x' for oracle; oracle takes no options"),
        ([*compare, "--methods", "r=reader[lookup_order=google]"],
         "method 'r': lookup_order ('google',) is not accepted: give one or more of knowledge_base, web_search"),
        ([*compare, "--methods", "random,reader", "--option", "lookup_ordr=web_search"],
         "unknown option 'lookup_ordr': no method of this comparison takes it (random takes none; reader takes "
         "lookup_order, rotate_in_team)"),
        ([*evaluate, "--agent", "reader", "--agent-option", "lookup_ordr=web_search"],
         "--agent reader: got an unexpected keyword argument 'lookup_ordr' (from --agent-option or the endpoint "
         "flags); it accepts: lookup_order, rotate_in_team"),
        ([*evaluate, "--agent", "reader", "--agent-option", "rotate_in_team=maybe"],
         "--agent reader: rotate_in_team takes true or false, got 'maybe'"),
    ]
    for k, (args, message) in enumerate(cases):
        out = tmp_path / f"b{k}"
        assert main([*args, "--out", str(out)]) == 2, args
        assert message in capsys.readouterr().err
        assert not out.exists()
    # spelt right, they run; beside a learner, a baseline leaves the learner's options to it
    assert main([*compare, "--methods", "r=reader[lookup_order=web_search;rotate_in_team=false],random", "--option",
                 "lookup_order=knowledge_base", "--out", str(tmp_path / "ok")]) == 0
    from searchgym.harness.compare import Comparison
    from searchgym.harness.methods import parse_methods
    from searchgym.harness.preflight import check_comparison

    check_comparison(Comparison(TINY_QA, parse_methods("grpo,reader,random,oracle"), [0], 8, tmp_path / "c",
                                options={"lr": 0.001, "update_epochs": 4}))



def test_an_unknown_policy_is_refused_even_when_every_method_is_a_baseline(tmp_path, capsys, monkeypatch):
    """Before: ``compare --policy foo --methods random,oracle`` (and ``train --method random --policy
    foo``) ran, wrote its folders and recorded policy "foo": the name was checked only for a learner."""
    import sys

    from searchgym.agents.policy import ENCODERS, OWN_ARCHITECTURES
    from searchgym.harness.preflight import BUILT_IN_POLICIES

    compare = ["compare", "--suite", TINY_QA.id, "--methods", "random,oracle", "--budget", "0", "--no-progress"]
    train = ["train", "--env", "SearchQA-Candidates-v0", "--world-size", "tiny", "--test-size", "2", "--budget", "0",
             "--method", "random"]
    cases = [(compare, "searchgym compare: error: unknown --policy 'foo'; accepted: attn, hash, hf, minilm"),
             (train, "searchgym train: error: unknown --policy 'foo'; accepted: attn, hash, hf, llm, minilm")]
    assert sorted([*ENCODERS, *OWN_ARCHITECTURES]) == list(BUILT_IN_POLICIES)
    for without_torch in (False, True):
        if without_torch:  # a core install: the registries cannot be imported; the built-in names answer
            monkeypatch.setitem(sys.modules, "searchgym.agents.policy", None)  # importing it raises ImportError
        for k, (args, line) in enumerate(cases):
            out = tmp_path / f"p{k}{without_torch}"
            assert main([*args, "--policy", "foo", "--out", str(out)]) == 2
            assert capsys.readouterr().err.strip().splitlines() == [line]
            assert not out.exists()
    monkeypatch.undo()
    assert main([*compare, "--policy", "attn", "--out", str(tmp_path / "ok")]) == 0


def _evaluate(agent: str, out, *extra: str) -> int:
    """``searchgym evaluate`` of ``agent`` on the tiny suite into ``out``, without the progress bar."""
    return main(["evaluate", "--suite", TINY_QA.id, "--agent", agent, "--out", str(out), "--no-progress", *extra])


def test_evaluate_an_agent_factory(tmp_path, capsys):
    out = tmp_path / "ev"
    assert _evaluate("harness_helpers:oracle_factory", out) == 0
    printed = capsys.readouterr().out
    assert "harness_helpers.oracle_factory on test-tiny-qa-v0 (test split, 12 tasks)" in printed
    assert "| all | 12 | 1.000 | 1.000 |" in printed
    predictions = read_jsonl(out / "predictions.jsonl")
    assert len(predictions) == 12 and all(p["success"] for p in predictions)
    config = read_json(out / "config.json")
    assert config["training_budget"] == 0 and config["options"]["agent"] == "harness_helpers:oracle_factory"
    assert (out / "DONE").exists()


def test_evaluate_passes_agent_options_and_names_unknown_agents(tmp_path, capsys):
    assert _evaluate("harness_helpers:first_candidate_factory", tmp_path / "f", "--agent-option", "index=1",
                     "--name", "first") == 0
    assert read_json(tmp_path / "f" / "config.json")["options"]["agent_options"] == {"index": 1}
    capsys.readouterr()
    assert main(["evaluate", "--suite", TINY_QA.id, "--agent", "gpt", "--out", str(tmp_path / "g")]) == 2
    assert "unknown agent 'gpt'; named agents: random, reader, oracle" in capsys.readouterr().err
    assert not (tmp_path / "g").exists()


def test_evaluate_refuses_options_the_agent_cannot_take_before_any_folder(tmp_path, capsys):
    """Before: "random_method() got an unexpected keyword argument 'x'" from inside the run, and the
    folder it left then blocked the corrected command ("holds a different run")."""
    cases = [(["--agent", "random", "--agent-option", "x=1"],
              "--agent random: got an unexpected keyword argument 'x' (from --agent-option or the endpoint flags); "
              "it accepts: no options"),
             (["--agent", "random", "--concurrency", "2"], "--agent random: got an unexpected keyword argument "
                                                           "'concurrency'"),
             (["--agent", "harness_helpers:first_candidate_factory", "--agent-option", "idx=1"],
              "got an unexpected keyword argument 'idx' (from --agent-option or the endpoint flags); it accepts: index"),
             (["--agent", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--agent-option", "foo=1"],
              "--agent openai does not take option(s) ['foo']; accepted: backoff, base_url (or --base-url), "
              "concurrency (or --concurrency)"),
             (["--agent", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--concurrency", "0"],
              "--concurrency must be >= 1 (tasks played at once), got 0")]
    for k, (extra, message) in enumerate(cases):
        out = tmp_path / f"e{k}"
        assert main(["evaluate", "--suite", TINY_QA.id, "--out", str(out), "--no-progress", *extra]) == 2
        assert message in capsys.readouterr().err
        assert not out.exists()


def test_a_factory_that_raises_is_one_error_line_naming_it(tmp_path, capsys):
    """Before: the user's exception came out as our traceback (cli -> runner -> methods -> factory)."""
    out = tmp_path / "broken"
    assert _evaluate("harness_helpers:broken_factory", out) == 2
    err = capsys.readouterr().err
    assert "--agent harness_helpers:broken_factory: the factory raised RuntimeError: the factory's own bug (at " in err
    assert "harness_helpers.py:" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (out / "DONE").exists()


def test_an_agent_whose_act_raises_is_one_error_line_naming_it(tmp_path, capsys):
    """Before: a KeyError("the agent's own bug") from the agent's act printed "error: "the agent's own bug"",
    naming neither the agent nor the exception."""
    out = tmp_path / "broken"
    assert _evaluate("harness_helpers:broken_actor", out) == 2
    err = capsys.readouterr().err
    assert ("--agent harness_helpers:broken_actor: its act raised KeyError: \"the agent's own bug\" (at "
            in err)
    assert "harness_helpers.py:" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (out / "DONE").exists()


def test_evaluate_limit_scores_the_first_tasks_only(tmp_path, capsys):
    from searchgym.suites import tasks

    out = tmp_path / "lim"
    assert main(["evaluate", "--suite", TINY_QA.id, "--agent", "harness_helpers:oracle_factory", "--out", str(out),
                 "--limit", "3", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "oracle_factory on test-tiny-qa-v0 (test split, the first 3 tasks)" in printed
    assert "| all | 3 | 1.000 | 1.000 |" in printed
    predictions = read_jsonl(out / "predictions.jsonl")
    assert [p["task_id"] for p in predictions] == [t.id for t in tasks(TINY_QA, "test")[:3]]
    result, config = read_json(out / "result.json"), read_json(out / "config.json")
    assert result["test"]["all"]["n"] == 3 and result["dev"]["all"]["n"] == 3 and config["limit"] == 3
    assert main(["evaluate", "--suite", TINY_QA.id, "--agent", "harness_helpers:oracle_factory", "--out",
                 str(tmp_path / "zero"), "--limit", "0"]) == 2
    assert "--limit must be a positive number of tasks, got 0" in capsys.readouterr().err
    assert not (tmp_path / "zero").exists()


TINY_TEAM = register_suite(Suite("test-cli-team-v0", 0, "TeamSearch-Generalists-Candidates-v0",
                                 {"team_size": 2, "max_rounds": 4}, world_size="tiny", dev_size=2, test_size=2,
                                 description="tests: a tiny generalist team for the CLI's checks"))


def test_compare_checks_a_methods_own_options_before_any_run_starts(tmp_path, capsys):
    cases = [(["--methods", "mw=mappo[critic_warmup=-1]"],
              "method 'mw': critic_warmup must be an int >= 0 (iterations that fit the critic only); got -1"),
             (["--methods", "c=coma[td_lambda=2]"], "method 'c': td_lambda must be in [0, 1]; got 2"),
             (["--methods", "i=ippo[critic_warmup=1]"], "method 'i': critic_warmup needs MAPPO's centralised critic")]
    for k, (extra, message) in enumerate(cases):
        out = tmp_path / f"run{k}"
        assert main(["compare", "--suite", TINY_TEAM.id, "--budget", "8", "--device", "cpu", "--out", str(out),
                     *extra]) == 2
        assert message in capsys.readouterr().err
        assert not out.exists()
