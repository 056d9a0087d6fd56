"""Wrappers that make searchgym envs fit standard RL libraries.

- :class:`NumericObservation` (``SearchQA-Numeric-v0``, ``SearchQA-Numeric-Easy-v0``): a
  candidate-mode env as a flat ``Box`` of hashed features with ``action_masks()``, for
  Stable-Baselines3 / sb3-contrib's ``MaskablePPO`` and CleanRL-style loops;
- :class:`NumericParallel` (``GroupSearch-Numeric-v0``, ``TeamSearch-Numeric-v0``): the
  multi-agent counterpart, with fixed agent sets and masks for finished agents;
- :class:`FeatureLayout`: the feature layout both use (documented in ``features``).
"""

from __future__ import annotations

from searchgym.wrappers.features import CANDIDATE_FIELDS, FeatureLayout
from searchgym.wrappers.numeric import NumericObservation, make_numeric
from searchgym.wrappers.parallel import NumericParallel, make_numeric_parallel

__all__ = ["CANDIDATE_FIELDS", "FeatureLayout", "NumericObservation", "NumericParallel", "make_numeric",
           "make_numeric_parallel"]
