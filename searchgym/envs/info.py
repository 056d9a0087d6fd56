"""The info dict of every env (single agent, group, team), at reset and after each step.

Why: the three envs built it three times and the copies drifted. The keys, for every env:

- the session's (``task_id``, ``family``, ``split``, ``step``, ``tool_calls``,
  ``invalid_actions``, ``format_errors``, ``evidence_found``, ``gold_evidence``, ``answer``,
  ``success``, ``score``; see :meth:`SearchSession.info`);
- ``reward_components`` (``answer``, ``step_cost``, ``invalid_cost``, ``format_cost``,
  ``total``) and ``signals`` (the process judge's ``new_gold_ids``, ``new_gold``,
  ``consistent``, ``reason``, ``contribution``) of this step; ``invalid`` and ``format_error``;
- the env's own keys (a team's ``role``, ``action``, ``contribution``, ``team``, and the team's
  ``answer``/``success``/``score``);
- in candidate mode ``action_mask`` and ``candidates`` (the Actions behind the candidate texts);
- ``observation_data`` when the env was built with ``observation_data=True``.

At reset no step has happened: :data:`ZEROED_RESET` fills ``reward_components`` and
``signals`` with zeros in every env (the same keys as after a step, so vector envs can stack
infos; the group and team envs used to leave them empty).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from searchgym.envs.session import NO_REWARD, NO_SIGNALS, SearchSession, StepOutcome, signals_info

#: ``(reward_components, signals)`` at reset.
ZEROED_RESET: tuple[Mapping[str, Any], Mapping[str, Any]] = (NO_REWARD, NO_SIGNALS)


def episode_info(
    session: SearchSession,
    outcome: StepOutcome | None,
    candidate_mode: bool,
    reset: tuple[Mapping[str, Any], Mapping[str, Any]],
    reward: Mapping[str, float] | None = None,
    extra: Mapping[str, Any] | None = None,
    observation_data: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One agent's info; ``outcome`` is None at reset. ``reward`` replaces the outcome's own
    reward components (a team's reward); ``extra`` adds or replaces keys (a team's)."""
    info = session.info()
    if outcome is None:
        info["reward_components"], info["signals"] = dict(reset[0]), dict(reset[1])
    else:
        info["reward_components"] = dict(reward if reward is not None else outcome.reward)
        info["signals"] = signals_info(outcome.signals)
    info["invalid"] = bool(outcome.invalid) if outcome else False
    info["format_error"] = bool(outcome.format_error) if outcome else False
    if extra:
        info.update(extra)
    if candidate_mode:
        info["action_mask"] = session.action_mask
        info["candidates"] = list(session.candidates)
    if observation_data is not None:
        info["observation_data"] = dict(observation_data)
    return info
