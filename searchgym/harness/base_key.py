"""The key of a supervised base (``<out>/bases/<key>/``): a hash of what its build uses.

Why what the build uses, not the settings as given: three ways of asking for one base named keys
of their own, and each was built again: ``sft_tasks`` above the train split's size (the base
demonstrates the whole split either way), ``sft_dagger_tasks`` while ``sft_dagger_rounds`` is 0
(never read), and ``policy_kwargs`` that only write out the policy's defaults. Each is put in one
normal form before it is hashed, and the base is built (and its settings recorded) in that form.

The normal forms are the defaults' own values (``SFTConfig``'s ``sft_tasks=1000`` where the split
has at most 1000 tasks, its ``sft_dagger_tasks=100``, no kwargs), so the key of a base built with
the default settings, ``make main``'s among them, is the one it always had. They are made by
:mod:`searchgym.agents.settings_as_built`, which a trainer's checkpoint check reads too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from searchgym.agents.imitation import SFTConfig
from searchgym.agents.settings_as_built import policy_defaults, used_policy_kwargs, used_sft_config
from searchgym.policy_format import feature_versions, policy_format
from searchgym.suites import Suite, tasks

__all__ = ["base_key", "policy_defaults", "used_policy_kwargs", "used_sft_config"]


def base_key(suite: Suite, seed: int, policy: str, config: SFTConfig,
             policy_kwargs: Mapping[str, Any] | None = None) -> str:
    """16 hex digits naming the base of (suite, seed, policy and its kwargs, settings), each as the build
    uses it (module docstring). A policy without kwargs keeps the key it had before they were part of it."""
    config = used_sft_config(config, len(tasks(suite, "train")))
    kwargs = used_policy_kwargs(policy, policy_kwargs)
    ident = {"format": policy_format(policy), "suite": suite.id, "suite_hash": suite.content_hash,
             "seed": int(seed), "policy": policy, "sft": asdict(config)}
    if kwargs:
        ident["policy_kwargs"] = kwargs
    versions = feature_versions(kwargs)
    if versions:  # what a feature set computes is part of the layout (policy_format.FEATURE_VERSIONS)
        ident["feature_versions"] = versions
    return hashlib.sha256(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()[:16]
