"""A comparison's settings checked before any run starts.

Why: an unknown ``--option``, ``--policy`` or ``decoding`` is otherwise found by each run on its
own, so a typo becomes one failed run per (method, seed), with run folders and an invitation to
resume. Here it is one error line that names what was wrong and what is accepted. The checks
call the very functions the runs call (``build_config``, ``sft_config``), so their verdicts agree.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
from types import SimpleNamespace
from typing import Any

from searchgym.registry import spec as env_spec
from searchgym.suites import observation_kind

from searchgym.harness.learner_init import INIT_OPTIONS, learners_init
from searchgym.harness.methods import (
    BASELINE_METHODS,
    METHODS,
    SPEC_METHOD_PREFIX,
    MethodRef,
    load_callable,
    load_method,
    trains,
)

#: The baselines whose options are their keyword parameters after the RunContext (sft: check_sft_options).
OPTION_CHECKED_BASELINES = ("random", "reader", "oracle")


def check_comparison(comparison: Any) -> None:
    """Raise ``ValueError`` naming the first method whose settings no run of it would accept; once all are
    accepted, note an ``sft_tasks`` past the train split (:func:`~searchgym.harness.sft_bounds.note_whole_split`).

    The learners' checks are skipped where torch is missing (a Ray cluster's nodes may hold it; the
    runs check there); the baselines' need none, nor torch."""
    _check_comparison(comparison)
    from searchgym.harness.sft_bounds import note_whole_split

    merged = [(m, {**comparison.options, **dict(m.options)}) for m in comparison.methods]
    note_whole_split(comparison.suite, [options for m, options in merged if _uses_base(m, options) is not False])


def _check_comparison(comparison: Any) -> None:
    check_policy(comparison.policy)
    check_logger(comparison)
    check_numeric_env(comparison)
    check_init_unread(comparison)
    check_baselines(comparison)
    check_sft_options(comparison)
    check_sft_used(comparison)
    check_llm_runs(comparison)
    if all(baseline_options(m) is not None for m in comparison.methods) or importlib.util.find_spec("torch") is None:
        return
    learners = [m for m in comparison.methods if m.path.startswith("searchgym.") and trains(load_method(m))]
    if learners:
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
        learner = method.path.startswith(SPEC_METHOD_PREFIX)
        if not learner and method.path != BASELINE_METHODS["sft"]:
            continue
        try:
            check_candidate_env(comparison.suite, comparison.policy)  # a candidate policy plays either
            if learner:
                _check_spec(method.path.removeprefix(SPEC_METHOD_PREFIX), options, comparison)
            _check_sft(options)  # a learner reads the base's settings (init=sft) and decodes as sft does
        except ValueError as exc:
            raise ValueError(f"method {method.label!r}: {exc}") from None


def check_logger(comparison: Any) -> None:
    """``--logger tensorboard`` / ``wandb`` whose package is missing: one line naming the extra, before any
    folder is made (before: every run failed on it, and the report was written empty). Skipped for the
    Ray executor, whose runs log on the cluster's nodes (``require_extras`` is skipped for it too)."""
    if getattr(comparison, "executor", "local") != "ray":
        from searchgym.harness.loggers import check_logger_installed

        check_logger_installed(getattr(comparison, "logger", "none"))


#: The harness method of an LLM run (``--methods llm=...``; ``train --policy llm`` runs it too).
LLM_METHOD = "searchgym.harness.llm_method:harness_method"


def check_llm_runs(comparison: Any) -> None:
    """Each LLM run's settings that depend on its env or this machine (``group_by='role'`` without a
    team, vLLM for a ``random:`` preset or not installed), and room for a turn after the longest opening
    prompt with the model's tokenizer, checked as ``train --policy llm`` checks them
    (:mod:`searchgym.agents.llm_run_checks`, :mod:`searchgym.agents.llm_prompt_room`). Why: the trainer
    found them after the run's folder was made, which then refused the corrected command as "a different
    run". Skipped for the Ray
    executor (the model's cache and vLLM are the workers', not the driver's; the runs check there, as
    ``require_extras`` is skipped for it) and where transformers is missing."""
    llm = [m for m in comparison.methods if m.path == LLM_METHOD]
    if not llm or getattr(comparison, "executor", "local") == "ray" or any(
            importlib.util.find_spec(name) is None for name in ("torch", "transformers")):
        return
    from searchgym.agents.llm_prompt_room import check_train_prompt
    from searchgym.agents.llm_run_checks import check_llm_run
    from searchgym.harness.llm_method import suite_config

    for method in llm:
        try:
            config = suite_config(comparison.suite, {**comparison.options, **dict(method.options)})
            check_llm_run(config)
            check_train_prompt(config, comparison.suite)  # max_episode_tokens leaves room after the opening prompt
        except ValueError as exc:
            raise ValueError(f"method {method.label!r}: {exc}") from None


