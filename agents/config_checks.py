"""Config fields named in the error when a value cannot run (the training configs share these).

Why: a count of 0 or a string failed deep inside a run (an IndexError, a division by zero, numpy's
"expected non-negative integer", torch's "Invalid learning rate"), after a run folder was made.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from searchgym.envs.config import MAX_SEED

#: The largest group (and tasks per iteration) a run takes: far above any published GRPO setting (8-64).
MAX_GROUP = 4096
#: The largest loss coefficient: 1e308 made the loss infinite and every probability NaN.
MAX_COEF = 1e6
#: The most passes of a loop over the same data (update epochs, SFT epochs, DAgger rounds, extra draws):
#: far above any setting that helps (4-16), far below what runs for days (10**8 was taken).
MAX_LOOP = 1000


def check_int(name: str, value: Any, low: int, high: int | None = None, why: str = "") -> int:
    """``value`` (a Python or numpy int, not a bool) as an int in low..high; else a one-line TypeError
    (not an int) or ValueError (out of range) naming ``name`` and the accepted values. For a Python
    caller's arguments (policies, populations); the envs' settings use ``searchgym.envs.config.check_int``,
    a ValueError for every bad value, as Gymnasium's own checks are."""
    accepted = f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"
    accepted += f" ({why})" if why else ""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be {accepted}; got {value!r} ({type(value).__name__})")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{name} must be {accepted}; got {value!r}")
    return int(value)


def check_counts(config: Any, bounds: Iterable[tuple[str, int] | tuple[str, int, int]]) -> None:
    """Each named field is an int (not a bool) of at least its bound, and of at most its second bound
    where one is given (a loop count: sft_epochs=10**8 ran for hours on a budget of 100 env steps)."""
    for name, least, *most in bounds:
        value = getattr(config, name)
        if type(value) is not int or value < least:
            raise ValueError(f"{name} must be an integer >= {least}; got {value!r}")
        if most and value > most[0]:
            raise ValueError(f"{name} must be an integer in {least}..{most[0]}; got {value!r}")


def check_rate(name: str, value: Any, what: str = "") -> None:
    """A finite number above 0 (``what`` says what it is, in brackets)."""
    if type(value) not in (int, float) or not 0 < value < math.inf:
        raise ValueError(f"{name} must be a number > 0{f' ({what})' if what else ''}; got {value!r}")


def check_run_numbers(config: Any) -> None:
    """A run's counts and rate, named when they cannot run: loop sizes below 1 (an IndexError or a
    division by zero mid-run), a negative budget (it trained nothing and wrote a result) or seed,
    an lr that is not above 0; ``eval_tasks`` (None: every dev task): 0 gave a NaN dev score."""
    check_counts(config, (("group_size", 1), ("tasks_per_iteration", 1), ("eval_every", 1), ("budget", 0),
                          ("seed", 0)))
    for name, most in (("group_size", MAX_GROUP), ("tasks_per_iteration", MAX_GROUP), ("seed", MAX_SEED)):
        if getattr(config, name) > most:  # before: group_size=10**8 grew memory for minutes, silently
            raise ValueError(f"{name} must be an integer <= {most}; got {getattr(config, name)}")
    check_rate("lr", config.lr, "the optimiser's learning rate")
    eval_tasks = getattr(config, "eval_tasks", None)
    if eval_tasks is not None and (type(eval_tasks) is not int or eval_tasks < 1):
        raise ValueError(f"eval_tasks must be an integer >= 1 (dev tasks of the curve) or null for every dev "
                         f"task; got {eval_tasks!r}")


def check_in_range(name: str, value: Any, low: float, high: float = math.inf, what: str = "",
                   finite: bool = False) -> None:
    """A number (not a bool, not NaN) in [low, high] (``high`` may be inf: then inf is accepted too,
    unless ``finite``: a weight of inf makes every loss inf and every gradient NaN)."""
    if type(value) not in (int, float) or not low <= value <= high or (finite and value == math.inf):
        bounds = f">= {low:g}" if high == math.inf else f"in [{low:g}, {high:g}]"
        kind = "a finite number" if finite else "a number"
        raise ValueError(f"{name} must be {kind} {bounds}{f' ({what})' if what else ''}; got {value!r}")


def check_update_settings(config: Any, population_modes: Iterable[str]) -> None:
    """TrainConfig's update and population settings, named before any run folder is made. Why:
    update_epochs=0 (or -1) trained nothing and reported a result; max_grad_norm=-1 flipped every
    gradient (clip_grad_norm_ scales by max_norm / norm), 0 zeroed them; an unknown population_mode
    and rollout_workers=-1 failed only once the run folder was written."""
    check_counts(config, (("update_epochs", 1, MAX_LOOP), ("rollout_workers", 0), ("dynamic_sampling", 0, MAX_LOOP)))
    if type(config.max_grad_norm) not in (int, float) or not config.max_grad_norm > 0:  # inf: no clipping
        raise ValueError(f"max_grad_norm must be a number > 0 (gradients are clipped to that norm; inf: no "
                         f"clipping); got {config.max_grad_norm!r}")
    modes = tuple(population_modes)
    if config.population_mode not in modes:
        raise ValueError(f"unknown population_mode {config.population_mode!r}; accepted: {', '.join(modes)}")


