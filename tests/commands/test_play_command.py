"""`searchgym play` as a new user types it: every id of `searchgym list` can be played."""

from __future__ import annotations

import io

import pytest

from searchgym.cli import build_parser
from searchgym.commands import play as play_command

LOOKUP = "lookup-00009"  # tiny world: "Where did Braris Nymaskand study?"


@pytest.mark.parametrize("env_id", ["GroupSearch-Numeric-v0", "TeamSearch-Numeric-v0"])
def test_the_numeric_multi_agent_ids_are_played_by_candidate_number(env_id) -> None:
    """Before: AttributeError: 'NumericParallel' object has no attribute 'config' (a traceback),
    while SearchQA-Numeric-v0 was played as its candidate env."""
    args = build_parser("play").parse_args(["play", env_id, "--world-size", "tiny", "--task-id", LOOKUP])
    out = io.StringIO()
    assert play_command.run(args, stdin=io.StringIO("0\n" * 12), stdout=out) == 0
    text = out.getvalue()
    assert "choose 0-" in text and "(reward " in text and "Episode over" in text


@pytest.mark.parametrize("typed", ["²", "①", "⁵"])
def test_a_digit_like_character_is_not_a_listed_number(typed) -> None:
    """Before: "searchgym play: error: invalid literal for int() with base 10: '²'" ended the game
    (str.isdigit() is true of superscripts and circled digits, which int() refuses)."""
    args = build_parser("play").parse_args(["play", "SearchQA-Candidates-v0", "--world-size", "tiny",
                                            "--task-id", LOOKUP])
    out = io.StringIO()
    assert play_command.run(args, stdin=io.StringIO(f"{typed}\n0\n:q\n"), stdout=out) == 0
    text = out.getvalue()
    assert f"'{typed}' is not a listed number" in text and text.count("(reward ") == 1 and text.rstrip().endswith("bye")


def test_a_line_that_is_not_utf8_does_not_end_the_game() -> None:
    """Before, under a strict UTF-8 locale (en_US.UTF-8): "searchgym play: error: 'utf-8' codec can't
    decode byte 0xff in position 0: invalid start byte" after the first prompt, and the game was over."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    result = subprocess.run([sys.executable, "-c", "import sys; from searchgym.cli import main; sys.exit(main())",
                             "play", "SearchQA-v0", "--world-size", "tiny", "--task-id", LOOKUP],
                            input=b"\xff\xfe hello\n:q\n", capture_output=True, env=env, timeout=120, check=False)
    out = result.stdout.decode("utf-8", "replace")
    assert result.returncode == 0 and result.stderr == b"", result.stderr[-500:]
    assert "Could not read your action" in out and out.rstrip().endswith("bye")


@pytest.mark.parametrize("env_id", ["SearchQA-v0", "TeamSearch-Candidates-v0"])
def test_a_task_id_of_another_split_than_split_is_refused_before_playing(env_id) -> None:
    """Before: `--split test --task-id lookup-00009` (a train task) silently played the train task:
    the env's task_id option picks a task from any split."""
    args = build_parser("play").parse_args(["play", env_id, "--world-size", "tiny", "--split", "test",
                                            "--task-id", LOOKUP])
    out = io.StringIO()
    with pytest.raises(ValueError, match=f"--task-id {LOOKUP} is a train task, not a test one; give --split train"):
        play_command.run(args, stdin=io.StringIO("0\n"), stdout=out)
    assert out.getvalue() == ""
    args = build_parser("play").parse_args(["play", env_id, "--world-size", "tiny", "--split", "train",
                                            "--task-id", LOOKUP])
    assert play_command.run(args, stdin=io.StringIO(":q\n"), stdout=io.StringIO()) == 0
