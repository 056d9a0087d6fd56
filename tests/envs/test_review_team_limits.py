"""The team env at the edges of its settings, as a reviewer met them: a short candidate list keeps
``wait`` and room for tool calls; a seed given as a NumPy integer is the int it is."""

from __future__ import annotations

import numpy as np
import pytest

import searchgym


def _after_a_search(max_candidates: int) -> list:
    env = searchgym.make("TeamSearch-Candidates-v0", world_size="tiny", max_candidates=max_candidates)
    _, infos = env.reset(seed=0)

    def pick(agent, wanted):
        return next(i for i, c in enumerate(infos[agent]["candidates"]) if wanted(c))

    _, _, _, _, infos = env.step({"lead": pick("lead", lambda c: c.kind == "wait"),
                                  "searcher": pick("searcher", lambda c: c.kind == "tool"),
                                  "analyst": pick("analyst", lambda c: c.kind == "wait")})
    return infos["searcher"]["candidates"]


@pytest.mark.parametrize("max_candidates", [2, 3, 4, 8, 12, 13])
def test_wait_stays_admissible_and_posts_take_under_half_a_short_list(max_candidates):
    """Before: with max_candidates <= 12 a searcher's list after one search was posts only, so it could
    not wait (documented as always admissible), search or look anything up."""
    kinds = [c.kind for c in _after_a_search(max_candidates)]
    assert "wait" in kinds and kinds.count("post") <= (max_candidates - 1) // 2
    assert len(kinds) == max_candidates and "tool" in kinds


def test_the_default_list_still_offers_up_to_twelve_posts():
    assert 0 < [c.kind for c in _after_a_search(48)].count("post") <= 12


@pytest.mark.parametrize("env_id", ["TeamSearch-Candidates-v0", "GroupSearch-Candidates-v0", "TeamSearch-Numeric-v0"])
def test_a_numpy_integer_seed_is_the_int_it_is(env_id):
    """Before: gymnasium.error.Error "Seed must be a python integer" from deep in the reset, though the
    envs take NumPy integers for their sizes (a sweep's np.arange)."""
    first = searchgym.make(env_id, world_size="tiny")
    second = searchgym.make(env_id, world_size="tiny")
    obs_numpy, _ = first.reset(seed=np.arange(3)[1])
    obs_int, _ = second.reset(seed=1)
    agent = first.agents[0]
    assert str(obs_numpy[agent]) == str(obs_int[agent])
    for bad in (1.5, True, -1):
        with pytest.raises(ValueError, match=r"seed must be a non-negative int \(NumPy integers too\), got "):
            first.reset(seed=bad)


def test_a_long_tool_result_gives_way_to_the_rounds_notes():
    """Before: the notes were appended after a result already cut to max_obs_chars and cut away with it,
    while the env counted them as read: the searcher never saw the lead's note."""
    env = searchgym.make("TeamSearch-v0", world_size="tiny", max_obs_chars=1500)
    env.reset(seed=0)
    obs, *_ = env.step({"lead": "<post>Released in 1970, so the answer is 61</post>",
                        "searcher": '<tool_call>{"name": "web_search", "arguments": {"query": "film released", '
                                    '"k": 10}}</tool_call>',
                        "analyst": "<wait/>"})
    text = obs["searcher"]["text"]
    assert len(text) == 1500 and text.startswith("<tool_response>\n[1] ")  # the result, cut
    assert text.endswith("\n\nNew notes on the blackboard:\n[round 1] lead: Released in 1970, so the answer is 61")


def test_a_short_first_observation_still_ends_with_the_blackboard():
    """Before: at max_obs_chars=400 the prompt filled the text and "Blackboard: (empty)" was cut off."""
    env = searchgym.make("TeamSearch-v0", world_size="tiny", max_obs_chars=400)
    obs, _ = env.reset(seed=0)
    text = obs["searcher"]["text"]
    assert len(text) <= 400 and text.endswith("?\nBlackboard: (empty)") and "\nQuestion: " in text


@pytest.mark.parametrize("max_obs_chars", [120, 80, 66, 40, 19, 1])
def test_a_small_first_observation_keeps_the_question_before_the_board_and_the_header(max_obs_chars):
    """As candidate mode cuts, and as the single-agent prompt does: the question first, then the
    board, then the header and tools. Before: the board's room came first, so at 80 characters the
    question was cut, and below 20 only the start of "You are lead in a team" was left."""
    question = searchgym.make("SearchQA-v0", world_size="tiny", max_obs_chars=6000).reset(seed=0)[0]
    question = question[question.index("\nQuestion: "):]
    assert len(question) == 66  # the tiny world's first question, whole
    team = searchgym.make("TeamSearch-v0", world_size="tiny", max_obs_chars=max_obs_chars)
    line = question[1:]  # without the newline that parts it from the text before it
    for agent, obs in team.reset(seed=0)[0].items():
        text, kept = obs["text"], line[:max_obs_chars]
        # the line alone where no character of text fits before its newline
        assert len(text) == (len(line) if max_obs_chars == len(line) + 1 else max_obs_chars), agent
        if max_obs_chars >= len(question) + len("\nBlackboard: (empty)"):
            assert text.endswith(question + "\nBlackboard: (empty)") and text.startswith(f"You are {agent}")
        else:  # no room for the board's line after the question: the question, cut only when it alone is longer
            assert text.endswith(kept) and "Blackboard" not in text
