"""Observation and action spaces of the single- and multi-agent envs.

Every call builds new space objects: a space holds its own random generator, so envs (and each
agent of a multi-agent env) must not share one, or seeding or sampling one env would move the
samples of another.

Text spaces need a finite character set. Observations are sanitised into ``OBS_CHARSET``
(printable ASCII plus Latin-1 letters; typographic quotes, dashes and ellipses become their ASCII
forms, accents of other letters are stripped, anything else becomes ``?``), so every observation an
env returns is inside its space, even over a user's corpus.

Text spaces are :class:`SearchText`, a ``Text`` that refuses Gymnasium's shared memory:
``AsyncVectorEnv(shared_memory=True)`` (what ``make_vec(..., vectorization_mode="async")``
builds by default) decodes a ``Text`` buffer once, when the vector env is built, so every later
observation would be that first all-zero buffer (a string of tabs). Refusing it at construction
names what works: ``vector_kwargs={"shared_memory": False}`` (observations through pipes) or
``vectorization_mode="sync"``.
"""

from __future__ import annotations

import re
import string
import unicodedata
from functools import lru_cache

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils.shared_memory import create_shared_memory

OBS_CHARSET = frozenset(string.printable.replace("\x0b", "").replace("\x0c", "")
                        + "".join(chr(c) for c in range(0xC0, 0x100)))
_CHARSET_STR = "".join(sorted(OBS_CHARSET))
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: A character outside ``OBS_CHARSET`` (one scan in C: names of the world have accented letters,
#: and a result that has one was checked character by character in Python).
_OUTSIDE = re.compile("[^" + "".join(re.escape(c) for c in _CHARSET_STR) + "]")


@lru_cache(maxsize=1 << 13)
def is_clean(text: str) -> bool:
    """Is every character of ``text`` in ``OBS_CHARSET`` (so ``sanitize`` only cuts it)?
    Memoised: a tool's result text recurs (its caches return the same string), and each was
    scanned again every step it was shown (the step's text, then its transcript block)."""
    return (text.isascii() and _CONTROL.search(text) is None) or _OUTSIDE.search(text) is None


#: Typographic punctuation a user's corpus holds (curly quotes, dashes, an ellipsis) as the ASCII it
#: stands for. Before: each became "?", so "O’Brien" read "O?Brien", which no answer matches.
ASCII_PUNCTUATION = {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
                     "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
                     "\u00ab": '"', "\u00bb": '"', "\u2010": "-", "\u2011": "-", "\u2012": "-",
                     "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-", "\u2026": "...",
                     "\u2022": "*", "\u00b7": "*"}


def sanitize(text: str, max_length: int) -> str:
    """Map ``text`` into ``OBS_CHARSET`` and cut it to ``max_length`` characters."""
    if is_clean(text):
        return text[:max_length]
    out = []
    for c in text:
        if c in OBS_CHARSET:
            out.append(c)
            continue
        if c in ASCII_PUNCTUATION:
            out.append(ASCII_PUNCTUATION[c])
            continue
        base = unicodedata.normalize("NFKD", c)
        out.append("".join(b for b in base if b in OBS_CHARSET) or "?")
    return "".join(out)[:max_length]


#: The error a vector env with shared memory over a searchgym text space gets.
SHARED_MEMORY_ERROR = (
    "searchgym's text observations cannot go through Gymnasium's shared memory: AsyncVectorEnv reads a Text "
    "buffer once, so every observation would be the first, empty one. Use "
    "gymnasium.make_vec(id, num_envs=N, vectorization_mode='async', vector_kwargs={'shared_memory': False}) "
    "or vectorization_mode='sync' (the *-Numeric-* ids, whose observations are arrays, work with shared memory)")


class SearchText(spaces.Text):
    """A ``Text`` space (equal to one with the same bounds) that refuses shared memory; see the module docstring."""


@create_shared_memory.register(SearchText)
def _refuse_shared_memory(space: SearchText, n: int = 1, ctx: object = None) -> None:
    raise ValueError(SHARED_MEMORY_ERROR)


def text_space(max_length: int) -> spaces.Text:
    return SearchText(max_length=max_length, min_length=0, charset=_CHARSET_STR)


def candidate_observation_space(max_obs_chars: int, max_candidates: int, max_candidate_chars: int) -> spaces.Dict:
    """``{"text", "candidates" (tuple of N strings, "" padded), "action_mask" (int8, N)}``."""
    return spaces.Dict({
        "text": text_space(max_obs_chars),
        "candidates": spaces.Tuple([text_space(max_candidate_chars)] * max_candidates),
        "action_mask": spaces.Box(0, 1, shape=(max_candidates,), dtype=np.int8),
    })


def text_observation_space(max_obs_chars: int) -> spaces.Text:
    return text_space(max_obs_chars)


def text_action_space(max_action_chars: int) -> spaces.Text:
    return text_space(max_action_chars)


def discrete_index(action: object) -> int | None:
    """``action`` as an int where ``Discrete.contains`` takes it (a Python or NumPy int, or a 0-d
    integer array, as ``tensor.numpy()`` gives), else None (bools too). Why: a 0-d array is in the
    candidate action space, yet the envs refused it ("got ndarray")."""
    if isinstance(action, bool | np.bool_):
        return None
    if isinstance(action, int | np.integer):
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        return int(action)
    return None


def candidate_action_space(max_candidates: int) -> spaces.Discrete:
    return spaces.Discrete(max_candidates)


def episode_spaces(config, text_in_dict: bool = False) -> tuple[spaces.Space, spaces.Space]:
    """New (observation space, action space) for an episode config (``EpisodeConfig``).

    ``text_in_dict``: text-mode observations as ``{"text"}`` (the multi-agent envs, which
    PettingZoo's tests need as dicts) instead of a bare string."""
    if config.action_mode == "candidates":
        return (candidate_observation_space(config.max_obs_chars, config.max_candidates, config.max_candidate_chars),
                candidate_action_space(config.max_candidates))
    observation = text_observation_space(config.max_obs_chars)
    return (spaces.Dict({"text": observation}) if text_in_dict else observation,
            text_action_space(config.max_action_chars))


class AgentSpaceDicts:
    """``observation_spaces`` and ``action_spaces`` as dicts over ``possible_agents``, for a
    PettingZoo ParallelEnv that builds its spaces per agent: PettingZoo's older API reads these
    attributes, and some wrappers and trainers still do (before: an AttributeError)."""

    @property
    def observation_spaces(self) -> dict[str, spaces.Space]:
        return {agent: self.observation_space(agent) for agent in self.possible_agents}

    @property
    def action_spaces(self) -> dict[str, spaces.Space]:
        return {agent: self.action_space(agent) for agent in self.possible_agents}
