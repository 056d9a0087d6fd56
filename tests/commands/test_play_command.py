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
