"""The random agent: a lower bound that picks uniformly among admissible candidates.

In text mode it builds the same candidates the env would list and writes a random one as a
tool call, so both modes share one notion of "a random admissible action"; :class:`SeededRandom`
holds that notion and the seeded generator for the single agent and the team alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from searchgym.actions import format_action
from searchgym.envs.session import SearchSession


@dataclass
class SeededRandom:
    """A random baseline's own seeded generator (never global state) and its text-mode draw."""

    seed: int = 0
    rng: np.random.Generator = field(init=False)

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)

    def reset(self) -> None:
        """Nothing to reset; the generator keeps running across episodes."""

    def random_text_action(self, session: SearchSession, options: Sequence[Any] | None = None) -> str:
        """One of ``options`` (default: the candidates the session would list), uniformly, as a tool call."""
        if options is None:
            options = session.generator.generate(session.observed, session.allowed, session.can_answer)
        choice = options[int(self.rng.integers(len(options)))]
        return format_action(choice, session.config.tool_format)


@dataclass
class RandomAgent(SeededRandom):
    """Uniform over admissible actions."""

    name: str = "random"

    def choose_action(self, session: SearchSession):
        if session.config.action_mode == "candidates":
            return int(self.rng.integers(len(session.candidates)))
        return self.random_text_action(session)
