"""The observation's line writers and the patterns that read them back agree (searchgym.observation_format)."""

from __future__ import annotations

import searchgym
from searchgym.observation_format import (
    MEMBER_HEADER,
    MEMBER_TEAM,
    NOTE_LINE,
    STEP_LINE,
    member_header,
    note_line,
    question_line,
    question_text,
    step_block,
    team_member_header,
)


def test_each_writer_is_read_back_by_its_pattern():
    assert question_line("header\n" + question_text("Who founded Vexa Corp?") + "\nStep 1: x") == " Who founded Vexa Corp?"
    assert question_line("no question here") == "" and question_line("no question", missing="m") == "m"
    first = step_block(3, 'web_search(query="Vexa Corp")', "1. Vexa Corp ...").splitlines()[0]
    assert STEP_LINE.match(first).groups() == ("3", 'web_search(query="Vexa Corp")')
    assert NOTE_LINE.match(note_line(2, "generalist_1", "Vexa Corp: founded 1990")).groups() == \
        ("2", "generalist_1", "Vexa Corp: founded 1990")
    assert MEMBER_HEADER.match(member_header("generalist_0", 2, "generalist_0 (all tools)"))[1] == "generalist_0"
    whole = team_member_header("scout", 2, "scout (web_search); writer (calculator; submits the answer)")
    assert MEMBER_TEAM.match(whole).groups() == ("scout", "scout (web_search); writer (calculator; submits the answer)")


def test_a_team_observation_is_read_by_the_patterns():
    env = searchgym.make("TeamSearch-Generalists-Candidates-v0", world_size="tiny").unwrapped
    observations, _ = env.reset(seed=0)
    agent = env.agents[0]
    observations, *_ = env.step({a: 0 for a in env.agents})
    lines = observations[agent]["text"].splitlines()
    assert MEMBER_HEADER.match(lines[0])[1] == agent
    name, team = MEMBER_TEAM.match(lines[0]).groups()
    assert name == agent and team == "; ".join(role.describe() for role in env.roles.values())
    assert question_line(observations[agent]["text"]).strip() == env.sessions[agent].task.question
    assert [STEP_LINE.match(line)[1] for line in lines if STEP_LINE.match(line)] == ["1"]
