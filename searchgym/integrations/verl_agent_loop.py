"""verl's tool agent loop with the searchgym episode's return as each trajectory's reward.

Why: verl's ``ToolAgentLoop`` keeps the ``agent_data.extra_fields`` its tools write to itself: its
output carries only ``turn_scores`` and ``tool_rewards`` (verl 0.7 and later), and its reward
managers see the row's ``extra_info`` and that output. So :class:`~searchgym.integrations.verl.SearchgymTool`'s
record of the episode (its return, whether it ended, its calls) never reached
:func:`~searchgym.integrations.verl_reward.compute_score`, which then started the task afresh and
stepped only the text after the last tool reply: a correct answer given with the ``answer`` tool
scored as a format error (-0.06 where the env returned 0.98).

:class:`SearchgymToolAgentLoop` is ``ToolAgentLoop`` plus one thing done when a trajectory ends
(:func:`finish_output`): the episode's fields go into the output's ``extra_fields`` (so a reward
manager that merges them into ``extra_info`` has them) and the env's return becomes the output's
``reward_score``, which verl uses as the trajectory's reward (``rm_scores``) without calling a
reward function. ``searchgym export --format verl`` names it in every row (``agent_name``) and
writes the ``agent_loop.yaml`` that registers it (verl's ``agent_loop_config_path``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from searchgym.integrations.verl_reward import compute_score

__all__ = ["AGENT_LOOP_CLASS", "EPISODE_FIELDS", "EpisodeReward", "SearchgymToolAgentLoop", "finish_output"]

AGENT_LOOP_CLASS = "searchgym.integrations.verl_agent_loop.SearchgymToolAgentLoop"
#: What ``SearchgymTool.execute`` records in ``agent_data.extra_fields`` (see verl.py).
EPISODE_FIELDS = ("searchgym_reward", "searchgym_done", "searchgym_success", "searchgym_calls")


def finish_output(output: Any, tool_fields: Mapping[str, Any] | None, row: Mapping[str, Any], response_text: str):
    """``output`` (a verl ``AgentLoopOutput``) with the episode's fields in ``extra_fields`` and its
    ``reward_score`` set to the env's return: :func:`compute_score` of the row's ``extra_info``
    merged with the fields ``SearchgymTool`` recorded (none when the model called no tool: the
    episode is then the response's text, stepped in a fresh env). A row that is not a searchgym
    task (no ``extra_info["searchgym"]``) is left to verl's reward function."""
    fields = {key: tool_fields[key] for key in EPISODE_FIELDS if tool_fields and key in tool_fields}
    output.extra_fields.update(fields)
    extra_info = row.get("extra_info")
    if not isinstance(extra_info, Mapping) or "searchgym" not in extra_info:
        return output
    output.reward_score = compute_score(str(row.get("data_source", "")), response_text, None,
                                        {**extra_info, **fields})
    return output


class ToolAgentLoopStandIn:
    """verl's ``ToolAgentLoop`` when verl is not installed: the class can be imported (and
    :func:`finish_output` tested), but a rollout needs verl."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("SearchgymToolAgentLoop runs inside verl's agent loop worker: pip install 'searchgym[verl]'")


try:
    from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop as _Loop
except ImportError:
    _Loop = ToolAgentLoopStandIn


class EpisodeReward:
    """The part of :class:`SearchgymToolAgentLoop` that is searchgym's, over any base with verl's
    ``ToolAgentLoop`` interface (``run``, ``_call_tool(tool_call, tools_kwargs, agent_data)``,
    ``tokenizer``, ``loop``): tested on CPU over a stand-in for verl's loop. verl makes one loop
    per trajectory, so the trajectory's ``agent_data`` is kept from its first tool call."""

    async def _call_tool(self, tool_call: Any, tools_kwargs: Any, agent_data: Any = None, *args: Any, **kwargs: Any):
        if agent_data is not None:
            self._searchgym_fields = agent_data.extra_fields
        return await super()._call_tool(tool_call, tools_kwargs, agent_data, *args, **kwargs)

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any):
        output = await super().run(sampling_params, **kwargs)
        fields = getattr(self, "_searchgym_fields", None)
        text = await self.loop.run_in_executor(
            None, lambda: self.tokenizer.decode(output.response_ids, skip_special_tokens=True))
        finish_output(output, fields, kwargs, text)  # kwargs: the row's fields (data_source, extra_info, ...)
        if fields and "searchgym_episode" in fields:  # the episode's env is no longer needed
            from searchgym.integrations.verl import EPISODES

            EPISODES.drop("trajectory:" + fields["searchgym_episode"])
        return output


class SearchgymToolAgentLoop(EpisodeReward, _Loop):
    """verl's ``ToolAgentLoop`` whose output carries the searchgym episode's record and return
    (see the module docstring)."""
