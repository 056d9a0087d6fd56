"""Numeric wrappers: SB3's env checker, masks, slot mapping, fixed multi-agent sets, MaskablePPO."""

from __future__ import annotations

import math
import random
import subprocess
import sys

import numpy as np
import pytest

import searchgym
from searchgym.wrappers import CANDIDATE_FIELDS, FeatureLayout, NumericObservation, NumericParallel
from searchgym.wrappers.features import CANDIDATE_KINDS, words



def test_sb3_check_env_passes_on_the_registered_numeric_ids() -> None:
    from stable_baselines3.common.env_checker import check_env

    for env_id in ("SearchQA-Numeric-v0", "SearchQA-Numeric-Easy-v0"):
        env = searchgym.make(env_id)
        check_env(env, warn=False, skip_render_check=True)
        assert env.observation_space.shape == (FeatureLayout(48, 12).size,)
        assert env.observation_space.dtype == np.float32


def test_slots_map_to_the_env_candidate_shown_in_them() -> None:
    env = searchgym.make("SearchQA-Numeric-Easy-v0")
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(6):
        mask = env.get_wrapper_attr("action_masks")()
        assert mask.dtype == bool and np.array_equal(mask, info["action_mask"].astype(bool))
        k = int(mask.sum())
        assert k >= 1 and mask[:k].all() and not mask[k:].any()  # admissible slots come first
        assert env.observation_space.contains(obs)
        slot = int(rng.integers(k))
        chosen = info["candidates"][slot].render()
        obs, _, terminated, truncated, info = env.step(slot)
        assert env.unwrapped.session.transcript[-1][0] == chosen
        if terminated or truncated:
            break


def test_the_canonical_order_puts_answers_first_and_fills_the_blocks() -> None:
    layout = FeatureLayout(max_candidates=4, max_steps=10, question_dim=8, transcript_dim=8, candidate_dim=4)
    observation = {
        "text": "Question: Who founded Tistel Group?\nStep 1: web_search(query=\"Tistel Group\")\nTistel Group ...",
        "candidates": ('web_search(query="Tistel Group")  <- name from the question',
                       'answer("Bruqi Kreifaehys")  <- Tistel Group | founded by | a person',
                       "", ""),
        "action_mask": np.array([1, 1, 0, 0], dtype=np.int8),
    }
    encoded = layout.encode(observation)
    assert encoded.order == (1, 0)
    assert encoded.vector.shape == (layout.size,) and encoded.vector.min() >= 0 and encoded.vector.max() <= 1
    answer = encoded.vector[layout.candidate_offset(0): layout.candidate_offset(1)]
    fields = dict(zip(CANDIDATE_FIELDS, answer))
    assert fields["admissible"] == 1 and fields["kind_answer"] == 1 and fields["type_match"] == 1
    assert fields["covers_question"] == pytest.approx(len({"tistel", "group", "found"}) / len(words("Who founded Tistel Group?")))
    search = dict(zip(CANDIDATE_FIELDS, encoded.vector[layout.candidate_offset(1): layout.candidate_offset(2)]))
    assert search["kind_web_search"] == 1 and search["taken_before"] == 1
    assert not encoded.vector[layout.candidate_offset(2):].any()  # the masked slots stay zero
    assert encoded.env_action(0, observation["action_mask"]) == 1
    assert encoded.env_action(3, observation["action_mask"]) == 3  # a masked slot stays masked for the env, same index
    assert len(CANDIDATE_FIELDS) == 1 + len(CANDIDATE_KINDS) + 5
    with pytest.raises(IndexError, match="out of range 0..3"):
        layout.candidate_offset(4)


def test_masked_and_out_of_range_slots_are_reported_by_the_env() -> None:
    env = searchgym.make("SearchQA-Numeric-Easy-v0")
    env.reset(seed=0)
    k = int(env.get_wrapper_attr("action_masks")().sum())
    _, _, _, _, info = env.step(k + 1)
    # the error names the slot the agent chose (before: the first masked env index, here k)
    assert info["format_error"] and f"index {k + 1} is masked" in env.unwrapped.session.transcript[-1][1]
    _, _, _, _, info = env.step(48)
    assert info["format_error"] and "out of range" in env.unwrapped.session.transcript[-1][1]


def test_a_text_env_is_refused_with_what_is_accepted() -> None:
    with pytest.raises(ValueError, match="candidate-mode env"):
        NumericObservation(searchgym.make("SearchQA-v0"))
    with pytest.raises(ValueError, match="candidate-mode"):
        NumericParallel(searchgym.make("GroupSearch-v0"))


@pytest.mark.parametrize("base_id", ["GroupSearch-Candidates-v0", "TeamSearch-v0"])
def test_a_single_agent_numeric_id_over_a_multi_agent_base_says_which_to_use(base_id) -> None:
    """Before: Gymnasium's TypeError "Expected env to be a `gymnasium.Env` but got <class ...GroupSearchEnv>"."""
    with pytest.raises(ValueError, match=rf"base_id '{base_id}' is a multi-agent env; .*GroupSearch-Numeric-v0"):
        searchgym.make("SearchQA-Numeric-v0", base_id=base_id, world_size="tiny")


