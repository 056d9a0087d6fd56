"""Whether a run that trained one policy per agent can play an evaluation suite's team.

``searchgym evaluate --agent run`` plays a trained run on another suite of the same kind. A run whose
agents share one policy (``population_mode`` / ``team_mode`` ``"shared"``) plays any team; one that
trained a policy per agent (``"separate"``, ``"shared_trunk"``) has a policy only for the agents of
its own suite. Why checked before any episode: on a team of other agents (the roles team for a run
of generalists) an LLM run failed mid-evaluation with a bare ``'lead'`` (a KeyError), and a
candidate run played every unknown agent with its first agent's policy, silently.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from searchgym.suites import Suite, env_kind, make_env


def per_agent_option(config: Any) -> tuple[str, str] | None:
    """``(option, value)`` when the trainer config ``config`` trains one policy per agent (an LLM
    run's ``team_mode``, a candidate run's ``population_mode``); None when its agents share one."""
    for option in ("team_mode", "population_mode"):
        value = getattr(config, option, None)
        if isinstance(value, str) and value != "shared":
            return option, value
    return None


@functools.lru_cache(maxsize=8)
def agent_names(suite: Suite) -> tuple[str, ...]:
    """The agents of ``suite``'s (parallel) env, in its order; built once per suite and command."""
    env = make_env(suite, "test")
    try:
        return tuple(env.possible_agents)
    finally:
        env.close()


def check_team_agents(folder: Path, trained_on: Suite, suite: Suite, config: Any) -> None:
    """One-line ValueError when the run in ``folder`` (trained on ``trained_on`` with the trainer
    config ``config``) has no policy of its own for an agent of ``suite``. A suite whose agents are
    some of the run's is played: each of them plays the policy it trained."""
    option = per_agent_option(config)
    if option is None or env_kind(suite) != "parallel":
        return
    theirs, mine = agent_names(trained_on), agent_names(suite)
    missing = [agent for agent in mine if agent not in theirs]
    if missing:
        name, value = option
        raise ValueError(f"{folder} trained one policy per agent ({name} {value!r}), for {', '.join(theirs)}; suite "
                         f"{suite.id}'s agents are {', '.join(mine)} ({', '.join(missing)}: no policy of the run); "
                         f"accepted: a suite with the run's agents (or some of them), or a run trained with one shared "
                         f"policy ({name} 'shared')")
