"""Whether ``max_episode_tokens`` leaves room for a turn after the opening prompt, checked before any
run folder is made.

Why: the opening prompt (the system prompt, the env's first observation and the tools, through the
model's chat template) was first measured when an episode opened, inside the run: ``train --policy
llm --options '{"max_episode_tokens": 50}'`` wrote ``config.json`` and ``checkpoint/`` and then
stopped with "the opening prompt has 920 tokens, leaving no room for a turn", and the corrected
command was refused as "a different run"; the recipe stopped the same way after its folder was made.

The prompt is measured on every task the run opens an episode on, as the rollout builds it
(:func:`~searchgym.agents.llm_rollout.opening_messages`), with the tokenizer the run loads.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from .llm_rollout import RolloutConfig, opening_messages

#: Distinct prompts tokenized at most: the longest by characters (only the question differs between
#: a world's prompts, and tokens follow its characters); every one of a world of up to this many tasks.
MEASURED = 256


def run_tokenizer(model: str) -> Any | None:
    """The tokenizer a run of ``model`` loads (as :func:`~searchgym.agents.llm_policy.load_model` does,
    no weights read); None when it cannot be read here (the run's own loader says why)."""
    from .llm_policy import ALLOW_DOWNLOAD_ENV, offline_tokenizer, prepare_tokenizer
    from .pretrained import ModelFolderError, from_pretrained

    if model.startswith("random:"):
        return offline_tokenizer()
    from transformers import AutoTokenizer

    try:
        return prepare_tokenizer(from_pretrained(AutoTokenizer, model,
                                                 local_files_only=not os.environ.get(ALLOW_DOWNLOAD_ENV)))
    except ModelFolderError:
        raise
    except Exception:  # noqa: BLE001 - not readable here: the run's loader words it
        return None


def first_observations(env: Any, task_id: str) -> list[tuple[Any, str]]:
    """(session, first observation text) of each agent of an episode of ``task_id`` (single or team env)."""
    base = getattr(env, "unwrapped", env)
    observation, _ = base.reset(seed=0, options={"task_id": task_id})
    if hasattr(base, "session"):
        return [(base.session, observation)]
    return [(base.sessions[agent], observation[agent]["text"]) for agent in base.agents]


def longest_opening_prompt(tokenizer: Any, episodes: Iterable[tuple[Any, Sequence[str]]],
                           config: RolloutConfig) -> tuple[int, str]:
    """(tokens, task id) of the longest opening prompt over ``episodes``: (env, task ids) pairs."""
    from .llm_policy import ChatCodec

    codec = ChatCodec(tokenizer)
    prompts: dict[str, str] = {}  # rendered prompt -> a task it opens
    for env, task_ids in episodes:
        for task_id in task_ids:
            for session, text in first_observations(env, task_id):
                messages, tools, _ = opening_messages(session, text, config)
                prompts.setdefault(codec.render(messages, tools), task_id)
    longest = sorted(prompts, key=len, reverse=True)[:MEASURED]
    return max(((len(codec.encode(p)), prompts[p]) for p in longest), default=(0, ""))


def check_prompt_room(tokenizer: Any, episodes: Iterable[tuple[Any, Sequence[str]]], config: RolloutConfig,
                      option: str = "max_episode_tokens") -> None:
    """Raise ``ValueError`` (one line naming ``option``, its value, the prompt's tokens and the least
    accepted) unless every opening prompt leaves ``min_turn_tokens`` for a turn, as the rollout requires."""
    tokens, task_id = longest_opening_prompt(tokenizer, episodes, config)
    least = tokens + config.min_turn_tokens
    if config.max_episode_tokens < least:
        raise ValueError(f"{option} {config.max_episode_tokens} leaves no room for a turn: the opening prompt (system "
                         f"prompt, first observation and tools, through the model's chat template) has {tokens} "
                         f"tokens (task {task_id}); accepted: an integer >= {least} (the prompt plus "
                         f"min_turn_tokens {config.min_turn_tokens})")


def check_train_prompt(config: Any, suite: Any) -> None:
    """An LLM run on ``suite`` (``config``: its LLMTrainConfig): its train tasks, the first
    ``eval_tasks`` dev tasks of its curve and its test tasks."""
    from searchgym.suites import make_env

    tokenizer = run_tokenizer(config.model)
    if tokenizer is None:
        return
    counts = {"train": None, "dev": config.eval_tasks, "test": None}
    episodes = [(make_env(suite, split), [t.id for t in suite.tasks(split)][:count]) for split, count in counts.items()]
    check_prompt_room(tokenizer, episodes, config.rollout)


def check_recipe_prompt(recipe: Any) -> None:
    """The tiny-LM recipe (a :class:`~searchgym.agents.tiny_lm_recipe.Recipe`, with the tokenizer it
    trains): the train tasks of each world SFT plays (RL trains on the first), the dev tasks its
    choices are scored on, and the test tasks it evaluates."""
    from searchgym.suites import make_env

    config, suite = recipe.config, recipe.suite
    rollout = config.rollout_config()
    episodes = []
    for world in range(config.sft_worlds):
        env = make_env(suite, "train", world_seed=suite.world_seed + world).unwrapped
        episodes.append((env, [t.id for t in env.tasks.tasks("train")]))
    dev = make_env(suite, "dev").unwrapped
    episodes.append((dev, [t.id for t in dev.tasks.tasks("dev")][: config.choice_tasks]))
    episodes.append((make_env(suite, "test").unwrapped, [t.id for t in suite.tasks("test")][: config.test_tasks]))
    check_prompt_room(recipe.tokenizer(), episodes, rollout, "rollout.max_episode_tokens")
