"""The command line as a new user meets it: help with defaults, a bare `train`, `--no-progress`."""

from __future__ import annotations

import pytest

from searchgym.cli import build_parser, main


def test_top_level_help_is_for_users(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "Start here:" in out and "searchgym demo" in out and "searchgym compare --suite ID" in out
    assert "Each sub-command lives in its own module" not in out  # the developer docstring stays in the code


@pytest.mark.parametrize("command", ["train", "compare", "demo", "evaluate", "play", "world", "serve"])
def test_every_option_with_a_default_shows_it(command, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # no line wrapping inside a default
    parser = build_parser(command)
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    text = sub.format_help()
    for action in sub._actions:
        if action.option_strings and action.default not in (None, False) and action.dest != "help":
            assert "default" in (action.help or "") or f"(default: {action.default})" in " ".join(text.split()), \
                f"{command} {action.option_strings[-1]} does not show its default"


def test_train_help_offers_no_none_difficulty(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--difficulty {easy,hard}" in out and "(default: 20000)" in out and "None" not in out.split("options:")[0]


def test_bare_train_prints_the_plan_and_starts_nothing(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["train"]) == 0
    out = capsys.readouterr().out
    assert "cw_grpo on SearchQA-Candidates-Easy-v0" in out and "20000 training env steps" in out
    assert "Nothing started" in out and "--budget" in out and "searchgym train --start" in out
    assert not (tmp_path / "runs").exists()


def test_train_rejects_a_bad_difficulty_with_the_choices(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["train", "--difficulty", "None"])
    err = capsys.readouterr().err.replace("'easy'", "easy").replace("'hard'", "hard")  # quoting differs by Python
    assert "invalid choice: 'None' (choose from easy, hard)" in err


@pytest.mark.parametrize("extra, message", [
    (["--options", '{"lr": "abc"}'], "method 'cw_grpo': option 'lr' of cw_grpo takes a number, got \"abc\""),
    (["--options", '{"group_size": 0}'], "method 'cw_grpo': group_size must be an integer >= 1; got 0"),
    # before: eval_tasks 0 ran, and every dev score of the curve was NaN (-1 silently dropped the last dev task)
    (["--options", '{"eval_tasks": 0}'], "method 'cw_grpo': eval_tasks must be an integer >= 1 (dev tasks of the "
                                         "curve) or null for every dev task; got 0"),
    (["--options", '{"eval_tasks": -1}'], "method 'cw_grpo': eval_tasks must be an integer >= 1"),
    (["--options", '{"lr_rate": 0.1}'], "method 'cw_grpo': unknown option 'lr_rate' for cw_grpo; accepted: "),
    (["--policy", "bert"], "unknown --policy 'bert'; accepted: attn, hash, hf, llm, minilm"),
])
def test_train_refuses_bad_settings_before_the_run_folder_is_made(tmp_path, capsys, extra, message) -> None:
    """Before: the folder was made, the run failed inside ("'<=' not supported between instances of
    'float' and 'str'"; group_size=0 an IndexError traceback), and the corrected command was then
    refused because the folder "holds a different run"."""
    out = tmp_path / "t"
    assert main(["train", "--env", "SearchQA-Candidates-v0", "--world-size", "tiny", "--budget", "0",
                 "--test-size", "2", "--out", str(out), *extra]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


QUICK_TRAIN = ["--env", "SearchQA-Candidates-v0", "--world-size", "tiny", "--budget", "0", "--test-size", "2",
               "--method", "random"]
UNKNOWN_ENV = "unknown env id 'Nope-v0'; accepted: GroupSearch-Candidates-v0, GroupSearch-Numeric-v0, "


@pytest.mark.parametrize("argv, message", [
    (["--env", "Nope-v0", "--start"], UNKNOWN_ENV),
    (["--env", "Nope-v0"], UNKNOWN_ENV),
    ([*QUICK_TRAIN, "--seed", "-2"], "--seed must be an int >= 0 (the run's seed), got -2"),
    ([*QUICK_TRAIN, "--world-seed", "-1"], "--world-seed must be an int in 0..9223372036854775807 (a world seed), got -1"),
    ([*QUICK_TRAIN, "--budget", "-5"], "--budget must be an int >= 0 (training env steps), got -5"),
    ([*QUICK_TRAIN, "--test-size", "0"], "--test-size must be an int >= 1 (test tasks), got 0"),
    ([*QUICK_TRAIN, "--world-size", "huge"], "--world-size must be one of tiny, small, medium, large, xl or an int "
                                             "scale in 4..9000, got 'huge'"),
    ([*QUICK_TRAIN, "--families", "lookup,nosuch"], "--families: unknown task family 'nosuch'; accepted: lookup, "),
    ([*QUICK_TRAIN, "--device", "gpu"], "unknown device 'gpu'; accepted: auto, cpu, cuda or cuda:N"),
    ([*QUICK_TRAIN, "--options", "[1]"], "--options must be a JSON object"),
    # no hard lookups: before, the run failed after making its folder (a .lock alone, left behind)
    ([*QUICK_TRAIN, "--families", "lookup", "--difficulty", "hard"],
     "has no train tasks (families=('lookup',), difficulty=hard); choose other --families or --difficulty"),
])
def test_train_checks_its_settings_before_printing_the_plan(tmp_path, monkeypatch, capsys, argv, message) -> None:
    """Before: the plan ("searchgym train: cw_grpo on Nope-v0 ...") was printed, then the error; an unknown
    env id or --seed -2 also left runs/train/config.json, which refused the corrected command ("holds a
    different run"); --budget -5 trained and wrote DONE; --families nosuch said "has no train tasks"."""
    monkeypatch.chdir(tmp_path)
    assert main(["train", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("searchgym train: error: ") and message in captured.err
    assert list(tmp_path.iterdir()) == []  # no run folder


def test_train_accepts_no_progress(tmp_path, capsys) -> None:
    """Before: "searchgym train: error: unrecognized arguments: --no-progress" (demo, compare and evaluate
    take it), and train always drew its progress bars."""
    assert main(["train", *QUICK_TRAIN, "--out", str(tmp_path / "bars")]) == 0
    assert "random/seed0 test" in capsys.readouterr().err  # the bars the flag turns off
    assert main(["train", *QUICK_TRAIN, "--out", str(tmp_path / "quiet"), "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "random on SearchQA-Candidates-v0: test success" in captured.out
    assert "\r" not in captured.out + captured.err and "it/s" not in captured.err and "seed0 test" not in captured.err


def test_demo_accepts_no_progress(capsys) -> None:
    assert main(["demo", "--no-progress", "--world-size", "tiny", "--split", "dev"]) == 0
    out = capsys.readouterr().out
    assert "oracle" in out and "random" in out and "\r" not in out


@pytest.mark.parametrize(("action", "text"), [("verify", "submission files (JSON, as `submit` writes them)"),
                                              ("retrain", "a submission file (JSON) whose recorded run config")])
def test_leaderboard_file_arguments_have_help(capsys, action, text) -> None:
    """Before: ``files`` and ``file`` were listed under "positional arguments" with no text."""
    with pytest.raises(SystemExit):
        main(["leaderboard", action, "--help"])
    positional = capsys.readouterr().out.split("positional arguments:")[1].split("options:")[0]
    assert " ".join(positional.split()).startswith(f"FILE {text}")


@pytest.mark.parametrize(("argv", "prog", "unknown"), [
    (["compare", "--suite", "s", "--out", "o", "--nosuch", "1"], "searchgym compare", "--nosuch 1"),
    (["leaderboard", "verify", "a.json", "--nosuch"], "searchgym leaderboard verify", "--nosuch"),
    (["list", "--x"], "searchgym list", "--x"),
])
def test_an_unknown_flag_is_the_commands_error_under_its_usage(capsys, argv, prog, unknown) -> None:
    """Before: "usage: searchgym [-h] COMMAND ..." then "searchgym: error: unrecognized arguments"."""
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and err.startswith(f"usage: {prog} [-h]")
    assert err.strip().splitlines()[-1] == f"{prog}: error: unrecognized arguments: {unknown}"
