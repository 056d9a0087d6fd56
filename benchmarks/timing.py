"""What every env benchmark shares: CPU time beside wall time, a CartPole yardstick measured in
the same process, and cold or warm caches stated per row.

Why CartPole: these machines are shared and noisy, so absolute rates swing between runs; a
Gymnasium CartPole step timed in the same process moves with the machine, and a ratio to it is
what the goals are written in ("a candidate step costs at most 15 CartPole steps"). The load
also swings within a run, so rows made by ``three_states`` are divided by CartPole steps timed
just before and just after each of them (their mean), not by one yardstick at the start. Each row
starts after a full garbage collection, so none pays for an earlier row's garbage.

Cold, warm and new seeds: a row is *cold* when every cache an env step can hit (search results,
knowledge-base and calculator results, mention look-ups, the judge's reading of texts, the
candidate generator's memos and lists, the team envs' post memos; the last two are shared by
every env of a world) is emptied before it; *warm* replays the very same episodes right after, so every cache holds what they need (the
best case); *new seeds* plays the same tasks again with seeds not played before, which is what a
trainer sees: its tasks recur, its episodes do not.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass

import gymnasium as gym


@dataclass
class Timing:
    """Work units done and the CPU and wall seconds they took."""

    units: int
    cpu_s: float
    wall_s: float
    #: CPU microseconds of a CartPole step timed beside this row (None: use the run's yardstick)
    beside_us: float | None = None

    @property
    def cpu_us(self) -> float:
        return 1e6 * self.cpu_s / max(self.units, 1)

    @property
    def wall_us(self) -> float:
        return 1e6 * self.wall_s / max(self.units, 1)

    @property
    def per_cpu_s(self) -> float:
        return self.units / max(self.cpu_s, 1e-12)

    @property
    def per_wall_s(self) -> float:
        return self.units / max(self.wall_s, 1e-12)


def timed(run: Callable[[], int]) -> Timing:
    """Time ``run`` (which returns how many units it did) in CPU and wall seconds."""
    cpu, wall = time.process_time(), time.perf_counter()
    units = run()
    return Timing(units, time.process_time() - cpu, time.perf_counter() - wall)


def beside_cartpole(run: Callable[[], int], steps: int = 5000, frozen_heap: bool = False) -> Timing:
    """``timed(run)`` with CartPole steps timed just before and after it (see the docstring),
    after a full garbage collection: a collection owed by an earlier row's allocations would
    otherwise land in whichever row happens to cross the threshold (tens of us per step).
    ``frozen_heap``: ``run`` goes under the trainer's garbage-collector settings (see
    ``under_trainer_gc``)."""
    gc.collect()
    before = cartpole(steps)
    timing = under_trainer_gc(lambda: timed(run)) if frozen_heap else timed(run)
    after = cartpole(steps)
    timing.beside_us = (before.cpu_us + after.cpu_us) / 2
    return timing


def under_trainer_gc(run: Callable[[], Timing]) -> Timing:
    """``run()`` with the heap frozen and young collections spaced out as the trainer runs its env
    steps (``trainer_base.frozen_heap``). Why: rows are a fraction of a CPU-second, and by default
    about one full collection (tens of ms, a walk over the whole world) lands in each, which a
    training run does not pay; this shows the env's cost as training sees it, beside the default."""
    from searchgym.agents.trainer_base import frozen_heap

    with frozen_heap():
        return run()


def cartpole(steps: int = 20_000) -> Timing:
    """``gym.make("CartPole-v1")`` steps (its default wrappers) with actions drawn by
    ``action_space.sample()``: like the env rows, a random agent picks each action."""
    env = gym.make("CartPole-v1")
    env.reset(seed=0)
    env.action_space.seed(0)

    def run() -> int:
        for i in range(steps):
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            if terminated or truncated:
                env.reset()
        return steps

    run()  # warm-up: first-call costs are not a step's
    return timed(run)