CANDIDATE_HINT = "use a candidate env ({}) or a candidate suite (searchgym suites)"


def check_numeric_env(comparison: Any) -> None:
    """No built-in method plays the numeric ids (a ``Box`` for Stable-Baselines3 and CleanRL).

    Why: their slots are not the env's candidate indices, so the reader (which wrote text tool calls
    there) scored 0.000 and the oracle 0.200 on SearchQA-Numeric-Easy-v0, as if those were results."""
    if observation_kind(comparison.suite) != "numeric":
        return
    from searchgym.registry import spec

    builtin = set(BASELINE_METHODS.values())
    method = next((m for m in comparison.methods if m.path in builtin or m.path.startswith(SPEC_METHOD_PREFIX)), None)
    if method is not None:
        base = spec(comparison.suite.env_id).kwargs.get("base_id", "its candidate id")
        raise ValueError(f"method {method.label!r}: {comparison.suite.env_id} is numeric (a Box for Stable-Baselines3 "
                         f"and CleanRL, docs/ECOSYSTEM.md), which no built-in method plays; use {base}, the same "
                         "env with candidate observations")


def check_candidate_env(suite: Any, policy: str) -> None:
    """The candidate policies and the supervised base read ``{"text", "candidates", "action_mask"}``.

    Why: on a text env the base's build ended in a traceback (``'str' object has no attribute
    'get'``) and a learner failed at its first batch, each leaving a run folder that then refused
    the corrected command."""
    from searchgym.registry import registered

    kind = observation_kind(suite)
    what = {"numeric": "numeric (a Box of hashed features)", "text": "text mode (the agent writes tool calls)"}.get(kind)
    if what is None:
        return
    candidate_ids = [s.id for s in registered() if s.kwargs.get("action_mode") == "candidates"]
    raise ValueError(f"--policy {policy} chooses among candidates, and {suite.env_id} is {what}; "
                     f"{CANDIDATE_HINT.format(', '.join(candidate_ids))}, or `searchgym train --policy llm` for a "
                     "model that writes its own tool calls")


#: The policies that ship (the encoders and own architectures of ``searchgym.agents``), for an
#: install without torch, where those registries cannot be imported and no other can be registered.
BUILT_IN_POLICIES = ("attn", "hash", "hf", "minilm")


def accepted_policies() -> list[str]:
    """The ``--policy`` names a learner can build: the registered encoders and architectures."""
    try:  # torch found on the path may still fail to import (a broken or blocked install)
        from searchgym.agents.policy import ENCODERS, OWN_ARCHITECTURES
    except ImportError:
        return list(BUILT_IN_POLICIES)
    return sorted([*ENCODERS, *OWN_ARCHITECTURES])


def check_policy(policy: str, also: tuple[str, ...] = ()) -> None:
    """An unknown ``--policy`` (``also``: names a command takes besides) is one error line naming the
    accepted ones, whatever the methods. Why: it was checked only when a learner was among them, so
    ``compare --policy foo --methods random,oracle`` ran and recorded policy "foo" in every run."""
    if policy in BUILT_IN_POLICIES or policy in also:
        return  # without importing torch: a run of baselines needs none
    accepted = sorted([*accepted_policies(), *also])
    if policy not in accepted:
        raise ValueError(f"unknown --policy {policy!r}; accepted: {', '.join(accepted)}")


