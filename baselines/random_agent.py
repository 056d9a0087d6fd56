"""The random agent: a lower bound that picks uniformly among admissible candidates.

In text mode it builds the same candidates the env would list and writes a random one as a
tool call, so both modes share one notion of "a random admissible action".
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from searchgym.actions import format_action
from searchgym.envs.session import SearchSession


@dataclass
class RandomAgent:
    """Uniform over admissible actions, with its own seeded generator (never global state)."""

    seed: int = 0
    name: str = "random"
    rng: np.random.Generator = field(init=False)

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)

    def reset(self) -> None:
        """Nothing to reset; the generator keeps running across episodes."""

    def act(self, session: SearchSession):
        if session.config.action_mode == "candidates":
            return int(self.rng.integers(len(session.candidates)))
        candidates = session.generator.generate(session.observed, session.allowed, session.can_answer)
        choice = candidates[int(self.rng.integers(len(candidates)))]
        return format_action(choice, session.config.tool_format)
