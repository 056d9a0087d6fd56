"""A number out of range is one line naming the flag the user typed, before anything is printed or made.

Before: `play`/`demo --world-seed -1` said "world_seed must be ..." (the env keyword, not the flag);
`serve --port 70000` and `--limit 0` printed "recording the oracle replies ..." and then "port must be
..." / "limit must be ..."; `world stats --seed 99999999999999999999` described a world of a seed no
env accepts (they take 0..2**63-1), and `world stats --size 1000000000` began generating a world
no env can load."""

from __future__ import annotations

import pytest

from searchgym.cli import main

TOP = 2**63 - 1


@pytest.mark.parametrize(("argv", "said"), [
    (["play", "SearchQA-v0", "--world-seed", "-1"],
     f"searchgym play: error: --world-seed must be an int in 0..{TOP} (a world seed), got -1"),
    (["demo", "--world-seed", str(TOP + 1)],
     f"searchgym demo: error: --world-seed must be an int in 0..{TOP} (a world seed), got {TOP + 1}"),
    (["world", "stats", "--seed", "99999999999999999999"],
     f"searchgym world: error: --seed must be an int in 0..{TOP} (a world seed), got 99999999999999999999"),
    (["world", "stats", "--size", "1000000000"],
     ("searchgym world: error: --size must be one of tiny, small, medium, large, xl or an int scale in 4..9000, "
      "got 1000000000")),
    (["world", "stats", "--size", "3"],
     "searchgym world: error: --size must be one of tiny, small, medium, large, xl or an int scale in 4..9000, got 3"),
    (["world", "stats", "--size", "huge"],
     ("searchgym world: error: --size must be one of tiny, small, medium, large, xl or an int scale in 4..9000, "
      "got 'huge'")),
    *[(["world", "stats", "--size", typed],  # before: "error: invalid literal for int() with base 10: '²'"
       ("searchgym world: error: --size must be one of tiny, small, medium, large, xl or an int scale in 4..9000, "
        f"got {typed!r}")) for typed in ("²", "①", "2⁵")],
    (["serve", "--suite", "searchqa-text-v2", "--port", "70000"],
     "searchgym serve: error: --port must be an int in 0..65535 (0: any free port), got 70000"),
    (["serve", "--suite", "searchqa-text-v2", "--limit", "0"],
     "searchgym serve: error: --limit must be an int >= 1 (tasks per split), got 0"),
])
def test_an_out_of_range_number_names_its_flag(argv, said, capsys, serve_must_refuse):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() == said and captured.out == ""


@pytest.mark.parametrize(("argv", "said"), [
    (["train", "--method", "random", "--world-size", "tiny", "--seed", str(TOP + 1)],
     f"searchgym train: error: --seed must be an int <= {TOP} (the run's seed), got {TOP + 1}"),
    (["evaluate", "--suite", "quick-v2", "--agent", "random", "--seed", "99999999999999999999999"],
     f"searchgym evaluate: error: --seed must be an int <= {TOP} (a seed), got 99999999999999999999999"),
    (["compare", "--suite", "quick-v2", "--methods", "random", "--seeds", "100000000"],
     ("searchgym compare: error: --seeds 100000000 is more than 1000 seeds; give a count of 1..1000 or a comma list "
      "of seeds")),
    (["compare", "--suite", "quick-v2", "--methods", "random", "--seeds", "99999999999999999999999,"],
     f"searchgym compare: error: --seeds takes at most 1000 seeds, each in 0..{TOP}, got '99999999999999999999999,'"),
])
def test_seeds_past_what_numpy_and_torch_take_are_refused_naming_the_flag(argv, said, capsys, tmp_path,
                                                                         monkeypatch):
    """Before: a seed of 10**23 ended in "Overflow when unpacking long long" (no flag named), in a failed
    run that said to re-run; ``--seeds 100000000`` held gigabytes for minutes, silently."""
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == said
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", [["demo"], ["play", "SearchQA-v0"], ["train", "--method", "random", "--budget", "8"]])
@pytest.mark.parametrize("typed", ["3", "²", "9001", "1000000000"])
def test_a_world_size_out_of_range_names_the_flag(argv, typed, capsys, tmp_path, monkeypatch):
    """Before: "world_size must be ..." (the env keyword, not the flag the user typed); a superscript
    digit (a digit to str.isdigit, not to int) was "invalid literal for int() with base 10"; ``train``
    took any int scale, and --world-size 99999 generated a world no env loads until it was killed."""
    monkeypatch.chdir(tmp_path)
    out = ["--out", str(tmp_path / "run")] if argv[0] == "train" else []
    assert main([*argv, "--world-size", typed, *out]) == 2
    assert list(tmp_path.iterdir()) == []
    shown = typed if typed.isascii() else repr(typed)
    assert capsys.readouterr().err.strip() == (f"searchgym {argv[0]}: error: --world-size must be one of tiny, small, "
                                               f"medium, large, xl or an int scale in 4..9000, got {shown}")


@pytest.mark.parametrize("stall", ["-1", "nan", "inf", "1e308", "86401"])
def test_serve_refuses_a_bad_stall_before_recording_anything(stall, capsys, serve_must_refuse):
    """Before: "recording the stall replies ..." ran first, then the endpoint said "stall must be ..."."""
    assert main(["serve", "--suite", "searchqa-text-v2", "--behaviour", "stall", "--stall", stall]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip().startswith(
        "searchgym serve: error: --stall must be a number of seconds in 0..86400 (how long each reply waits), got ")


def test_negative_retries_are_refused_before_the_progress_bar(capsys, tmp_path):
    """Before: ``compare --executor ray --retries -1`` drew the env-steps bar, then refused."""
    pytest.importorskip("ray")
    assert main(["compare", "--suite", "quick-v2", "--methods", "random", "--executor", "ray", "--retries", "-1",
                 "--out", str(tmp_path / "out")]) == 2
    captured = capsys.readouterr()
    assert captured.err == ("searchgym compare: error: --retries must be a non-negative int (extra attempts per "
                            "failed run), got -1\n") and captured.out == ""
    assert not (tmp_path / "out").exists()
