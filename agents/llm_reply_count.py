"""How many replies an LLM wrote and how many its env could not read as an action.

Why one counter: the recipe's batched evaluation (:mod:`searchgym.agents.llm_eval`) and the harness's
LLM actor (``searchgym.harness.llm_reply_tally``) each summed the sessions' format errors their own way;
both now read a finished episode's session here, so their counts cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class ReplyCount:
    """Replies written (the session's steps: one reply each) and those that did not parse (its format errors)."""

    replies: int = 0
    unparsed: int = 0

    def add_session(self, session: Any) -> None:
        """Counts the episode ``session`` played (read once, when the episode is over)."""
        self.replies += int(session.steps)
        self.unparsed += int(session.format_errors)

    @property
    def unparsed_share(self) -> float | None:
        """The share of replies that did not parse (None: no reply counted)."""
        return self.unparsed / self.replies if self.replies else None

    def record(self) -> dict[str, int]:
        """The counts as a run's result.json keeps them."""
        return {"replies": self.replies, "unparsed_replies": self.unparsed}


__all__ = ["ReplyCount"]