def _check_policy_kwargs(policy: str, options: dict[str, Any]) -> None:
    """Build the policy once with the run's ``policy_kwargs``, as every run and its base will."""
    from searchgym.agents.policy import make_policy
    from searchgym.harness.option_bounds import option_out_of_bounds
    from searchgym.harness.sft import policy_kwargs_of

    kwargs = policy_kwargs_of(options)  # the check the base's build makes
    too_big = option_out_of_bounds(kwargs, "policy_kwargs", "the bounds of a policy's options")
    if too_big:  # before: {"hidden": 10**9} was built here, asking for a 1.3 TB layer
        raise ValueError(too_big)
    if policy == "hf" and kwargs.get("config") is None:  # before: HFEncoder's own words, or HF's on a bad id
        from searchgym.agents.model_source import check_model_source

        model = kwargs.get("model_name_or_path")
        if not model:
            raise ValueError("--policy hf encodes with a Hugging Face model: give it with --model PATH_OR_CACHED_ID "
                             "(train) or --option 'policy_kwargs={\"model_name_or_path\": \"PATH\"}' (compare)")
        # as the encoder loads it (before: always as a causal LM, so a BERT encoder "lacked" its LM head)
        check_model_source(str(model), "--policy hf's model", auto_class=str(kwargs.get("auto_class", "model")))
    if not kwargs:
        return
    try:
        make_policy(policy, device="cpu", seed=0, **kwargs)  # the hf encoder loads its folder without bars
    except (TypeError, ValueError) as exc:
        raise ValueError(f"policy_kwargs {kwargs!r} do not fit --policy {policy}: {exc}") from None


def _check_sft(options: dict[str, Any]) -> None:
    from searchgym.agents.policy_actor import DECODINGS
    from searchgym.harness.sft import sft_config
    from searchgym.harness.sft_bounds import check_sft_bounds

    sft_config(options)
    check_sft_bounds(options)  # those leaderboard retrain keeps (before: sft_tasks=10**7 ran, clamped unsaid)
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
    _check_grouping(spec, config)
    method_options = getattr(trainer_cls, "method_config_type", None)
    if method_options is not None:  # the method's own options (MAPPO's, COMA's), checked as its trainer checks them
        method_options(**config.method)
    if config.dynamic_sampling:  # else each run fails at its start, and compare advises re-running it
        from searchgym.agents.dynamic_sampling import check_dynamic_sampling
        from searchgym.agents.train import Trainer

        check_dynamic_sampling(SimpleNamespace(config=config), Trainer.update, trainer_cls)
    if config.rl_fresh_tasks:  # else a base is built for minutes before the run finds no task left for RL
        import searchgym
        from searchgym.agents.rl_tasks import rl_train_tasks

        env = searchgym.make(config.env_id, **config.env_kwargs)  # the trainer's env, so its train tasks
        try:
            rl_train_tasks(getattr(env, "unwrapped", env).tasks, config)
        finally:
            env.close()


def _check_grouping(spec: Any, config: Any) -> None:
    """``group_by`` role or team needs a team, not a group env's independent attempts. Why: grpo_role,
    cw_grpo_role or ``group_by=team`` on GroupSearch-Candidates-v0 failed at the first batch, after
    config.json, metrics.jsonl and checkpoint/ were written (that folder then held "a different run")."""
    if config.group_by not in ("role", "team") or env_spec(config.env_id).kind != "parallel":
        return  # a single-agent env is refused by TrainConfig itself
    import searchgym
    from searchgym.agents.grouping import resolve_grouping

    env = searchgym.make(config.env_id, **config.env_kwargs)
    try:
        resolve_grouping(config.group_by, env.metadata.get("group_by", "agent"), episodes_per_task=2)
    except ValueError as exc:
        plain = {"grpo_role": "grpo", "cw_grpo_role": "cw_grpo"}.get(spec.name)
        raise ValueError(f"{exc}{f' ({spec.name} sets group_by=role: use {plain})' if plain else ''}") from None
    finally:
        env.close()


