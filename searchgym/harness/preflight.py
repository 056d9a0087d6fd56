"""A comparison's settings checked before any run starts.

Why: an unknown ``--option``, ``--policy`` or ``decoding`` is otherwise found by each run on its
own, so a typo becomes one failed run per (method, seed), with run folders and an invitation to
resume. Here it is one error line that names what was wrong and what is accepted. The checks
call the very functions the runs call (``build_config``, ``sft_config``), so their verdicts agree.
"""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace
from typing import Any

from searchgym.harness.methods import BASELINE_METHODS, SPEC_METHOD_PREFIX, load_callable, load_method, trains


def check_comparison(comparison: Any) -> None:
    """Raise ``ValueError`` naming the first method whose settings no run of it would accept.

    Skipped where torch is missing (a Ray cluster's nodes may hold it; the runs check there)."""
    if importlib.util.find_spec("torch") is None:
        return
    learners = [m for m in comparison.methods if m.path.startswith("searchgym.") and trains(load_method(m))]
    if learners:
        _check_policy(comparison.policy)
        checked: set[str] = set()  # a policy is built once per distinct policy_kwargs, not once per method
        for method in comparison.methods:
            options = {**comparison.options, **dict(method.options)}
            seen = repr(options.get("policy_kwargs"))
            if seen in checked:
                continue
            checked.add(seen)
            try:
                _check_policy_kwargs(comparison.policy, options)
            except ValueError as exc:
                raise ValueError(f"method {method.label!r}: {exc}") from None
    for method in comparison.methods:
        options = {**comparison.options, **dict(method.options)}
        try:
            if method.path.startswith(SPEC_METHOD_PREFIX):
                _check_spec(method.path.removeprefix(SPEC_METHOD_PREFIX), options, comparison)
            if method.path.startswith(SPEC_METHOD_PREFIX) or method.path == BASELINE_METHODS["sft"]:
                _check_sft(options)  # a learner reads the base's settings (init=sft) and decodes as sft does
        except ValueError as exc:
            raise ValueError(f"method {method.label!r}: {exc}") from None


def _check_policy(policy: str) -> None:
    from searchgym.agents.policy import ENCODERS, OWN_ARCHITECTURES

    accepted = sorted([*ENCODERS, *OWN_ARCHITECTURES])
    if policy not in accepted:
        raise ValueError(f"unknown --policy {policy!r}; accepted: {', '.join(accepted)}")


def _check_policy_kwargs(policy: str, options: dict[str, Any]) -> None:
    """Build the policy once with the run's ``policy_kwargs``, as every run and its base will."""
    from searchgym.agents.policy import make_policy
    from searchgym.harness.sft import policy_kwargs_of

    kwargs = policy_kwargs_of(options)  # the check the base's build makes
    if not kwargs:
        return
    try:
        make_policy(policy, device="cpu", seed=0, **kwargs)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"policy_kwargs {kwargs!r} do not fit --policy {policy}: {exc}") from None


def _check_sft(options: dict[str, Any]) -> None:
    from searchgym.agents.policy_actor import DECODINGS
    from searchgym.harness.sft import sft_config

    sft_config(options)
    decoding = options.get("decoding", "sample")
    if decoding not in DECODINGS:
        raise ValueError(f"unknown decoding {decoding!r}; accepted: {', '.join(DECODINGS)}")


def _check_spec(name: str, options: dict[str, Any], comparison: Any) -> None:
    from searchgym.harness.method_specs import build_config
    from searchgym.method_table import METHOD_SPECS
    from searchgym.suites import make_env

    spec = METHOD_SPECS[name]
    trainer_cls = load_callable(spec.trainer, f"trainer of {spec.name}")
    probe = SimpleNamespace(suite=comparison.suite, options=options, policy=comparison.policy,
                            budget=comparison.budget, seed=comparison.seeds[0], device="cpu",
                            make_env=lambda split="train": make_env(comparison.suite, split))
    config = build_config(spec, probe, trainer_cls)
    check_env_id = getattr(trainer_cls, "check_env_id", None)
    if check_env_id is not None:  # what env the trainer needs (a critic on state(): a multi-agent one)
        check_env_id(config.env_id, spec.name)
    method_options = getattr(trainer_cls, "method_config_type", None)
    if method_options is not None:  # the method's own options (MAPPO's, COMA's), checked as its trainer checks them
        method_options(**config.method)
    if config.rl_fresh_tasks:  # else a base is built for minutes before the run finds no task left for RL
        import searchgym
        from searchgym.agents.rl_tasks import rl_train_tasks

        env = searchgym.make(config.env_id, **config.env_kwargs)  # the trainer's env, so its train tasks
        try:
            rl_train_tasks([task.id for task in getattr(env, "unwrapped", env).tasks.tasks("train")], config)
        finally:
            env.close()