def test_each_wrapper_over_the_other_kind_of_env_names_the_one_to_use() -> None:
    """Before: NumericObservation over a group env was Gymnasium's "Expected env to be a `gymnasium.Env`",
    NumericParallel over a single-agent candidate env said it "needs a candidate-mode" env, and a
    multi-agent Numeric id over a single-agent base_id said "use searchgym.make", which the caller had."""
    with pytest.raises(TypeError, match="got GroupSearchEnv; a group or team env takes NumericParallel"):
        NumericObservation(searchgym.make("GroupSearch-Candidates-v0", world_size="tiny"))
    with pytest.raises(ValueError, match="got a single-agent Gymnasium env; a single-agent env takes NumericObservation"):
        NumericParallel(searchgym.make("SearchQA-Candidates-v0", world_size="tiny"))
    with pytest.raises(ValueError, match="base_id 'SearchQA-Candidates-v0' is a single-agent env; .*SearchQA-Numeric-v0"):
        searchgym.make("GroupSearch-Numeric-v0", base_id="SearchQA-Candidates-v0", world_size="tiny")


# PettingZoo's api test resets with options={"options": 1}; the env warns that it ignores them.
@pytest.mark.filterwarnings(r"ignore:reset options \['options'\] are ignored")
@pytest.mark.parametrize("env_id", ["GroupSearch-Numeric-v0", "TeamSearch-Numeric-v0"])
def test_parallel_numeric_envs_keep_every_agent_until_the_episode_ends(env_id) -> None:
    from pettingzoo.test import parallel_api_test

    parallel_api_test(searchgym.make(env_id), num_cycles=30)
    env = searchgym.make(env_id)
    obs, infos = env.reset(seed=1)
    rng = np.random.default_rng(1)
    saw_finished = False
    finished_before: set[str] = set()
    live_keys = infos[env.possible_agents[0]]
    for _ in range(40):
        assert env.agents == env.possible_agents and set(obs) == set(env.possible_agents)
        actions = {}
        for agent in env.agents:
            mask = env.action_mask(agent)
            assert np.array_equal(mask, infos[agent]["action_mask"].astype(bool)) and mask.any()
            if not infos[agent]["active"]:
                assert np.flatnonzero(mask).tolist() == [0]
                if agent in finished_before:  # its last view came with the step that ended it; now zeros
                    saw_finished = True
                    assert not obs[agent].any()
                    # the keys of a live step (before: only text, active and action_mask), with no reward
                    assert set(infos[agent]) == set(live_keys) and infos[agent]["task_id"] == live_keys["task_id"]
                    assert not any(infos[agent]["reward_components"].values()) and infos[agent]["candidates"] == []
                finished_before.add(agent)
            actions[agent] = int(rng.choice(np.flatnonzero(mask)))
        obs, rewards, terms, truncs, infos = env.step(actions)
        for agent in env.possible_agents:
            assert env.observation_space(agent).contains(obs[agent])
        if any(terms.values()) or any(truncs.values()):
            assert all(terms[a] or truncs[a] for a in env.possible_agents)  # everyone ends together
            assert env.agents == []
            break
    else:
        pytest.fail("the episode did not end within 40 steps")
    assert saw_finished or env_id.startswith("TeamSearch")


def test_parallel_wrapper_rejects_unknown_and_missing_agents() -> None:
    env = searchgym.make("GroupSearch-Numeric-v0")
    env.reset(seed=0)
    with pytest.raises(KeyError, match="unknown agents"):
        env.step({"agent_9": 0})
    with pytest.raises(KeyError, match="no action for live agent"):
        env.step({"agent_0": 0})
    with pytest.raises(TypeError, match="step\\(\\) takes a dict agent -> action, got str"):
        env.step("agent_0")  # before: KeyError "unknown agents ['0', '_', 'a', ...]", the string's letters


@pytest.mark.parametrize("env_id", ["GroupSearch-Numeric-v0", "TeamSearch-Numeric-v0"])
def test_parallel_wrapper_agent_errors_are_value_errors_as_unwrapped_and_name_mixed_keys(env_id) -> None:
    """Before: {5: 0, "nobody": 0} was TypeError "'<' not supported between instances of 'str' and
    'int'" (sorting the unknown names), and a missing agent a KeyError where the unwrapped env
    (e.g. GroupSearch-Candidates-v0) raises ValueError for the same mistake."""
    env = searchgym.make(env_id, world_size="tiny")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"actions for unknown agents \['nobody', 5\]"):
        env.step({5: 0, "nobody": 0})
    with pytest.raises(ValueError, match="no action for live agent"):
        env.step({})
    with pytest.raises(KeyError, match="no action for live agent"):  # as before the fix: either except works
        env.step({})


