"""The reader's memoised candidate-line parser and plain names give what parsing afresh gives,
on every candidate line of real team episodes; a bad line still fails every time."""

from __future__ import annotations

import json
import re

import pytest
from searchgym.baselines.reader_observation import _parse_candidate_line, parse_candidate, plain_name
from searchgym.baselines.team_random import TeamRandom

from searchgym.envs.team import TeamSearchEnv


def test_memoised_candidate_lines_and_names_equal_fresh_parses():
    env = TeamSearchEnv(roles="roles", action_mode="candidates", world_size="small")
    team, lines = TeamRandom(seed=1), []
    for seed in range(5):
        observations, _ = env.reset(seed=seed)
        while env.agents:
            lines += [line for obs in observations.values() for line in obs["candidates"] if line]
            observations, *_ = env.step(team.choose_actions(env))
    for index, line in enumerate(lines + lines):  # the second pass is read from the memo
        fresh = _parse_candidate_line.__wrapped__(line)
        parsed = parse_candidate(index, line)
        assert (parsed.kind, parsed.args, parsed.provenance) == fresh and parsed.index == index
        for name in (parsed.arg(), parsed.provenance.partition(" | ")[0]):
            assert plain_name(name) == re.sub(r" \([^()]*\)$", "", name.strip())
    assert len(set(lines)) > 100
    assert plain_name("Mara Quell (film director)") == "Mara Quell" == plain_name(" Mara Quell ")


def test_a_bad_candidate_line_is_none_or_an_error_each_time():
    for _ in range(2):
        assert parse_candidate(0, "not a call") is None
        assert parse_candidate(1, 'answer("unterminated)') is None
        with pytest.raises(json.JSONDecodeError):
            parse_candidate(2, 'web_search(query="bad \\q escape")')