def check_advantage_settings(config: Any) -> None:
    """AdvantageConfig's numbers. Why: gamma=2 or gae_lambda=-3 ran (returns that grow with distance),
    round_gamma=-1 gave the least-contributing rounds the most weight, silently."""
    check_in_range("gamma", config.gamma, 0, 1, "the discount")
    check_in_range("gae_lambda", config.gae_lambda, 0, 1, "GAE's lambda")
    check_in_range("eps", config.eps, 0, what="added to the group std")
    check_in_range("round_gamma", config.round_gamma, 0, what="cw_round's softmax temperature; inf: c_k / sum(c)")
    check_in_range("cw_clip_lo", config.cw_clip_lo, 0, config.cw_clip_hi, "at most cw_clip_hi")


def check_calibration_settings(config: Any) -> None:
    """CalibrationConfig's numbers. Why: adv_clip <= 0 failed once the run folder was written, and
    baseline_lr=-1 (a step away from the baseline's target) ran silently."""
    check_rate("baseline_lr", config.baseline_lr, "the learnable baseline's step size")
    check_in_range("standardize_eps", config.standardize_eps, 0, what="added to the batch std")
    if config.adv_clip is not None:
        check_rate("adv_clip", config.adv_clip, "clip(A, -c, c); null: off")


#: The most tokens a rollout setting takes (a turn, an episode): above any model's context (Qwen2.5-1M's
#: is 1,010,000). Why: max_new_tokens=10**9 ran silently.
MAX_TOKENS = 1 << 20
#: The dtypes an LLM run loads its weights in.
LLM_DTYPES = ("auto", "float32", "bfloat16", "float16")


def check_llm_settings(config: Any) -> None:
    """LLMTrainConfig's values, named before any run folder is made. Why: a string or a float where
    a count belongs ("'float' object cannot be interpreted as an integer"), lr=-1 (torch's "Invalid
    learning rate"), temperature=-1 or dtype="int8" failed after the run folder was written;
    mini_batch_size=-1 took no optimiser step and reported a result; ``"yes"`` for a switch, a
    vllm_gpu_memory of 5 and temperature=inf ran silently."""
    check_counts(config, (("group_size", 1), ("tasks_per_iteration", 1), ("budget", 1), ("update_epochs", 1),
                          ("micro_batch_size", 1), ("eval_every", 1), ("save_every", 1), ("eval_tasks", 0),
                          ("seed", 0)))
    for name, most in (("group_size", MAX_GROUP), ("tasks_per_iteration", MAX_GROUP), ("seed", MAX_SEED)):
        if getattr(config, name) > most:
            raise ValueError(f"{name} must be an integer <= {most}; got {getattr(config, name)}")
    if config.mini_batch_size is not None:
        check_counts(config, (("mini_batch_size", 1),))
    check_rate("lr", config.lr, "the optimiser's learning rate")
    check_rate("max_grad_norm", config.max_grad_norm, "gradients are clipped to that norm")
    check_in_range("temperature", config.temperature, 0, what="0: greedy", finite=True)
    for name, what in (("top_p", "nucleus sampling; 1: off"), ("vllm_gpu_memory", "the GPU share vLLM may take")):
        value = getattr(config, name)
        if type(value) not in (int, float) or not 0 < value <= 1:
            raise ValueError(f"{name} must be a number in (0, 1] ({what}); got {value!r}")
    if config.dtype not in LLM_DTYPES:
        raise ValueError(f"unknown dtype {config.dtype!r}; accepted: {', '.join(LLM_DTYPES)}")
    for name in ("gradient_checkpointing", "shared_prefix", "log_entropy"):
        if not isinstance(getattr(config, name), bool):
            raise ValueError(f"{name} must be true or false; got {getattr(config, name)!r}")  # noqa: TRY004
    check_guided(config)


def check_guided(config: Any) -> None:
    """Guided decoding (its rollout's ``guided``) runs on the "kv" backend alone. Why: with another
    backend it failed at the first turn, after the run folder was written."""
    if config.rollout.guided and config.generation_backend != "kv":
        raise ValueError(f"guided decoding runs on the 'kv' generation backend, not {config.generation_backend!r}; "
                         "give generation_backend 'kv' with guided true")


def check_rollout_lengths(config: Any) -> None:
    """RolloutConfig's counts: integers in [1, MAX_TOKENS] (a string was "invalid literal for int()")."""
    for name in ("max_turns", "max_new_tokens", "max_episode_tokens", "min_turn_tokens"):
        value = getattr(config, name)
        if type(value) is not int or not 1 <= value <= MAX_TOKENS:
            raise ValueError(f"{name} must be an integer in [1, {MAX_TOKENS}]; got {value!r}")
