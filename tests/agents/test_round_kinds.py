"""The kind of a round, read from the candidate a step chose."""

from __future__ import annotations

import numpy as np
from searchgym.agents import Step
from searchgym.agents.round_kinds import EVIDENCE_KINDS, kind_of_text, round_kind


def test_kind_of_text_reads_the_name_before_the_parenthesis():
    assert kind_of_text('calculator(expression="2 * 3")  <- compute') == "calculator"
    assert kind_of_text("current_time()  <- the world's clock") == "current_time"
    assert kind_of_text('answer("Paris")') == "answer"
    assert kind_of_text("") == "unknown"  # padding
    assert kind_of_text("no call here") == "unknown"
    assert kind_of_text("two words(x)") == "unknown"


def test_round_kind_of_a_step(make_obs):
    obs = make_obs("Q", ['web_search(query="a")', "wait()  <- let teammates work"])
    step = Step(obs, 1, 0.0, 0.0, 0.0, False, obs["action_mask"])
    assert round_kind(step) == "wait"
    assert round_kind(Step({"text": "Q"}, 0, 0.0, 0.0, 0.0, False, np.ones(1))) == "unknown"
    assert {"web_search", "knowledge_base", "current_time"} <= EVIDENCE_KINDS
    assert not {"calculator", "post", "wait", "answer"} & EVIDENCE_KINDS
