"""``ask_for_clarification(question)``: a simulated user who answers ambiguous tasks.

On an ambiguous task (a name shared by several entities) the user gives the disambiguating
detail, revealed as evidence id ``"clarification"``; on any other task there is nothing to
clarify, and the call only costs the agent a step. One instance per task.
"""

from __future__ import annotations

from typing import Any

from searchgym.tools.base import Tool, ToolResult
from searchgym.tools.tool_registry import FixedCall, TagForm, ToolSpec, register_tool
from searchgym.world.model import Task

CLARIFICATION_EVIDENCE_ID = "clarification"
MAX_QUESTION_CHARS = 500


class AskForClarification(Tool):
    """Ask the user what they meant; only ambiguous tasks have an answer."""

    name = "ask_for_clarification"
    description = (
        "Ask the user a question about what they mean, when the question is ambiguous "
        "(for example, several people or places share a name)."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {"question": {"type": "string", "description": "Your question to the user."}},
        "required": ["question"],
        "additionalProperties": False,
    }

    def __init__(self, task: Task | None):
        self.task = task

    def run(self, question: str) -> ToolResult:
        if not question.strip():
            return ToolResult.failure("ask_for_clarification needs a non-empty question")
        if len(question) > MAX_QUESTION_CHARS:
            return ToolResult.failure(
                f"ask_for_clarification question is too long (limit {MAX_QUESTION_CHARS} characters)"
            )
        if self.task is not None and self.task.clarification:
            return ToolResult(text=self.task.clarification, evidence_ids=(CLARIFICATION_EVIDENCE_ID,))
        return ToolResult(text="There is nothing to clarify: the question means what it says.")


register_tool(ToolSpec(
    "ask_for_clarification", AskForClarification, build=AskForClarification, per_task=True,
    tag=TagForm("clarify", "question", "question for the user"),
    candidates=FixedCall((("question", "Which {name} do you mean?"),), note="ask the user"), grounding="always",
    evidence_ids=(CLARIFICATION_EVIDENCE_ID,), roles=("lead",), order=50,
))
