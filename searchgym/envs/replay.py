"""Pickling an env as its recipe: the EnvConfig and the episode so far, replayed on load.

Why: an env's world and search tools are shared by every env of the process (and the tools hold
a lock and a search index), so an env does not pickle them. It pickles what rebuilds it: its
config, the state of its random generator when the episode's task was drawn, the reset options
and the actions taken since. Loading builds the env (fetching the shared world and tools of the
new process), restores the generator and replays the actions; episodes are deterministic given
these, so the loaded env continues exactly as the original would.
"""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from searchgym.tool_calls import call_as_dict


@dataclass
class EpisodeRecord:
    """What replays the current episode: generator state at reset, options, actions since."""

    rng_state: dict[str, Any]
    options: dict[str, Any] | None
    seed: int | None = None  # the seed the generator came from, where the env keeps it (Gymnasium)
    actions: list[Any] = field(default_factory=list)

    @classmethod
    def start(cls, rng: np.random.Generator, options: dict[str, Any] | None, seed: int | None = None) -> EpisodeRecord:
        return cls(rng.bit_generator.state, dict(options) if options is not None else None, seed)


def recorded(action: Any) -> Any:
    """What the record keeps of an action: a copy unless it is immutable. Why: a structured call is
    a dict the caller may change and send again (one template, a new query each step); keeping the
    object made a pickled env replay the changed call, a different episode."""
    if action is None or isinstance(action, str | int | float | np.generic):
        return action
    if not isinstance(action, dict | np.ndarray):  # an object with .function: its dict form replays it, and
        as_dict = call_as_dict(action)  # pickles where the caller's class would not (one defined in a function)
        action = action if as_dict is None else as_dict
    try:
        return copy.deepcopy(action)
    except Exception:  # noqa: BLE001 - an object that cannot be copied is kept as it is
        return action


def generator_from(state: dict[str, Any]) -> np.random.Generator:
    """A generator in exactly ``state`` (a ``bit_generator.state`` dict)."""
    bit_generator = getattr(np.random, state["bit_generator"])()
    bit_generator.state = state
    return np.random.Generator(bit_generator)


def load_env(cls: type, kwargs: dict[str, Any], record: EpisodeRecord | None) -> Any:
    """Unpickle: build ``cls(**kwargs)`` and bring it to where ``record`` left the original
    (``reset`` without a seed from the restored generator draws the same task; then every action
    again). The env restores its generator in ``_set_generator``."""
    env = cls(**kwargs)
    if record is None:
        return env
    env._set_generator(generator_from(record.rng_state), record.seed)
    mode, env.render_mode = env.render_mode, None  # before: a copy of a "human" env printed the episode again
    try:
        with warnings.catch_warnings():  # ignored reset options warned the first time
            warnings.simplefilter("ignore")
            env.reset(options=record.options)
        for action in record.actions:
            env.step(action)
    finally:
        env.render_mode = mode
    return env
