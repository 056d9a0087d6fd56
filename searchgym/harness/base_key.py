"""The key of a supervised base (``<out>/bases/<key>/``): a hash of what its build uses.

Why what the build uses, not the settings as given: three ways of asking for one base named keys
of their own, and each was built again: ``sft_tasks`` above the train split's size (the base
demonstrates the whole split either way), ``sft_dagger_tasks`` while ``sft_dagger_rounds`` is 0
(never read), and ``policy_kwargs`` that only write out the policy's defaults. Each is put in one
normal form before it is hashed, and the base is built (and its settings recorded) in that form.

The normal forms are the defaults' own values (``SFTConfig``'s ``sft_tasks=1000`` where the split
has at most 1000 tasks, its ``sft_dagger_tasks=100``, no kwargs), so the key of a base built with
the default settings, ``make main``'s among them, is the one it always had.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from searchgym.agents.imitation import SFTConfig
from searchgym.agents.policy_kwarg_types import keyword_parameters
from searchgym.policy_format import feature_versions, policy_format
from searchgym.suites import Suite, tasks

DEFAULTS = SFTConfig()


def used_sft_config(config: SFTConfig, n_train: int) -> SFTConfig:
    """``config`` as a build on a train split of ``n_train`` tasks reads it. Without DAgger rounds every
    ``sft_tasks`` from the split's size up demonstrates the whole split (the default's 1000 stands for
    them, or the split's size where that is larger), and ``sft_dagger_tasks`` is unread (the default
    stands for it). With rounds, ``sft_tasks`` is kept as given: the rounds' tasks and their episodes'
    seeds start from it (:func:`searchgym.harness.sft.build_base`)."""
    if config.sft_dagger_rounds:
        return config
    changes: dict[str, int] = {"sft_dagger_tasks": DEFAULTS.sft_dagger_tasks}
    if config.sft_tasks >= n_train:
        changes["sft_tasks"] = max(n_train, DEFAULTS.sft_tasks)
    return dataclasses.replace(config, **changes)


def _defaults_of(function: Any) -> dict[str, Any]:
    return {name: p.default for name, p in keyword_parameters([function]).items() if p.default is not p.empty}


def policy_defaults(policy: str) -> dict[str, Any]:
    """The kwargs ``policy`` is built with when given none, as ``make_policy`` builds it: an own
    architecture's (its builder's, and the class it returns when the builder passes ``**kwargs`` on),
    else the encoder's and the candidate policy's. {} where they cannot be read (nothing is then
    left out of a key)."""
    from searchgym.agents.policy import policy_builders

    try:
        return {name: value for build in policy_builders(policy) for name, value in _defaults_of(build).items()}
    except Exception:  # noqa: BLE001 - a user's builder we cannot read: its kwargs are hashed as given
        return {}


def used_policy_kwargs(policy: str, policy_kwargs: Mapping[str, Any] | None) -> dict[str, Any]:
    """``policy_kwargs`` less those that give a default its own value (same type and value: ``1`` for a
    default ``1.0`` is kept)."""
    defaults = policy_defaults(policy) if policy_kwargs else {}
    return {name: value for name, value in (policy_kwargs or {}).items()
            if not (name in defaults and type(value) is type(defaults[name]) and value == defaults[name])}


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
