"""The reader in text mode: the same plan, written as tool calls (``SearchQA-v0``, group members).

Why: a language model can be fine-tuned on the reader's transcripts. The text envs show only each
step's result, so the agent keeps its own transcript (the lines it wrote and what came back),
reads it with the candidate reader's parser and asks :meth:`ReaderPolicy.need` what is missing;
with no candidate list it writes any call it needs (a look-up of any name, any calculation) and
answers in its own words (a list answer joins the subjects it read). A team member in text mode
sees notes as text it does not act on: teams are played in candidate mode.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from searchgym.actions import Action, format_action
from searchgym.baselines.reader import LOOKUP_TOOLS, Need, ReaderPolicy
from searchgym.baselines.reader_observation import Reading, operands, plain_name, read
from searchgym.baselines.reader_plan import Plan, parse_question

_WRAPPED = re.compile(r"^\s*<(tool_response|information)>\n?(.*?)\n?</\1>", re.S)


def unwrap(result: str) -> str:
    """A tool result without its ``<tool_response>``/``<information>`` wrapper (notes after it dropped)."""
    match = _WRAPPED.match(result)
    return match[2].strip() if match else result.strip()


class ReaderTextAgent:
    """Writes the reader's next step as text; one per agent and episode (``reset`` between them)."""

    def __init__(self, tool_format: str = "hermes", policy: ReaderPolicy | None = None) -> None:
        self.tool_format = tool_format
        self.policy = policy or ReaderPolicy()
        self.reset()

    def reset(self) -> None:
        self.question = ""
        self.steps: list[tuple[str, str]] = []
        self._pending: str | None = None

    def transcript(self) -> str:
        """What the agent has seen, in the candidate-mode text format the reader parses."""
        lines = [f"Question: {self.question}"]
        for k, (action, result) in enumerate(self.steps, start=1):
            lines += [f"Step {k}: {action}", result]
        return "\n".join(lines) + "\n"

    def observe(self, observation: str | Mapping) -> None:
        text = str(observation.get("text", "")) if isinstance(observation, Mapping) else str(observation)
        if "\nQuestion: " in text or text.startswith("Question: "):  # a prompt: a new episode
            self.reset()
            self.question = text.rsplit("Question: ", 1)[1].split("\n", 1)[0].strip()
        elif self._pending is not None:
            self.steps.append((self._pending, unwrap(text)))
        self._pending = None

    def act(self, env: Any, observation: str | Mapping, info: Any = None) -> str:
        """The next action's text for ``observation`` (the prompt, then each step's result)."""
        self.observe(observation)
        reading = read({"text": self.transcript(), "candidates": ()})
        plan = parse_question(self.question)
        action = self.next_action(plan, reading) if plan is not None else Action.answer("unknown")
        self._pending = action.render()
        return format_action(action, self.tool_format)

    def next_action(self, plan: Plan, reading: Reading) -> Action:
        need = self.policy.need(plan, reading)
        tried = {action for action, _ in reading.steps}
        if need.what == "answer":
            return Action.answer(need.value)
        if need.what == "answer_list":
            return self._list(need, plan, reading, tried)
        if need.what == "clarify":
            return Action.call("ask_for_clarification", question=f"Which {plan.paths[0].start} do you mean?")
        if need.what == "clock":
            return Action.call("current_time")
        if need.what == "calculate":
            found = reading.calculations.get(operands(need.expression))
            return Action.answer(found) if found is not None else Action.call("calculator", expression=need.expression)
        return self._lookup(need, tried)

    def _lookup(self, need: Need, tried: set[str]) -> Action:
        for tool in self.policy.lookup_order + tuple(t for t in LOOKUP_TOOLS if t not in self.policy.lookup_order):
            action = Action.call(tool, **{"entity" if tool == "knowledge_base" else "query": need.name})
            if action.render() not in tried:
                return action
        return Action.answer("unknown")  # every tool was asked and the fact never appeared

    @staticmethod
    def _list(need: Need, plan: Plan, reading: Reading, tried: set[str]) -> Action:
        search = Action.call("web_search", query=need.name)
        if search.render() not in tried:
            return search
        subjects: dict[str, str] = {}
        for (subject, predicate), value in reading.facts.items():
            if predicate == plan.target and value == need.name:
                key = plain_name(subject)
                if len(subject) >= len(subjects.get(key, "")):
                    subjects[key] = subject  # the display name ("Mara Quell (painter)") when seen
        return Action.answer("; ".join(sorted(subjects.values())) or "none")


class ReaderTextActor:
    """The harness Actor for text envs: one :class:`ReaderTextAgent` per member."""

    def __init__(self, tool_format: str = "hermes", policy: ReaderPolicy | None = None) -> None:
        self.tool_format, self.policy = tool_format, policy or ReaderPolicy()
        self.agents: dict[str, ReaderTextAgent] = {}

    def _agent(self, name: str) -> ReaderTextAgent:
        if name not in self.agents:
            self.agents[name] = ReaderTextAgent(self.tool_format, self.policy)
        return self.agents[name]

    def reset(self) -> None:
        for agent in self.agents.values():
            agent.reset()

    def act(self, env: Any, observation: Any, info: Any = None) -> Any:
        if isinstance(observation, Mapping) and "text" not in observation:
            return {name: self._agent(name).act(env, obs) for name, obs in observation.items()}
        return self._agent("").act(env, observation)
