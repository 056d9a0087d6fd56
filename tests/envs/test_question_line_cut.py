"""A small ``max_obs_chars`` keeps the question line whole where it fits, and the first observation
never starts with the newline that parts the question from the text before it.

Before: the newline was counted in the question line's room, so ``max_obs_chars`` of the question
line's length cut its last character ("...released" without "?"), and 10 gave "\\nQuestion:"."""

from __future__ import annotations

import pytest

import searchgym



def first_text(env_id: str, max_obs_chars: int) -> str:
    observation, _ = searchgym.make(env_id, world_size="tiny", max_obs_chars=max_obs_chars).reset(seed=0)
    if isinstance(observation, dict) and "text" not in observation:  # a team: its first member's
        observation = next(iter(observation.values()))
    return observation["text"] if isinstance(observation, dict) else observation


@pytest.mark.parametrize("env_id", ["SearchQA-v0", "TeamSearch-v0"])
def test_the_question_line_is_cut_only_below_its_own_length(env_id):
    whole = first_text(env_id, 6000)
    line = whole[whole.rindex("Question: "):].split("\n")[0]
    for limit in (1, 10, len(line) - 1):
        assert first_text(env_id, limit) == line[:limit]
    for limit in (len(line), len(line) + 1):  # no room for text before it: the line alone, whole
        assert first_text(env_id, limit) == line
    text = first_text(env_id, len(line) + 2)  # one character of the text, the newline, the line
    assert len(text) == len(line) + 2 and text.endswith("\n" + line) and text[0] != "\n"


def test_the_default_prompt_ends_with_the_question_after_a_newline():
    text = first_text("SearchQA-v0", 6000)
    assert "\nQuestion: " in text and not text.startswith("\n")
