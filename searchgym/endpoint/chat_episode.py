"""One agent's conversation with a chat endpoint in one episode (:class:`ChatEpisode`), and how a reply
names a candidate in candidate mode (:func:`choose_candidate`). Why a module of its own: the endpoint agent
(:mod:`searchgym.endpoint.openai_agent`) plays many such episodes on a pool; this is one of them."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence

from searchgym.action_types import Action
from searchgym.actions import parse_action, unwrap_tool_result
from searchgym.endpoint.chat_client import ChatClient, Reply
from searchgym.endpoint.chat_replies import ChatReply, QueuedCall, kept_text

_TOOLS_LINE = re.compile(r"^Tools: \[.*$\n?", re.MULTILINE)


def choose_candidate(reply: str, candidates: Sequence[Action]) -> int:
    """The candidate the reply names: the action it writes (equal to a candidate), or, when it
    writes no action, its first in-range number; -1 otherwise (the env refuses it as malformed)."""
    tools = sorted({c.tool for c in candidates if c.tool})
    parsed = parse_action(reply, "hermes", tools, allow_team_actions=True)
    if isinstance(parsed, Action):
        return next((i for i, c in enumerate(candidates) if c == parsed), -1)
    for match in re.finditer(r"\b\d{1,4}\b", reply[:2000]):
        if int(match.group()) < len(candidates):
            return int(match.group())
    return -1


class ChatEpisode:
    """One agent's conversation in one episode, and its transcript.

    ``chat=True`` (native tools): the first message is ``chat_prompt`` (no tool list: the
    ``tools`` field carries it) and each tool result goes back raw in a ``tool`` message.
    Further tool calls of one reply are played in order, one per env step, without a request.
    """

    def __init__(self, client: ChatClient, deadline: float, tools: list[dict] | None, system_prompt: str,
                 chat_prompt: str | None = None) -> None:
        self.client, self.deadline, self.tools = client, deadline, tools
        self.chat_prompt = chat_prompt
        self.messages: list[dict] = [{"role": "system", "content": system_prompt}]
        self.turns: list[dict] = []
        self._call_id: str | None = None
        self._queued: list[QueuedCall] = []
        self._refusal = ""

    def _add_observation(self, observation: str) -> None:
        if len(self.messages) == 1:
            text = self.chat_prompt if self.chat_prompt is not None else \
                (_TOOLS_LINE.sub("", observation) if self.tools else observation)
            self.messages.append({"role": "user", "content": text})
        elif self._call_id is not None:
            content = unwrap_tool_result(observation) if self.tools else observation
            self.messages.append({"role": "tool", "tool_call_id": self._call_id, "content": content})
        else:
            self.messages.append({"role": "user", "content": observation})
        if self._refusal and not self._queued:  # the calls of the last reply that were not run
            if self.messages[-1]["role"] == "tool":
                self.messages.append({"role": "user", "content": self._refusal})
            else:
                self.messages[-1]["content"] += "\n" + self._refusal
            self._refusal = ""

    def unplayed(self) -> list[str]:
        """The queued calls of the last reply that have not run (the episode may have ended)."""
        return [call.action for call in self._queued]

    def reply_to(self, observation: str) -> str:
        self._add_observation(observation)
        start = time.monotonic()
        if self._queued:
            call = self._queued.pop(0)
            self._call_id = call.call_id
            self.turns.append({"observation": observation, "reply": None, "action": kept_text(call.action),
                               "error": None, "error_kind": None, "attempts": 0, "seconds": 0.0, "queued": True})
            return call.action
        if start >= self.deadline:
            reply: Reply = Reply("(no reply: the per-task timeout has passed)", error="timeout", error_kind="no reply")
        else:
            reply = self.client.complete(self.messages, self.tools, self.deadline)
        self._call_id = reply.tool_call_id
        if isinstance(reply, ChatReply):
            self._queued, self._refusal = list(reply.queued), reply.refusal
        self.messages.append(reply.message or {"role": "assistant", "content": reply.action[:2000]})
        self.turns.append({"observation": observation, "reply": reply.message, "action": kept_text(reply.action),
                           "error": reply.error, "error_kind": reply.error_kind, "attempts": reply.attempts,
                           "seconds": round(time.monotonic() - start, 3)})
        served_by = reply.system_fingerprint if isinstance(reply, ChatReply) else None
        if served_by is not None:  # which server answered (the scripted endpoint names itself: a privileged run)
            self.turns[-1]["system_fingerprint"] = served_by
        return reply.action
