"""`searchgym play`: scripted games through an input stream, for single-agent ids, groups and teams."""

from __future__ import annotations

import io

import pytest

from searchgym.cli import build_parser
from searchgym.commands import play as play_command
from searchgym.commands.play import play

LOOKUP = "lookup-00009"  # tiny world: "Where did Braris Nymaskand study?"
ANSWER = "Kawous Institute of Technology"


def game(env_id: str, script: str, **kwargs) -> str:
    out = io.StringIO()
    code = play(env_id, task_id=kwargs.pop("task_id", LOOKUP), world_size="tiny", stdin=io.StringIO(script),
                stdout=out, **kwargs)
    assert code == 0
    return out.getvalue()


def test_single_agent_text_game():
    out = game("SearchQA-Tags-v0", f"\n<lookup>Braris Nymaskand</lookup>\n<answer>{ANSWER}</answer>\n")
    assert "Question: Where did Braris Nymaskand study?" in out
    assert "alma mater: Kawous Institute of Technology" in out
    assert f"Answer: '{ANSWER}'  success=True  score=1.00  your total reward=+0.980" in out


def test_single_agent_candidate_game_rejects_unlisted_numbers_and_quits():
    out = game("SearchQA-Candidates-v0", "99\nfoo\n:help\n0\n:q\n")
    assert "'99' is not a listed number" in out and "'foo' is not a listed number" in out
    assert ":q quits" in out and out.count("(reward ") == 1 and out.rstrip().endswith("bye")
    assert "Episode over" not in out


def test_input_ending_mid_game_stops_cleanly():
    out = game("SearchQA-v0", "")
    assert "(input ended)" in out and "bye" in out


def test_team_game_as_the_lead_with_oracle_teammates():
    out = game("TeamSearch-v0", "<wait/>\n<wait/>\n<answer>" + ANSWER + "</answer>\n", role="lead")
    assert "you are lead, the others are oracle" in out and "Blackboard: (empty)" in out
    assert "[round 2] searcher: Braris Nymaskand (person): alma mater: Kawous Institute of Technology" in out
    assert "success=True" in out


def test_team_game_as_the_searcher_in_candidate_mode():
    out = game("TeamSearch-Candidates-v0", "0\n" * 20, role="searcher", others="random", seed=1)
    assert "you are searcher, the others are random" in out
    assert "wait()  <- let teammates work this round" in out and "share a line of your" in out
    assert "Episode over" in out


def test_group_game_runs_the_others_to_the_end():
    out = game("GroupSearch-v0", f"<answer>{ANSWER}</answer>\n", others="random")
    assert "you are agent_0" in out and "success=True" in out


def test_bad_role_and_cli_wiring():
    with pytest.raises(ValueError, match="unknown role 'boss'.*lead, searcher, analyst"):
        game("TeamSearch-v0", "", role="boss")
    with pytest.raises(ValueError, match="--role is for team and group ids"):
        game("SearchQA-v0", "", role="lead")
    args = build_parser("play").parse_args(["play", "TeamSearch-Generalists-v0", "--role", "generalist_1",
                                            "--others", "random", "--world-size", "tiny", "--task-id", LOOKUP])
    out = io.StringIO()
    assert play_command.run(args, stdin=io.StringIO(":q\n"), stdout=out) == 0
    assert "you are generalist_1, the others are random" in out.getvalue()


def test_every_advertised_format_is_accepted_on_a_hermes_env():
    out = game("SearchQA-v0", f":help\n<lookup>Priovysh Tiopio</lookup>\n<answer>{ANSWER}</answer>\n")
    assert "<search>search query</search>" in out and "<tool_call>" in out  # both formats advertised
    assert "alma mater: Stowehin Institute of Technology" in out  # the tag was run as a tool call
    assert "Could not read your action" not in out and "success=True" in out


def test_a_hermes_call_is_accepted_on_a_tags_env():
    call = '<tool_call>{"name": "knowledge_base", "arguments": {"entity": "Priovysh Tiopio"}}</tool_call>'
    out = game("SearchQA-Tags-v0", f"{call}\n<answer>{ANSWER}</answer>\n")
    assert "alma mater: Stowehin Institute of Technology" in out and "success=True" in out


def test_the_screen_names_the_tools_without_json_and_one_accepted_actions_header():
    out = game("SearchQA-v0", ":q\n")
    assert '"parameters"' not in out and "Tools: web_search (" in out
    assert out.count("Accepted actions") == 1
    assert "calculator (Evaluate an arithmetic expression, e.g. '(1200 + 3400) / 2' or 'sqrt(2) * 10')" in out
    assert "knowledge_base (Look up the structured facts the knowledge base holds about an entity " \
           "(person, company, city, ...))" in out  # whole first sentences, not cut at the first dot


def test_unreadable_input_still_gets_the_env_message():
    out = game("SearchQA-v0", "hello there\n:q\n")
    assert "Could not read your action" in out