def clear_caches(tools) -> None:
    """Empty every cache an env step can hit (see the module docstring)."""
    from searchgym import candidates, judge, scoring
    from searchgym.envs import blackboard, spaces, team_posts

    for tool in (tools.values() if hasattr(tools, "values") else ()):  # web search hits, KB and calculator results
        if hasattr(tool, "cache_clear"):
            tool.cache_clear()
    # Looked up by name: an older checkout (see source_tree.py) may lack some of these caches.
    # Generators and team post memos are shared by a world's envs: cleared here, not by a new env.
    for module, name in ((candidates, "clear_memos"), (judge, "read_text"), (judge, "_words_of"),
                         (judge, "_numbers_of_text"), (judge, "_numbers_of"),
                         (judge, "_phrases"), (blackboard, "padded"), (spaces, "is_clean"),
                         (blackboard, "_numbers"), (team_posts, "clear_post_memos"), (scoring, "_normalized")):
        cache = getattr(module, name, None)
        clear = getattr(cache, "cache_clear", cache if name.startswith("clear_") else None)
        if clear is not None:
            clear()


def cold_and_warm(tools, run: Callable[[], int]) -> tuple[Timing, Timing]:
    """(cold, warm): ``run`` after emptying the caches (the shared generator's too), then the same
    ``run`` again."""
    clear_caches(tools)
    return timed(run), timed(run)


def recurring_episodes(task_ids: list[str], episodes: int, tasks: int = 40, seed: int = 0) -> list[tuple[str, int]]:
    """``episodes`` (task id, seed) pairs cycling over the first ``tasks`` tasks, seeds from ``seed``."""
    pool = task_ids[:tasks]
    return [(pool[e % len(pool)], seed + e) for e in range(episodes)]


NEW_SEED_OFFSET = 1_000_003


def three_states(tools, make_run: Callable[[list], Callable[[], int]], episodes: list,
                 frozen_heap: bool = False) -> dict[str, Timing]:
    """{"cold", "warm", "new seeds"}: ``episodes`` with every cache emptied, the same again, then
    the same tasks with fresh seeds (``make_run(episodes)`` builds the function that plays them);
    ``frozen_heap``: every row under the trainer's garbage-collector settings."""
    run = make_run(episodes)
    clear_caches(tools)
    cold = beside_cartpole(run, frozen_heap=frozen_heap)
    warm = beside_cartpole(run, frozen_heap=frozen_heap)
    fresh = [(task, seed + NEW_SEED_OFFSET) for task, seed in episodes]
    fresh_row = beside_cartpole(make_run(fresh), frozen_heap=frozen_heap)
    return {"cold": cold, "warm": warm, "new seeds": fresh_row}


def yardstick_line(yardstick: Timing) -> str:
    return (f"{'CartPole-v1 step (gym.make, same process)':<44}{yardstick.per_cpu_s:>9.0f} step/s cpu "
            f"{yardstick.per_wall_s:>9.0f} step/s wall {yardstick.cpu_us:>8.1f} us cpu/step")


def ratio_line(label: str, timing: Timing, yardstick: Timing, unit: str, goal: float | None = None) -> str:
    """One row: rate by CPU and wall time, CPU time per unit, and the ratio to the yardstick (to
    the CartPole steps timed beside the row, where it has them)."""
    ratio = timing.cpu_us / (timing.beside_us or yardstick.cpu_us)
    verdict = "" if goal is None else f"  (goal <= {goal:g}x: {'met' if ratio <= goal else 'NOT met'})"
    return (f"{label:<44}{timing.per_cpu_s:>9.0f} {unit}/s cpu {timing.per_wall_s:>9.0f} {unit}/s wall "
            f"{timing.cpu_us:>8.1f} us cpu/{unit}  = {ratio:6.1f}x CartPole{verdict}"
            + (f" [CartPole {timing.beside_us:.1f} us beside]" if timing.beside_us else ""))


def single_agent_runner(env, make_agent: Callable[[], object], episodes) -> Callable[[], int]:
    """A function that plays the given (task id, seed) episodes of a SearchEnv with a fresh session
    agent (``choose_action(session)``) and returns the steps taken: what the env benchmarks time."""

    def run() -> int:
        agent, steps = make_agent(), 0
        for task_id, seed in episodes:
            env.reset(seed=seed, options={"task_id": task_id})
            done = False
            while not done:
                _, _, terminated, truncated, _ = env.step(agent.choose_action(env.session))
                steps += 1
                done = terminated or truncated
        return steps

    return run
