"""The multi-agent Numeric ids: ``unwrapped`` is the searchgym env inside (so the env's own hints
work on them), and their errors speak of action_mode and offer only keywords that can work."""

from __future__ import annotations

import pytest

import searchgym
from searchgym.wrappers import NumericParallel


@pytest.mark.parametrize("env_id", ["GroupSearch-Numeric-v0", "TeamSearch-Numeric-v0"])
def test_the_unknown_task_hint_works_on_the_numeric_multi_agent_ids(env_id) -> None:
    """Before: ``env.unwrapped`` was the wrapper itself, so the hint was an AttributeError ('tasks')."""
    for env in (searchgym.make_parallel(env_id, world_size="tiny"), searchgym.make_aec(env_id, world_size="tiny")):
        with pytest.raises(ValueError, match=r"env\.unwrapped\.tasks\.tasks\(split\) lists a split's"):
            env.reset(seed=0, options={"task_id": "nope"})
        task_ids = [t.id for t in env.unwrapped.tasks.tasks("dev")]
        assert task_ids and not isinstance(env.unwrapped, NumericParallel)
        env.reset(seed=0, options={"task_id": task_ids[0]})
        assert env.unwrapped.task.id == task_ids[0]


def test_the_wrappers_own_spaces_are_still_the_numeric_ones() -> None:
    env = searchgym.make_parallel("TeamSearch-Numeric-v0", world_size="tiny")
    agent = env.possible_agents[0]
    assert env.observation_space(agent).shape == (env.layout.size,)
    assert env.unwrapped.observation_space(agent) is not env.observation_space(agent)
    assert searchgym.registry.base_env(env) is env.unwrapped


@pytest.mark.parametrize("env_id", ["GroupSearch-Numeric-v0", "TeamSearch-Numeric-v0"])
def test_a_text_action_mode_is_refused_naming_action_mode(env_id) -> None:
    """Before: "NumericParallel needs a candidate-mode searchgym env (e.g. ...)", no word of action_mode."""
    with pytest.raises(ValueError, match=r"action_mode='candidates'.*this env's action_mode is 'text'"):
        searchgym.make(env_id, world_size="tiny", action_mode="text")


@pytest.mark.parametrize("env_id", ["GroupSearch-Numeric-v0", "TeamSearch-Numeric-v0", "SearchQA-Numeric-v0"])
def test_a_misspelled_keyword_is_not_offered_action_mode_or_tool_format(env_id) -> None:
    """Before: the accepted list offered action_mode and tool_format, which cannot change a Numeric env."""
    with pytest.raises(TypeError, match="unknown keyword argument") as caught:
        searchgym.make(env_id, world_size="tiny", foo=1)
    accepted = str(caught.value).split("accepted: ")[1].split(", ")
    assert "question_dim" in accepted and "world_size" in accepted
    assert "action_mode" not in accepted and "tool_format" not in accepted


def test_the_candidate_defaults_are_still_accepted_by_keyword() -> None:
    env = searchgym.make("TeamSearch-Numeric-v0", world_size="tiny", action_mode="candidates", tool_format="hermes")
    assert env.reset(seed=0)[0]


def test_a_candidate_id_still_offers_action_mode() -> None:
    with pytest.raises(TypeError, match="accepted: .*action_mode"):
        searchgym.make("TeamSearch-Candidates-v0", world_size="tiny", foo=1)


def test_gymnasium_make_of_a_numeric_id_does_not_offer_them_either() -> None:
    import gymnasium

    with pytest.raises(TypeError, match="unknown keyword argument") as caught:
        gymnasium.make("searchgym/SearchQA-Numeric-v0", world_size="tiny", foo=1)
    accepted = str(caught.value).split("accepted: ")[1].split(", ")
    assert "question_dim" in accepted and "action_mode" not in accepted and "tool_format" not in accepted


@pytest.mark.parametrize("base", ["GroupSearch", "TeamSearch"])
def test_the_team_oracle_plays_the_numeric_ids_as_the_candidate_ids(base):
    """The oracle reads ``env.unwrapped`` (the env inside since NumericParallel says so) and its
    indices are mapped to the wrapper's slots (``slot_of``): before that mapping the same oracle
    played other candidates there (mean return -0.02 against 3.84 on the group, reviewer's run)."""
    from searchgym.baselines.team_oracle import TeamOracleActor

    returns = {}
    for kind in ("Candidates", "Numeric"):
        env, actor, total = searchgym.make_parallel(f"{base}-{kind}-v0", world_size="tiny"), TeamOracleActor(), 0.0
        for episode in range(4):
            observations, infos = env.reset(seed=episode)
            actor.reset()
            while env.agents:
                observations, rewards, _, _, infos = env.step(actor.act(env, observations, infos))
                total += sum(rewards.values())
        returns[kind] = total
    assert returns["Numeric"] == pytest.approx(returns["Candidates"]) and returns["Candidates"] > 0


def test_slot_of_names_a_candidate_without_a_slot():
    env = searchgym.make_parallel("GroupSearch-Numeric-v0", world_size="tiny")
    env.reset(seed=0)
    agent = env.agents[0]
    assert env.slot_of(agent, env.env.sessions[agent].candidates.index(env.env.sessions[agent].candidates[0])) >= 0
    with pytest.raises(ValueError, match=r"candidate 999 of .* has no slot this step \(admissible: \["):
        env.slot_of(agent, 999)
