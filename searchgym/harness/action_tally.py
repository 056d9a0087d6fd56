"""How many of an agent's actions the env could not take, counted from each episode's last info, and a
warning when most could not.

Why: an agent whose ``act`` returned a candidate index out of range at every step scored 0 with 12
steps and no tool call each, and nothing said why, where an endpoint run warns when most replies were
no readable action (:func:`searchgym.endpoint.reply_checks.reply_report`; the same share is used here).
The env counts, per agent, ``format_errors`` (no readable action: an index out of range, a value of
another type) and ``invalid_actions`` (a call it refused); ``step`` is the actions taken.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from searchgym.endpoint.reply_checks import UNPARSEABLE_WARNING_SHARE


@dataclass
class ActionTally:
    """The actions of a split's episodes, and those the env could not take."""

    actions: int = 0
    unusable: int = 0

    def add(self, info: Mapping[str, Any]) -> None:
        """One agent's last info of an episode (its counts cover the whole episode)."""
        self.actions += _count(info, "step")
        self.unusable += _count(info, "format_errors") + _count(info, "invalid_actions")

    def warning(self) -> str | None:
        """One line when more than half of the actions could not be taken, else None."""
        if not self.actions or self.unusable / self.actions <= UNPARSEABLE_WARNING_SHARE:
            return None
        return (f"{self.unusable} of {self.actions} test actions ({self.unusable / self.actions:.0%}) were not "
                "actions the env could take (not readable, such as a candidate index out of range, or a tool call "
                "it refused); check what the agent's act returns")

    def record(self) -> dict[str, Any]:
        """What result.json keeps: ``actions`` with the counts and the warning, only when there is a warning
        (a run whose actions were taken keeps the result.json it had)."""
        warning = self.warning()
        return {} if warning is None else {"actions": {"taken": self.actions, "unusable": self.unusable,
                                                       "warning": warning}}


def stored_warning(result: Mapping[str, Any]) -> str | None:
    """The warning a result.json's ``actions`` holds (None: none, not a text, or the run's LLM replies were
    warned about already, ``llm_replies``: one warning of one cause)."""
    replies = result.get("llm_replies")
    if isinstance(replies, Mapping) and isinstance(replies.get("warning"), str):
        return None
    actions = result.get("actions")
    warning = actions.get("warning") if isinstance(actions, Mapping) else None
    return warning if isinstance(warning, str) else None


def _count(info: Mapping[str, Any], key: str) -> int:
    value = info.get(key, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
