"""A run's policy kwargs and supervised-base settings in the form the run builds from: what decides
"the same run" for the harness (config.json, the base's key) and for a trainer's checkpoint alike.

Three spellings build what their plain form builds: ``policy_kwargs`` that only write out the
policy's own constructor defaults, ``sft_tasks`` above the train split's size (the base demonstrates
the whole split either way) and ``sft_dagger_tasks`` while ``sft_dagger_rounds`` is 0 (never read).
Each is put in one normal form, the defaults' own values (``SFTConfig``'s ``sft_tasks=1000`` where
the split has at most 1000 tasks, its ``sft_dagger_tasks=100``, no kwargs).

Why one place: the harness read these spellings as the run without them, but the trainer's
checkpoint check compared them as given, so an interrupted run re-run under the other spelling was
let in by the first and refused by the second ("was written by another run (sft.sft_tasks: 5000
there, 1000 now)"): it could never resume. The train split is the one the harness counts: a suite's
capped split, which the trainer's config records (:mod:`~searchgym.agents.train_split`); before, the
trainer counted its env's whole split, and a suite with ``train_size`` met the same refusal.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any

from .imitation import SFTConfig
from .policy_kwarg_types import keyword_parameters
from .train_split import recorded_split_size

DEFAULTS = SFTConfig()
#: The run config fields read in the form the run builds from (:func:`setting_as_built`).
BUILT_FIELDS = ("policy_kwargs", "sft")


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
    left out)."""
    from .policy import policy_builders

    try:
        return {name: value for build in policy_builders(policy) for name, value in _defaults_of(build).items()}
    except Exception:  # noqa: BLE001 - a user's builder we cannot read: its kwargs are compared as given
        return {}


def used_policy_kwargs(policy: str, policy_kwargs: Mapping[str, Any] | None) -> dict[str, Any]:
    """``policy_kwargs`` less those that give a default its own value (same type and value: ``1`` for a
    default ``1.0`` is kept)."""
    defaults = policy_defaults(policy) if policy_kwargs else {}
    return {name: value for name, value in (policy_kwargs or {}).items()
            if not (name in defaults and type(value) is type(defaults[name]) and value == defaults[name])}


def train_split_size(config: Mapping[str, Any]) -> int | None:
    """How many tasks the train split of a run config (as a dict) holds, as its trainer draws them: the
    suite's capped split it records (:mod:`~searchgym.agents.train_split`), as the harness counts it, else
    the train split of its env (None: no env of a split searchgym can count)."""
    import searchgym

    recorded = recorded_split_size(config)
    if recorded is not None:
        return recorded
    env_id, env_kwargs = config.get("env_id"), config.get("env_kwargs")
    if not isinstance(env_id, str) or not isinstance(env_kwargs, Mapping):
        return None
    try:
        env = searchgym.make(env_id, **env_kwargs)
    except Exception:  # noqa: BLE001 - an env that is not made here: the settings are compared as given
        return None
    try:
        return len(getattr(env, "unwrapped", env).tasks.tasks("train"))
    except Exception:  # noqa: BLE001 - an env without searchgym's task splits
        return None
    finally:
        env.close()


def setting_as_built(name: str, config: Mapping[str, Any], n_train: Callable[[], int | None]) -> Any:
    """``config[name]`` (a run config as a dict: a trainer's, or a checkpoint's record) in the form the run
    builds from: ``policy_kwargs`` less those at its ``policy``'s defaults, ``sft`` as a build on a train
    split of ``n_train()`` tasks reads it (``n_train`` is asked only then). A value that does not read as
    one (an older record, a split that cannot be counted): as it is."""
    value = config.get(name)
    if name == "policy_kwargs" and isinstance(value, Mapping) and isinstance(config.get("policy"), str):
        return used_policy_kwargs(config["policy"], value)
    if name == "sft" and isinstance(value, Mapping):
        try:
            settings = SFTConfig(**value)
        except (TypeError, ValueError):
            return value
        size = n_train()
        return dataclasses.asdict(used_sft_config(settings, size)) if size is not None else value
    return value


def built_alike(name: str, there: Mapping[str, Any], now: Mapping[str, Any]) -> bool:
    """Whether field ``name`` of two run configs as dicts (a checkpoint's record, a run's) builds the same
    run in both, read as :func:`setting_as_built` reads it; the train split is ``now``'s
    (:func:`train_split_size`), counted once and only for ``sft``. False for any other field."""
    if name not in BUILT_FIELDS:
        return False
    n_train = functools.cache(lambda: train_split_size(now))
    return setting_as_built(name, there, n_train) == setting_as_built(name, now, n_train)
