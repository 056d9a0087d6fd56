"""Helpers the env tests share (on pytest's pythonpath, see pyproject.toml)."""

from __future__ import annotations

from collections.abc import Callable

from searchgym.baselines.team_random import TeamRandom
from searchgym.candidates import Observed, Round
from searchgym.envs.team import TeamSearchEnv


def memo_free_copy(observed: Observed, change: Callable[[int, Round], Round] | None = None) -> Observed:
    """The same record with no memo anywhere (new Round objects, empty ``derived``);
    ``change(i, round)`` may return a changed round."""
    rounds = []
    for i, r in enumerate(observed.rounds):
        fresh = Round(r.action, r.result, r.fact_ids, r.names, r.calculator_value, r.clock_year)
        rounds.append(change(i, fresh) if change else fresh)
    return Observed(observed.question_names, rounds)


def team_four_rounds_in() -> TeamSearchEnv:
    """Two generalists on the small world, seed 3, after 4 rounds of a seeded random team."""
    env = TeamSearchEnv(roles="generalists", team_size=2, action_mode="candidates", world_size="small")
    team = TeamRandom(seed=5)
    env.reset(seed=3)
    for _ in range(4):
        if env.agents:
            env.step(team.choose_actions(env))
    return env
