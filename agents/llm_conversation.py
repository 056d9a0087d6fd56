"""One agent's episode of a multi-turn LLM rollout: its token stream and its rounds.

Why a module of its own: :mod:`~searchgym.agents.llm_rollout` (which re-exports both) plays the
episodes; these are what it, the actor, the trainer and SFT keep of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .llm_policy import ChatCodec, Generation
from .trajectory import Step, Trajectory


class Conversation:
    """One agent's token stream: ids, the 0/1 loss mask and the turn of each generated token."""

    def __init__(self, codec: ChatCodec, messages: list[dict], tools: list[dict] | None, budget: int,
                 callable_tools: list[dict] | None = None, tool_format: str = "hermes") -> None:
        self.codec, self.budget = codec, int(budget)
        self.messages = list(messages)
        self.tools = tools
        self.callable_tools = callable_tools if callable_tools is not None else (tools or [])  # the guide's tools
        self.tool_format = tool_format
        self.allowed: dict[int, tuple[int, ...]] = {}  # guided tokens: index in token_ids -> the ids allowed there
        self.sampled_log_probs: dict[int, float] = {}  # guided tokens: the log-prob each was drawn with
        self.token_ids = codec.prompt_ids(messages, tools)
        self.loss_mask = [0] * len(self.token_ids)
        self.turn_index = [-1] * len(self.token_ids)
        self.prompt_length = len(self.token_ids)
        self._last: list[int] = []

    @property
    def room(self) -> int:
        return self.budget - len(self.token_ids)

    @property
    def generated_tokens(self) -> int:
        return sum(self.loss_mask)

    def add_turn(self, generation: Generation, turn: int) -> None:
        n = len(generation.token_ids)
        allowed = getattr(generation, "allowed", None)
        if allowed is not None:
            self.allowed.update({len(self.token_ids) + k: ids for k, ids in enumerate(allowed)})
            self.sampled_log_probs.update({len(self.token_ids) + k: lp for k, lp in enumerate(generation.log_probs)})
        self.token_ids += generation.token_ids
        self.loss_mask += [1] * n
        self.turn_index += [turn] * n
        self._last = list(generation.token_ids)
        self.messages.append({"role": "assistant", "content": generation.text})

    def add_message(self, role: str, content: str, min_turn_tokens: int = 1) -> bool:
        """Append an observation and the next generation prompt; False (nothing added) without room."""
        extra = self.codec.close_turn_ids(self._last) + self.codec.message_ids(role, content)
        if len(self.token_ids) + len(extra) + min_turn_tokens > self.budget:
            return False
        self.token_ids += extra
        self.loss_mask += [0] * len(extra)
        self.turn_index += [-1] * len(extra)
        self.messages.append({"role": role, "content": content})
        return True


@dataclass
class LLMEpisode:
    """One agent's episode: its conversation and one Step per round."""

    task_id: str
    agent_id: str
    group_key: str
    conversation: Conversation
    steps: list[Step] = field(default_factory=list)
    success: bool = False
    done: bool = False
    muted: bool = False  # out of tokens: waits (team) or ended (single agent)
    budget_truncated: bool = False
    _trajectory: Trajectory | None = None

    def trajectory(self) -> Trajectory:
        if self._trajectory is None:
            self._trajectory = Trajectory(self.steps, agent_id=self.agent_id, group_id=self.group_key,
                                          task_id=self.task_id, success=self.success)
        return self._trajectory

    def token_advantages(self, step_advantages: np.ndarray) -> list[float]:
        """Each generated token gets its round's advantage; other tokens 0 (they are masked anyway)."""
        return [float(step_advantages[t]) if t >= 0 else 0.0 for t in self.conversation.turn_index]

    @property
    def final_return(self) -> float:
        return float(sum(s.reward for s in self.steps))
