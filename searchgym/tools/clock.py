"""``current_time()``: the world's simulated clock, fixed per world so that answers stay stable.

Temporal tasks ("how many years ago ...") need it: the gold evidence chain has a hop with
fact id ``"clock"``, which this tool reveals.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from searchgym.tools.base import Tool, ToolResult
from searchgym.tools.tool_registry import FixedCall, TagForm, ToolSpec, register_tool

CLOCK_EVIDENCE_ID = "clock"

# Spelled out rather than strftime("%A") so the text never depends on the process locale.
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


class CurrentTime(Tool):
    """Tell the agent today's date in the world."""

    name = "current_time"
    description = "Get the current date and year. Use it for questions about ages or how long ago something was."
    parameters: dict[str, Any] = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}

    def __init__(self, now: dt.date):
        if not isinstance(now, dt.date):
            raise TypeError(f"CurrentTime needs a datetime.date, got {type(now).__name__}")
        self.now = now.date() if isinstance(now, dt.datetime) else now

    def run(self) -> ToolResult:
        day = WEEKDAYS[self.now.weekday()]
        text = f"The current date is {self.now.isoformat()} ({day}). The current year is {self.now.year}."
        return ToolResult(text=text, evidence_ids=(CLOCK_EVIDENCE_ID,))


register_tool(ToolSpec(
    "current_time", CurrentTime, build=lambda world, options: CurrentTime(world.now),
    tag=TagForm("time"), candidates=FixedCall(note="the world's clock"), grounding="always",
    evidence_ids=(CLOCK_EVIDENCE_ID,), roles=("analyst",), order=40,
))
