"""MT-PPO, GiGPO and information gain on hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest

from searchgym.agents import AdvantageConfig, Step, Trajectory, compute_advantages
from searchgym.agents.info_gain_trainer import answer_text
from searchgym.agents.process_estimators import (
    GIGPO_GAMMA,
    anchor_step_advantages,
    information_gain_rewards,
    process_rewards,
)


def step(text: str, reward: float, done: bool, chosen: str = "wait()", value: float = 0.0, **signals) -> Step:
    obs = {"text": text, "candidates": (chosen, "other"), "action_mask": np.ones(2, dtype=np.int8)}
    return Step(obs, 0, 0.0, value, reward, done, obs["action_mask"], dict(signals))


def test_mt_ppo_process_rewards_by_hand():
    traj = Trajectory([
        step("s0", 0.0, False, 'web_search(query="X")', new_gold=1.0, consistent=1.0),  # +0.2 - 0.01
        step("s1", 0.0, False, 'knowledge_base(entity="X")', new_gold=0.0, consistent=0.0),  # -0.05 - 0.01
        step("s2", 1.0, True, 'answer("Y")', new_gold=0.0, consistent=1.0),  # the outcome 1.0
    ])
    np.testing.assert_allclose(process_rewards(traj), [0.19, -0.06, 1.0])
    # GAE with gamma = 1, lambda = 1 and zero values: advantages are the shaped rewards-to-go
    result = compute_advantages("mt_ppo", [[traj]], AdvantageConfig(gamma=1.0, gae_lambda=1.0))
    np.testing.assert_allclose(result.advantages[0], [1.13, 0.94, 1.0])
    assert result.stats["estimator/process_reward_mean"] == pytest.approx(0.13)


def test_gigpo_groups_identical_states_into_anchors():
    # two trajectories pass through state "A" (then differ); state "B" and "C" occur once
    good = Trajectory([step("A", 0.0, False), step("B", 1.0, True)])
    bad = Trajectory([step("A", 0.0, False), step("C", 0.0, False), step("D", 0.0, True)])
    step_adv = anchor_step_advantages([good, bad], GIGPO_GAMMA, 1e-6)
    # anchor "A": returns from A are 0.95 * 1 (good) and 0 (bad): standardised (ddof=0) -> +1, -1
    np.testing.assert_allclose(step_adv[0], [1.0, 0.0], atol=1e-5)
    np.testing.assert_allclose(step_adv[1], [-1.0, 0.0, 0.0], atol=1e-5)
    result = compute_advantages("gigpo", [[good, bad]], AdvantageConfig())
    episode = 0.5 / (np.sqrt(0.5) + 1e-6)  # GRPO: returns 1, 0 -> +-0.5 / std_ddof1 (0.7071)
    np.testing.assert_allclose(result.advantages[0], [episode + 1.0, episode], atol=1e-5)
    np.testing.assert_allclose(result.advantages[1], [-episode - 1.0, -episode, -episode], atol=1e-5)


def test_information_gain_rewards_from_known_probabilities():
    traj = Trajectory([step("s0", 0.0, False, gold_mass=0.1), step("s1", 0.0, False, gold_mass=0.4),
                       step("s2", 1.0, True, gold_mass=0.9)])
    # IG = 0.4 - 0.1, 0.9 - 0.4; the last round's reward is the outcome 1.0
    np.testing.assert_allclose(information_gain_rewards(traj), [0.3, 0.5, 1.0])
    other = Trajectory([step("t0", 0.0, False, gold_mass=0.1), step("t1", 0.0, True, gold_mass=0.1)])
    result = compute_advantages("info_gain", [[traj, other]], AdvantageConfig())
    flat = np.array([0.3, 0.5, 1.0, 0.0, 0.0])
    z = (flat - flat.mean()) / (flat.std() + 1e-6)
    np.testing.assert_allclose(result.advantages[0], [z[0] + z[1] + z[2], z[1] + z[2], z[2]], atol=1e-6)
    np.testing.assert_allclose(result.advantages[1], [z[3] + z[4], z[4]], atol=1e-6)


def test_answer_candidates_are_read_for_the_gold_mass():
    assert answer_text('answer("81,000")  <- Nakar | population | a number') == "81,000"
    assert answer_text('web_search(query="Nakar")  <- name from the question') is None
    assert answer_text('answer("a \\"quoted\\" name")') == 'a "quoted" name'


@pytest.mark.parametrize("method", ["mt_ppo", "gigpo", "info_gain"])
def test_process_methods_train_on_every_env_kind(method, tmp_path):
    from baselines_helpers import TINY_GROUP, TINY_QA, TINY_TEAM, make_ctx, play_one_episode

    from searchgym.harness.methods import load_method

    for suite in (TINY_QA, TINY_GROUP, TINY_TEAM):
        ctx = make_ctx(suite, tmp_path / suite.id, budget=30)
        actor = load_method(method)(ctx)
        rows = [r for r in ctx.rows if "iteration" in r and r["iteration"] > 0]
        assert rows and rows[-1]["step"] >= 30 and play_one_episode(suite, actor) >= 1
        if method == "info_gain":
            assert 0.0 <= rows[-1]["info_gain/gold_mass_mean"] <= 1.0


def test_the_gold_mass_scores_each_candidate_of_a_batch_once(monkeypatch):
    import searchgym.agents.info_gain_trainer as info_gain
    from searchgym.agents.train import TrainConfig

    trainer = info_gain.InfoGainTrainer(TrainConfig(env_id="SearchQA-Candidates-Easy-v0", estimator="info_gain",
                                                    env_kwargs={"world_size": "tiny", "max_steps": 3}, group_size=3,
                                                    tasks_per_iteration=2, eval_tasks=2, device="cpu"),
                                        log=lambda row: None)
    groups, _ = trainer.collect(trainer.train_tasks[:2], seed=0)
    fresh = [trainer.correct_mask(t.task_id, s.obs) for g in groups for t in g for s in t.steps]
    calls: list[tuple[str, str]] = []
    score = info_gain.score_answer
    monkeypatch.setattr(info_gain, "score_answer", lambda task, text: (calls.append((task.id, text)), score(task, text))[1])
    stats = trainer.annotate(groups)
    assert calls and len(calls) == len(set(calls))  # the attempts share answers: each is scored once
    memo: dict = {}
    assert all(np.array_equal(a, trainer.correct_mask(t.task_id, s.obs, memo))
               for a, (t, s) in zip(fresh, [(t, s) for g in groups for t in g for s in t.steps]))
    assert any(m.any() for m in fresh) and 0.0 <= stats["info_gain/gold_mass_mean"] <= 1.0
