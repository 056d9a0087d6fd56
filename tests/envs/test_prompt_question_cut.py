"""What a small ``max_obs_chars`` cuts from the text-mode prompt, as docs/OBSERVATIONS.md says:
the tool list first; the question only when its own line does not fit (to its first characters)."""

from __future__ import annotations

import searchgym


def question_line(env_id: str = "SearchQA-v0") -> str:
    env = searchgym.make(env_id, world_size="tiny")
    obs, _ = env.reset(seed=0)
    return obs[obs.index("\nQuestion: "):]


def test_a_max_obs_chars_that_holds_the_question_keeps_all_of_it_and_cuts_the_tools() -> None:
    line = question_line()
    obs, _ = searchgym.make("SearchQA-v0", world_size="tiny", max_obs_chars=len(line) + 20).reset(seed=0)
    assert obs.endswith(line) and len(obs) == len(line) + 20 and "Tools:" not in obs


def test_a_max_obs_chars_below_the_question_line_keeps_its_start() -> None:
    line = question_line()
    obs, _ = searchgym.make("SearchQA-v0", world_size="tiny", max_obs_chars=50).reset(seed=0)
    assert len(line) > 50 and obs == line.lstrip("\n")[:50]  # the question's start, no newline before it
