"""The reader in text mode: the same plan, written as tool calls (``SearchQA-v0``, group members).

Why: a language model can be fine-tuned on the reader's transcripts. The text envs show only each
step's result, so the agent keeps its own transcript (the lines it wrote and what came back),
reads it with the candidate reader's parser and asks :meth:`ReaderPolicy.need` what is missing;
with no candidate list it writes any call it needs (a look-up of any name, any calculation) and
answers in its own words (a list answer joins the subjects it read). A team member reads its role
from the prompt's first line and the notes that follow its results; it uses only its own tools,
posts the lines of its latest result that the plan uses, and waits for what others must find.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from searchgym.baselines.reader import LOOKUP_TOOLS, Need, ReaderPolicy
from searchgym.baselines.reader_observation import Reading, operands, plain_name, read, sentence_facts
from searchgym.baselines.reader_plan import Plan, parse_question

from searchgym.action_types import Action
from searchgym.actions import format_action

_WRAPPED = re.compile(r"^\s*<(tool_response|information)>\n?(.*?)\n?</\1>", re.DOTALL)


def unwrap(result: str) -> str:
    """A tool result without its ``<tool_response>``/``<information>`` wrapper (notes after it dropped)."""
    match = _WRAPPED.match(result)
    return match[2].strip() if match else result.strip()


_NOTES = "\n\nNew notes on the blackboard:\n"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_PAGE_HEADER = re.compile(r"^\[\d+\] .+ \(https?://\S+\)$")


def result_lines(action: str, result: str) -> list[str]:
    """A result's lines as notes read on their own (as the team env cuts them for ``post``)."""
    if action.startswith("calculator("):
        expression = action.split('="', 1)[1].rsplit('")', 1)[0] if '="' in action else ""
        return [f"{expression} = {result.strip()}"]
    lines, header = [], ""
    for raw in result.splitlines():
        line = raw.strip()
        if not line or _PAGE_HEADER.match(line):
            continue
        if action.startswith("knowledge_base("):
            if line.startswith("- ") and header:
                lines.append(f"{header}: {line[2:]}")
            elif not line.startswith("- "):
                header = line
            continue
        lines.extend(s.strip() for s in _SENTENCE_END.split(line) if s.strip())
    return lines