def baseline_options(ref: MethodRef) -> tuple[str, tuple[str, ...]] | None:
    """(name, the options it takes) of a baseline in :data:`OPTION_CHECKED_BASELINES`; None for any other."""
    name = next((n for n in OPTION_CHECKED_BASELINES if BASELINE_METHODS[n] == ref.path), None)
    if name is None:
        return None
    parameters = list(inspect.signature(load_callable(ref.path)).parameters.values())[1:]
    return name, tuple(p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def _unknown(option: str, name: str, accepted: tuple[str, ...]) -> str:
    takes = f"accepted: {', '.join(accepted)}" if accepted else f"{name} takes no options"
    return f"unknown option {option!r} for {name}; {takes}"


def check_baselines(comparison: Any) -> None:
    """A baseline refuses its own options (``r=reader[...]``) that it does not take, and checks the values of
    those it takes. A comparison-wide ``--option`` it does not take is another method's (every learner
    refuses what it does not take), unless every method is such a baseline: then it is refused too.
    Why: the baselines read their options from the run's, so a misspelt one was silently unused."""
    checked = {}
    for method in comparison.methods:
        entry = baseline_options(method)
        if entry is None:
            continue
        checked[method.label] = entry
        name, accepted = entry
        own = dict(method.options)
        unknown = [option for option in own if option not in accepted]
        try:
            if unknown:
                raise ValueError(_unknown(unknown[0], name, accepted))
            check = getattr(load_callable(method.path), "check_options", None)
            if check is not None:
                check({**comparison.options, **own})
        except ValueError as exc:
            raise ValueError(f"method {method.label!r}: {exc}") from None
    if len(checked) < len(comparison.methods):
        return
    unknown = sorted(set(comparison.options) - {option for _, accepted in checked.values() for option in accepted}
                     - set(INIT_OPTIONS))  # a learner's, a no-op here (check_init_unread)
    if unknown and len(checked) == 1:
        label, (name, accepted) = next(iter(checked.items()))
        raise ValueError(f"method {label!r}: {_unknown(unknown[0], name, accepted)}")
    if unknown:
        each = "; ".join(f"{label} takes {', '.join(accepted) or 'none'}" for label, (_, accepted) in checked.items())
        raise ValueError(f"unknown option {unknown[0]!r}: no method of this comparison takes it ({each})")


def check_init_unread(comparison: Any) -> None:
    """A comparison-wide ``init`` where every method is the supervised base or a baseline, which read none:
    accepted as a no-op (``make main``'s command with a subset of its methods), its value checked as a learner
    checks it (:func:`~searchgym.harness.learner_init.learners_init`)."""
    if all(m.path in set(BASELINE_METHODS.values()) for m in comparison.methods):
        for option, value in comparison.options.items():
            learners_init(option, value)


def check_sft_options(comparison: Any) -> None:
    """The supervised base refuses an option it does not read in its own brackets (``s=sft[nosuch=1]``), and
    any such ``--option`` when it is the only method (``train --method sft --option lr=0.1``). Why: both
    ran silently, the option recorded in config.json and unused (lr where sft_lr was meant)."""
    for method in comparison.methods:
        if method.path != METHODS["sft"]:
            continue
        from searchgym.harness.sft import SFT_ALSO_READS, SFTConfig, sft_reads  # torch: only where sft runs

        alone = len(comparison.methods) == 1
        wide = [key for key in comparison.options if key not in INIT_OPTIONS] if alone else []  # init: a no-op here
        unread = [key for key in [*dict(method.options), *wide] if not sft_reads(key)]
        if unread:
            settings = ", ".join(sorted(f.name for f in dataclasses.fields(SFTConfig)))
            raise ValueError(f"method {method.label!r}: unknown option {unread[0]!r}; the supervised base accepts: "
                             f"{settings}, and reads {' and '.join(SFT_ALSO_READS)}")


def _sft_setting(option: str) -> bool:
    """Whether ``option`` is a setting of the supervised base (``sft_tasks``, ``sft.sft_tasks``)."""
    return option.removeprefix("sft.").startswith("sft_") or option.startswith("sft.")


def _uses_base(method: MethodRef, options: dict[str, Any]) -> bool | None:
    """True for the base itself (``sft``, ``sft_greedy=sft[...]``) and a learner with init=sft, False for
    another built-in method, None for a method of the user's own (it may read the option)."""
    if method.path == BASELINE_METHODS["sft"]:
        return True
    if method.path.startswith(SPEC_METHOD_PREFIX):
        return options.get("init", options.get("train.init")) == "sft"
    return False if method.path in set(BASELINE_METHODS.values()) or method.path == LLM_METHOD else None


def check_sft_used(comparison: Any) -> None:
    """An ``sft_*`` option that no method receiving it uses is refused (as ``rl_fresh_tasks=true`` is): a
    comparison-wide one when no method uses a base, a bracketed one on a method that does not. Why:
    ``--methods grpo --option sft_tasks=5`` ran with rc 0, recorded the option and trained from scratch."""
    uses = {m.label: _uses_base(m, {**comparison.options, **dict(m.options)}) for m in comparison.methods}
    hint = "needs init=sft (--option init=sft) or the sft method"
    for method in comparison.methods:
        own = next((key for key in dict(method.options) if _sft_setting(key)), None)
        if own is not None and uses[method.label] is False:
            raise ValueError(f"method {method.label!r}: option {own!r} sets the supervised base, which this method "
                             f"does not start from: it needs init=sft (in its brackets, or --option init=sft)")
    wide = next((key for key in comparison.options if _sft_setting(key)), None)
    if wide is not None and not any(use is not False for use in uses.values()):
        raise ValueError(f"option {wide!r} sets the supervised base, and no method of this comparison uses one: "
                         f"it {hint}")
