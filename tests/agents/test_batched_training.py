"""Training that spends its time learning: episodes stepped together give the episodes played
one at a time (greedy), sampled batches are reproducible, dev evaluation in batches gives the
sequential scores, and the step-0 dev point is evaluated once per initial weights."""

from __future__ import annotations

import json

import numpy as np
import pytest

from searchgym.agents import train as train_module
from searchgym.agents.population import Population
from searchgym.agents.rollout import collect_parallel, evaluate_single
from searchgym.agents.train import TrainConfig, Trainer
from searchgym.envs.search import SearchEnv
from searchgym.envs.team import TeamSearchEnv

TEAM = {"roles": "generalists", "action_mode": "candidates", "world_size": "tiny", "max_rounds": 5}


def team_envs(n: int) -> list[TeamSearchEnv]:
    return [TeamSearchEnv(**TEAM) for _ in range(n)]


def population(seed: int = 0) -> Population:
    return Population.build("shared", 3, encoder="hash", seed=seed, dim=16, hidden=16)


def trace(groups) -> list:
    """Everything a trajectory recorded, comparable across runs."""
    return [[(tr.agent_id, tr.group_id, tr.task_id, tr.success,
              [(s.obs["text"], s.obs["candidates"], s.action, round(s.log_prob, 6), s.reward, s.done, s.signals)
               for s in tr.steps]) for tr in group] for group in groups]


def test_greedy_episodes_stepped_together_equal_episodes_played_one_at_a_time():
    pop = population()
    tasks = [t.id for t in team_envs(1)[0].tasks.tasks("train")[:2]]
    one, one_stats = collect_parallel(team_envs(1)[0], pop, tasks, 3, None, 7, greedy=True)
    together, together_stats = collect_parallel(team_envs(3), pop, tasks, 3, None, 7, greedy=True)
    assert trace(together) == trace(one)
    assert together_stats == one_stats and one_stats.episodes == 6
    # grouped by agent: one group per (task, agent), each with the task's 3 episodes
    assert len(one) == 2 * 3 and all(len(g) == 3 and len({tr.agent_id for tr in g}) == 1 for g in one)


def test_sampled_batches_are_reproducible_and_cover_every_episode():
    import torch

    pop = population()
    tasks = [t.id for t in team_envs(1)[0].tasks.tasks("train")[:2]]
    runs = [collect_parallel(team_envs(4), pop, tasks, 4, torch.Generator().manual_seed(5), 11) for _ in range(2)]
    assert trace(runs[0][0]) == trace(runs[1][0])
    assert runs[0][1].episodes == 8 and runs[0][1].env_steps == sum(len(t) for g in runs[0][0] for t in g)
    other = collect_parallel(team_envs(4), pop, tasks, 4, torch.Generator().manual_seed(6), 11)
    assert trace(other[0]) != trace(runs[0][0])


def test_fewer_envs_than_episodes_play_in_waves():
    pop = population()
    tasks = [t.id for t in team_envs(1)[0].tasks.tasks("train")[:3]]
    one, _ = collect_parallel(team_envs(1)[0], pop, tasks, 1, None, 3, greedy=True)
    waves, _ = collect_parallel(team_envs(2), pop, tasks, 1, None, 3, greedy=True)  # 3 episodes, 2 envs
    assert trace(waves) == trace(one) and len(one) == 3
    with pytest.raises(ValueError, match="at least one env"):
        collect_parallel([], pop, tasks, 1, None, 3)


def test_batched_dev_evaluation_gives_the_sequential_scores():
    pop = Population.build("shared", 1, encoder="hash", seed=1, dim=16, hidden=16)
    envs = [SearchEnv(action_mode="candidates", world_size="tiny") for _ in range(3)]
    tasks = [t.id for t in envs[0].tasks.tasks("dev")[:5]]
    batched = evaluate_single(envs, pop, tasks, 100)
    sequential = evaluate_single(envs[:1], pop, tasks, 100)
    assert [(f["task_id"], f["success"], f["score"]) for f in batched] == \
        [(f["task_id"], f["success"], f["score"]) for f in sequential]
    assert [f["task_id"] for f in batched] == tasks