@pytest.mark.slow
@pytest.mark.timeout(1800)  # ~40 s of CPU; a machine shared by many jobs can stretch the wall time
def test_maskable_ppo_learns_clearly_above_random_on_the_easy_suite(tmp_path) -> None:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    env = searchgym.make("SearchQA-Numeric-Easy-v0")
    # SB3 seeds (and draws from) the global random / numpy / torch generators: restore them after.
    py_state, np_state, threads = random.getstate(), np.random.get_state(), torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.random.fork_rng():
            model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=8, learning_rate=1e-3,
                                ent_coef=0.01, seed=0, device="cpu")
            model.set_logger(configure(str(tmp_path / "sb3"), []))  # else SB3 leaves a folder in /tmp
            model.learn(PPO_STEPS)
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)
        torch.set_num_threads(threads)

    def dev_wins(choose) -> np.ndarray:
        ev = searchgym.make("SearchQA-Numeric-Easy-v0", split="dev")
        rng = np.random.default_rng(1)
        wins = []
        for i, task in enumerate(ev.unwrapped.tasks.tasks("dev")):
            obs, info = ev.reset(seed=i, options={"task_id": task.id})
            done = False
            while not done:
                action = choose(obs, info["action_mask"].astype(bool), rng)
                obs, _, terminated, truncated, info = ev.step(int(action))
                done = terminated or truncated
            wins.append(bool(info["success"]))
        return np.array(wins)

    random_wins = dev_wins(lambda o, m, rng: rng.choice(np.flatnonzero(m)))
    with torch.random.fork_rng():
        ppo_wins = dev_wins(lambda o, m, rng: model.predict(o, action_masks=m, deterministic=True)[0])
    only_ppo, only_random = int((ppo_wins & ~random_wins).sum()), int((random_wins & ~ppo_wins).sum())
    # One-sided sign test on the tasks exactly one of the two solves (same tasks, paired).
    n = only_ppo + only_random
    p_value = sum(math.comb(n, k) for k in range(only_ppo, n + 1)) / 2**n if n else 1.0
    print(f"MaskablePPO {PPO_STEPS} steps: dev success {ppo_wins.mean():.3f} vs random {random_wins.mean():.3f} "
          f"({len(ppo_wins)} tasks; solved by one only: ppo {only_ppo}, random {only_random}; sign test p={p_value:.4f})")
    # Under scoring-v2 this run scored 0.136 (9 of 66); two of those wins were sums off by a little, which
    # scoring-v3 no longer counts (0.106, 7 of 66, against random's 0.030; sign test p = 0.031).
    assert ppo_wins.mean() >= random_wins.mean() + 0.05 and p_value < 0.05, (ppo_wins.mean(), random_wins.mean())


PPO_STEPS = 8_192


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_cleanrl_style_example_runs_on_the_wrapper(tmp_path) -> None:
    proc = subprocess.run([sys.executable, "-m", "searchgym.examples.cleanrl_ppo", "--total-steps", "1024",
                           "--num-steps", "256", "--eval-episodes", "5"], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "dev success" in proc.stdout and "update 4/4" in proc.stdout


@pytest.mark.parametrize("env_id", ["GroupSearch-Numeric-v0", "TeamSearch-Numeric-v0"])
def test_parallel_wrapper_names_the_state_entries_as_the_wrapped_env(env_id) -> None:
    """Before: AttributeError "'NumericParallel' object has no attribute 'state_fields'"."""
    env = searchgym.make(env_id, world_size="tiny")
    env.reset(seed=0)
    base = searchgym.make(env_id.replace("Numeric", "Candidates"), world_size="tiny")
    assert env.state_fields() == base.state_fields() and len(env.state_fields()) == env.state().shape[0]


@pytest.mark.parametrize("env_id", ["GroupSearch-Numeric-v0", "TeamSearch-Numeric-v0"])
def test_parallel_wrapper_gives_each_agents_observation_data(env_id) -> None:
    # before: 'NumericParallel' object has no attribute 'observation_data' (it is its own unwrapped)
    env = searchgym.make(env_id, world_size="tiny")
    env.reset(seed=3)
    agent = env.possible_agents[0]
    env.step({a: 1 for a in env.agents})
    data = env.observation_data(agent)
    assert data == env.env.observation_data(agent)
    assert data["question"] and data["steps"]
    with pytest.raises(KeyError, match="unknown agent"):
        env.observation_data("nobody")


def test_a_numeric_wrapper_made_by_hand_is_made_again_from_its_spec():
    """Gymnasium remakes an env from its spec (check_env does); a wrapper that does not record its
    arguments was refused: "NumericObservation wrapper does not inherit from RecordConstructorArgs"."""
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    import searchgym
    from searchgym.wrappers import NumericObservation

    wrapped = NumericObservation(searchgym.make("SearchQA-Candidates-Easy-v0", world_size="tiny"), question_dim=8)
    check_env(wrapped, skip_render_check=True)
    again = gymnasium.make(wrapped.spec)
    assert isinstance(again.unwrapped, type(wrapped.unwrapped))
    assert again.observation_space == wrapped.observation_space  # question_dim=8 kept
    first, _ = wrapped.reset(seed=3)
    second, _ = again.reset(seed=3)
    assert (first == second).all()
