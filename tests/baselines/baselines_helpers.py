"""Tiny suites and helpers for the baseline tests (tiny world: builds in ~1 s)."""

from __future__ import annotations

from pathlib import Path

from searchgym.harness.methods import RunContext
from searchgym.suites import Suite, register_suite

TINY_TEAM = register_suite(Suite("test-baselines-team-v0", 0, "TeamSearch-Generalists-Candidates-v0",
                                 {"team_size": 2, "max_rounds": 4}, world_size="tiny", dev_size=4, test_size=4,
                                 description="tests: two generalists, tiny world"))
TINY_GROUP = register_suite(Suite("test-baselines-group-v0", 0, "GroupSearch-Candidates-v0",
                                  {"group_size": 2, "max_steps": 3}, world_size="tiny", dev_size=4, test_size=4,
                                  description="tests: a group of two, tiny world"))
TINY_QA = register_suite(Suite("test-baselines-qa-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 3},
                               world_size="tiny", dev_size=4, test_size=4, description="tests: single agent, tiny world"))

#: Two tasks x two episodes per iteration, a 4-task dev check: a few iterations take seconds.
SMALL_RUN = {"tasks_per_iteration": 2, "group_size": 2, "eval_tasks": 4, "eval_every": 1}


def make_ctx(suite: Suite, tmp_path: Path, budget: int = 60, seed: int = 0, **options) -> RunContext:
    rows: list[dict] = []
    ctx = RunContext(suite=suite, seed=seed, budget=budget, device="cpu", run_dir=tmp_path / "run",
                     log=rows.append, options={**SMALL_RUN, **options})
    ctx.rows = rows  # type: ignore[attr-defined]  (the tests read the logged rows)
    return ctx


def spec_config(name: str, ctx: RunContext):
    """The TrainConfig that the harness trains the method ``name`` with under ``ctx``."""
    from searchgym.harness.method_specs import build_config
    from searchgym.method_table import METHOD_SPECS
    from searchgym.harness.methods import load_callable

    spec = METHOD_SPECS[name]
    return build_config(spec, ctx, load_callable(spec.trainer))


def play_one_episode(suite: Suite, actor, seed: int = 0) -> int:
    """Run the actor greedily through one episode of the suite's dev env; returns the rounds played."""
    from searchgym.suites import make_env

    env = make_env(suite, "dev")
    if hasattr(env, "possible_agents"):
        observations, infos = env.reset(seed=seed)
        rounds = 0
        while env.agents:
            actions = actor.act(env, observations, infos)
            assert set(actions) == set(env.agents)
            for agent, action in actions.items():
                assert observations[agent]["action_mask"][action] == 1, "the actor chose a masked candidate"
            observations, _, _, _, infos = env.step(actions)
            rounds += 1
        return rounds
    observation, info = env.reset(seed=seed)
    done, rounds = False, 0
    while not done:
        action = actor.act(env, observation, info)
        assert observation["action_mask"][action] == 1
        observation, _, terminated, truncated, info = env.step(action)
        done, rounds = terminated or truncated, rounds + 1
    return rounds
