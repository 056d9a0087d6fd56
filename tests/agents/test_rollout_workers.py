"""Rollout workers on Ray reproduce the in-process rollouts of the same seed, at 1 and 2 workers.

One local Ray cluster (2 CPUs) is shared by the tests of this module: Ray starts slowly.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'searchgym[ray]'); "
                                        "the rollout-worker tests need it")

from searchgym.agents.rollout_workers import (  # noqa: E402
    RolloutWorkerPool,
    close_workers,
    collect_in_process,
    task_generator,
)
from searchgym.agents.train import TrainConfig, Trainer  # noqa: E402

from agents_helpers import tiny_train_config  # noqa: E402
from harness_helpers import start_local_ray  # noqa: E402 (after the importorskip)


@pytest.fixture(scope="module")
def cluster():
    start_local_ray()
    yield
    ray.shutdown()


def config(**overrides) -> TrainConfig:
    return tiny_train_config(**{"tasks_per_iteration": 5, "eval_tasks": 2, **overrides})


def fingerprint(groups) -> list:
    """Everything a trajectory records, as plain values (floats compared exactly)."""
    return [[(t.agent_id, t.group_id, t.task_id, t.success,
              [(s.obs["text"], tuple(s.obs["candidates"]), s.mask.tolist(), s.action, s.log_prob, s.value,
                s.reward, s.done, sorted(s.signals.items())) for s in t.steps]) for t in group]
            for group in groups]


def task_ids(trainer: Trainer) -> list[str]:
    return trainer.train_tasks[: trainer.config.tasks_per_iteration]


@pytest.mark.parametrize("workers", [1, 2])
def test_workers_give_the_in_process_trajectories_of_the_same_seed(cluster, workers):
    reference = Trainer(config(), log=lambda row: None)
    groups, stats = collect_in_process(reference, task_ids(reference), seed=11)
    trainer = Trainer(config(rollout_workers=workers), log=lambda row: None)
    try:
        remote_groups, remote_stats = trainer.collect(task_ids(trainer), seed=11)
    finally:
        close_workers(trainer)
    assert len(groups) == 5 and [len(g) for g in groups] == [3] * 5
    assert fingerprint(remote_groups) == fingerprint(groups)
    assert (remote_stats.env_steps, remote_stats.episodes, remote_stats.successes) == (
        stats.env_steps, stats.episodes, stats.successes)
    other, _ = collect_in_process(reference, task_ids(reference), seed=12)
    assert fingerprint(other) != fingerprint(groups), "another iteration seed must give other rollouts"


def test_team_env_workers_match_and_record_the_state(cluster):
    team = dict(env_id="TeamSearch-Generalists-Candidates-v0", group_size=2, tasks_per_iteration=3,
                env_kwargs={"world_size": "tiny", "team_size": 2, "max_rounds": 3})
    reference = Trainer(config(**team), log=lambda row: None)
    reference.record_state = True
    trainer = Trainer(config(**team, rollout_workers=2), log=lambda row: None)
    trainer.record_state = True
    try:
        groups, _ = collect_in_process(reference, task_ids(reference), seed=5)
        remote, _ = trainer.collect(task_ids(trainer), seed=5)
    finally:
        close_workers(trainer)
    assert fingerprint(remote) == fingerprint(groups) and len(groups) == 3 * 2  # tasks x roles
    states = [(s.state.tolist(), s.other_actions) for g in remote for t in g for s in t.steps]
    assert states == [(s.state.tolist(), s.other_actions) for g in groups for t in g for s in t.steps]
    assert all(state for state, _ in states)


def test_training_with_workers_makes_the_same_updates_as_in_process(cluster):
    """Three iterations: the workers get the new weights each time, or the runs would part."""
    reference = Trainer(config(), log=lambda row: None)
    reference.collect = lambda ids, seed, greedy=False: collect_in_process(reference, ids, seed)
    trainer = Trainer(config(rollout_workers=2), log=lambda row: None)
    try:
        for _ in range(3):
            row, expected = trainer.iterate(), reference.iterate()
            assert row["env_steps_this_iteration"] == expected["env_steps_this_iteration"]
            assert row["train_success"] == expected["train_success"]
    finally:
        close_workers(trainer)
    for (name, a), (_, b) in zip(trainer.population.state_dict().items(), reference.population.state_dict().items()):
        assert torch.equal(a, b), name
    start = Trainer(config(), log=lambda row: None).population.state_dict()
    assert any(not torch.equal(start[k], v) for k, v in trainer.population.state_dict().items())


def test_a_bad_worker_count_is_a_clear_error(cluster):
    trainer = Trainer(config(), log=lambda row: None)
    with pytest.raises(ValueError, match="rollout_workers must be a positive int"):
        RolloutWorkerPool(trainer.config, trainer.kind, trainer.n_agents, workers=-1)
    with pytest.raises(ValueError, match="rollout_workers=3 needs 3 CPUs .* the Ray cluster has 2"):
        RolloutWorkerPool(trainer.config, trainer.kind, trainer.n_agents, workers=3)
    assert ray.is_initialized()  # the pool did not start this cluster, so it leaves it running


def test_task_generators_are_fixed_by_seed_and_task_and_leave_global_state_alone():
    before = torch.random.get_rng_state()
    draws = [torch.rand(3, generator=task_generator(s, t)).tolist() for s, t in ((7, 0), (7, 1), (8, 0), (7, 0))]
    assert draws[0] == draws[3] and len({tuple(d) for d in draws}) == 3
    assert torch.equal(before, torch.random.get_rng_state())
    assert np.isfinite(draws).all()


def _vllm_skip_reason() -> str | None:
    try:
        import vllm  # noqa: F401
    except ImportError:
        return "vLLM is not installed (pip install 'searchgym[vllm]'): the vLLM hand-off is tested where it is"
    if not torch.cuda.is_available():
        return "vLLM needs a CUDA GPU and torch sees none"
    return None


@pytest.mark.skipif(_vllm_skip_reason() is not None, reason=str(_vllm_skip_reason()))
def test_the_llm_policy_generates_on_a_vllm_actor_and_gets_the_learners_weights(cluster, tmp_path):
    from searchgym.agents.llm_policy import LLMPolicy, offline_tokenizer, random_model
    from searchgym.agents.vllm_worker import RemoteVLLMEngine

    tokenizer = offline_tokenizer()
    folders = {}
    for seed in (0, 1):
        folders[seed] = tmp_path / f"model{seed}"
        random_model("tiny", tokenizer, seed=seed).save_pretrained(folders[seed])
        tokenizer.save_pretrained(folders[seed])
    learner = random_model("tiny", tokenizer, seed=1)
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": "who founded the city?"}],
                                           add_generation_prompt=True)
    engines = [RemoteVLLMEngine.start(str(folders[s]), gpu_memory=0.2, dtype="float32") for s in (0, 1)]
    try:
        policies = [LLMPolicy(learner, tokenizer, backend="vllm", vllm_engine=e) for e in engines]
        before = policies[0].generate([prompt], 8, seed=0, greedy=True)[0]
        assert 1 <= len(before.token_ids) <= 8
        engines[0].push_weights(learner)  # engine 0 now holds model 1's weights
        pushed = policies[0].generate([prompt], 8, seed=0, greedy=True)[0]
        fresh = policies[1].generate([prompt], 8, seed=0, greedy=True)[0]
        assert pushed.token_ids == fresh.token_ids
    finally:
        for engine in engines:
            engine.close()
