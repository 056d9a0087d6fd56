"""``render_mode="human"`` for the text envs: the episode printed to the terminal as it is played.

Gymnasium's "human" mode renders during ``reset`` and ``step`` and ``render()`` returns None;
PettingZoo's ``render_test`` checks that. The picture of these envs is text (the "ansi" render:
the task, then each round's action and result), so a person watching wants the lines a step
added, not the whole transcript again after every step.
"""

from __future__ import annotations

import sys
from typing import TextIO

from searchgym.shown import terminal_safe


class TerminalView:
    """Prints what an env's ansi text added since the last print (all of it after a reset)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream
        self._shown = ""

    def show(self, text: str | None, label: str = "") -> None:
        """Print ``text``'s new part, under ``== label`` when given (one view per agent)."""
        if not text:
            return
        new = text.removeprefix(self._shown)  # the whole text when it does not extend the last one
        self._shown = text
        if new.strip():
            head = f"== {label}\n" if label else ""
            print(terminal_safe(head + new.strip("\n")), file=self.stream or sys.stdout, flush=True)
