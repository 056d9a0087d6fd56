"""What the candidate policy's embedding reads of an observation: the question, the actions so
far and, on a team, the blackboard's notes (``[round r] author: text``, docs/OBSERVATIONS.md)."""

from __future__ import annotations

import numpy as np

from searchgym.agents.policy import state_of
from searchgym.envs.team import TeamSearchEnv


def test_result_bodies_are_dropped_and_actions_and_notes_kept() -> None:
    text = "\n".join(["You are searcher in a team.", "Question: Who founded Tistel Group?",
                      "Step 1: web_search(query='Tistel Group')", "Tistel Group is a company founded in 1962 ...",
                      "Blackboard:", "[round 1] lead: look up the founder", "[round 2] analyst: 1962"])
    kept = state_of(text).splitlines()
    assert "Tistel Group is a company founded in 1962 ..." not in kept
    assert kept[-3:] == ["Blackboard:", "[round 1] lead: look up the founder", "[round 2] analyst: 1962"]
    assert "Step 1: web_search(query='Tistel Group')" in kept


def test_a_teams_posted_note_reaches_the_embedding_text() -> None:
    env = TeamSearchEnv(world_size="tiny", action_mode="candidates", max_rounds=6)
    rng = np.random.default_rng(0)
    observations, infos = env.reset(seed=0)
    for _ in range(6):
        if not env.agents:
            break
        actions = {}
        for agent in env.agents:
            posts = [i for i, c in enumerate(infos[agent]["candidates"]) if getattr(c, "kind", "") == "post"]
            actions[agent] = posts[0] if posts else int(rng.choice(np.flatnonzero(infos[agent]["action_mask"])))
        observations, _, _, _, infos = env.step(actions)
        notes = [line for a in env.agents for line in observations[a]["text"].splitlines() if line.startswith("[round ")]
        if notes:
            agent = next(a for a in env.agents if "[round " in observations[a]["text"])
            assert any(line.startswith("[round ") for line in state_of(observations[agent]["text"]).splitlines())
            return
    raise AssertionError("no agent posted a note in 6 rounds")