class ReaderTextAgent:
    """Writes the reader's next step as text; one per agent (it notices a new episode's prompt)."""

    def __init__(self, tool_format: str = "hermes", policy: ReaderPolicy | None = None) -> None:
        self.tool_format = tool_format
        self.policy = policy or ReaderPolicy()
        self.reset()

    def reset(self) -> None:
        self.header = ""
        self.question = ""
        self.steps: list[tuple[str, str]] = []
        self.notes: list[str] = []
        self.new_notes = 0  # notes that arrived with the latest observation
        self._pending: str | None = None

    def transcript(self) -> str:
        """What the agent has seen, in the candidate-mode text format the reader parses."""
        lines = [self.header] if self.header else []
        lines.append(f"Question: {self.question}")
        if self.header:
            lines += ["Blackboard:", *self.notes]
        for k, (action, result) in enumerate(self.steps, start=1):
            lines += [f"Step {k}: {action}", result]
        return "\n".join(lines) + "\n"

    def observe(self, observation: str | Mapping) -> None:
        text = str(observation.get("text", "")) if isinstance(observation, Mapping) else str(observation)
        if "\nQuestion: " in text or text.startswith("Question: "):  # a prompt: a new episode
            self.reset()
            self.header = text.split("\n", 1)[0] if text.startswith("You are ") else ""
            self.question = text.rsplit("Question: ", 1)[1].split("\n", 1)[0].strip()
            return
        result, _, notes = text.partition(_NOTES)
        fresh = [line for line in notes.splitlines() if line.strip()]
        self.notes += fresh
        self.new_notes = len(fresh)
        if self._pending is not None:
            self.steps.append((self._pending, unwrap(result)))
            own = re.match(r"^Your note is on the blackboard: (.*)$", result.strip(), re.DOTALL)
            if own and self.header:  # the env tells others of a note, not its author: keep it on our board
                self.notes.append(f"[round {len(self.steps)}] {self.header.split()[2]}: {own[1]}")
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
        """The plan's next step with this agent's tools; a team member that cannot take it posts
        what the plan uses from its latest result, or waits."""
        team = bool(self.header)
        need = self.policy.need(plan, reading, self.policy.member_rank(reading))
        if team and not reading.can_answer:
            post = self._post(need, plan, reading)
            if post is not None:
                return post
        action = self._meet(need, plan, reading)
        if action is None and team:
            action = self._post(need, plan, reading) or Action.wait()
        return action or Action.answer("unknown")

    def _meet(self, need: Need, plan: Plan, reading: Reading) -> Action | None:
        def has(tool: str) -> bool:
            return reading.tools is None or tool in reading.tools

        tried = {action for action, _ in reading.steps}
        answer = (lambda text: Action.answer(text)) if reading.can_answer else (lambda text: None)
        if need.what == "answer":
            return answer(need.value)
        if need.what == "answer_list":
            search = Action.call("web_search", query=need.name)
            if has("web_search") and search.render() not in tried:
                return search
            subjects = self._subjects(need, plan, reading)
            waiting = bool(self.header) and (not subjects or self.new_notes > 0)  # notes still arriving
            return None if waiting else answer("; ".join(subjects) or "none")
        if need.what == "clarify":
            return Action.call("ask_for_clarification", question=f"Which {plan.paths[0].start} do you mean?") \
                if has("ask_for_clarification") else None
        if need.what == "clock":
            return Action.call("current_time") if has("current_time") else None
        if need.what == "calculate":
            found = reading.calculations.get(operands(need.expression))
            if found is not None:
                return answer(found)
            return Action.call("calculator", expression=need.expression) if has("calculator") else None
        for tool in self.policy.lookup_order + tuple(t for t in LOOKUP_TOOLS if t not in self.policy.lookup_order):
            action = Action.call(tool, **{"entity" if tool == "knowledge_base" else "query": need.name})
            if has(tool) and action.render() not in tried:
                return action
        if has("ask_for_clarification") and not any(has(t) for t in LOOKUP_TOOLS) and not reading.clarified \
                and not any(a.startswith("ask_for_clarification(") for a in tried) and plan.kind == "value" \
                and not plan.paths[0].relations:  # namesakes are asked about by name: ask once which is meant
            return Action.call("ask_for_clarification", question=f"Which {plan.paths[0].start} do you mean?")
        return None if reading.tools is not None else Action.answer("unknown")

    @staticmethod
    def _subjects(need: Need, plan: Plan, reading: Reading) -> list[str]:
        subjects: dict[str, str] = {}
        for (subject, predicate), value in reading.facts.items():
            if predicate == plan.target and value == need.name:
                key = plain_name(subject)
                if len(subject) >= len(subjects.get(key, "")):
                    subjects[key] = subject  # the display name ("Mara Quell (painter)") when seen
        return sorted(subjects.values())

    def _post(self, need: Need, plan: Plan, reading: Reading) -> Action | None:
        """A line of the latest tool result that the plan uses and the board lacks."""
        posted = {note.split(": ", 1)[1] for note in self.notes if ": " in note}
        tool_steps = [(a, r) for a, r in reading.steps if not a.startswith(("post(", "wait(", "answer("))]
        if not tool_steps:
            return None
        action, result = tool_steps[-1]
        relevant = {(plain_name(s), p) for s, p in need.relevant} | set(need.relevant)
        computes = plan.kind in ("sum", "difference", "years_since")
        for line in result_lines(action, result):
            if line in posted:
                continue
            if line.startswith("I mean ") or (computes and (" = " in line or line.startswith("The current year is"))):
                return Action.post(line)
            kb = re.match(r"^(?P<s>.+) \((?:\w+)\): (?P<p>[a-z ]+): (?P<v>.+)$", line)
            stated = [(kb["s"], kb["p"].replace(" ", "_"), kb["v"])] if kb else sentence_facts(line)
            if any((s, p) in relevant or (plain_name(s), p) in relevant or
                   (plan.kind == "list" and p == plan.target and v == need.name) for s, p, v in stated):
                return Action.post(line)
        return None


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