def small_team_config(**overrides) -> TrainConfig:
    base = dict(env_id="TeamSearch-Generalists-Candidates-v0", env_kwargs={"world_size": "tiny", "max_rounds": 4},
                estimator="grpo", group_size=2, tasks_per_iteration=2, budget=1, eval_every=100, eval_tasks=3,
                device="cpu", seed=0, policy_kwargs={"dim": 16, "hidden": 16})
    base.update(overrides)
    return TrainConfig(**base)


def test_trainer_steps_every_episode_of_an_iteration_together(monkeypatch):
    trainer = Trainer(small_team_config(), log=lambda row: None)
    assert len(trainer.envs) == 2 * 2 and trainer.envs[0] is trainer.env  # tasks_per_iteration x group_size
    assert all(env.world is trainer.env.world for env in trainer.envs)  # copies share the world
    sizes = []
    original = trainer.population.policy_for(0).act
    monkeypatch.setattr(trainer.population.policy_for(0), "act",
                        lambda obs, *a, **k: sizes.append(len(obs)) or original(obs, *a, **k))
    trainer.collect(["lookup-00001", "lookup-00002"], seed=0)
    assert sizes[0] == 2 * 2 * 3  # first round: 2 tasks x G episodes x 3 agents in one batch


def test_a_group_env_iteration_plays_one_episode_per_task_together():
    trainer = Trainer(small_team_config(env_id="GroupSearch-Candidates-v0", env_kwargs={"world_size": "tiny"},
                                        tasks_per_iteration=3), log=lambda row: None)
    assert len(trainer.envs) == 3  # its agents are the group: one episode per task


def test_step_zero_dev_point_is_evaluated_once_per_initial_weights(monkeypatch, tmp_path):
    monkeypatch.setattr(train_module, "_START_POINTS", {})
    calls = []
    original = Trainer.evaluate_dev
    monkeypatch.setattr(Trainer, "evaluate_dev", lambda self: calls.append(self.config.seed) or original(self))
    rows = {name: [] for name in ("grpo", "dr_grpo", "other_seed")}
    for name, config in (("grpo", small_team_config()), ("dr_grpo", small_team_config(estimator="dr_grpo")),
                         ("other_seed", small_team_config(seed=1))):
        Trainer(config, log=rows[name].append).train(progress=False)
    start = {name: rs[0] for name, rs in rows.items()}
    assert start["grpo"] == start["dr_grpo"] and start["grpo"]["step"] == 0
    # step 0 once for seed 0 (shared by both estimators) and once for seed 1, plus each run's last point
    assert calls.count(0) == 1 + 2 and calls.count(1) == 1 + 1


def test_a_run_that_already_logged_its_start_point_does_not_evaluate_it_again(monkeypatch, tmp_path):
    monkeypatch.setattr(train_module, "_START_POINTS", {})
    (tmp_path / "metrics.jsonl").write_text(json.dumps({"iteration": 0, "step": 0, "dev_success": 0.5}) + "\n")
    calls = []
    monkeypatch.setattr(Trainer, "evaluate_dev", lambda self: calls.append(1) or {"dev_success": 0.0})
    Trainer(small_team_config(), out_dir=tmp_path).train(progress=False)
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows if r["step"] == 0] == [0] and len(calls) == 1  # only the final point
    assert np.isfinite(rows[-1]["dev_success"])


def test_overlap_features_are_computed_once_per_observation_and_equal_the_per_candidate_ones(make_task):
    import torch

    from searchgym.agents.hop_features import HopFeatures
    from searchgym.agents.policy import LexicalOverlap, make_policy

    obs, _ = make_task(np.random.default_rng(0))
    lex = LexicalOverlap()
    rows = lex.observation_features(obs["text"], obs["candidates"])
    assert rows.tolist() == [lex.features(obs["text"], c) for c in obs["candidates"]]
    assert lex.observation_features(obs["text"], obs["candidates"]) is rows  # the update epochs reuse it
    policy = make_policy("hash", seed=0, dim=8, hidden=8)
    *_, overlap = policy.embed([obs, obs])
    expected = torch.tensor([lex.features(obs["text"], c) for c in obs["candidates"]] * 2).view(2, len(rows), -1)
    assert torch.equal(overlap[..., :LexicalOverlap.n_features], expected)  # then the hop features
    hops = torch.from_numpy(HopFeatures().observation_features(obs["text"], obs["candidates"])).float()
    assert torch.equal(overlap[..., LexicalOverlap.n_features:], torch.stack([hops, hops]))
