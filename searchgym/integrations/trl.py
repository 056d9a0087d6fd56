"""searchgym in TRL's ``GRPOTrainer(environment_factory=...)``: the env, the dataset, the reward.

TRL (``GRPOTrainer``, TRL >= 1.0 with transformers >= 5.2) makes one environment per rollout with
a zero-argument factory, calls ``reset(**row)`` with the dataset row, offers every public method
of the class (other than ``reset`` and ``get_reward``) to the model as a tool, described by the
method's signature and Google-style docstring, and dispatches the model's tool calls to them.
:func:`environment_factory` builds such a class for a suite: its public methods are exactly the
suite's tools and ``answer``, generated from searchgym's own function schemas, and each call is
one ``env.step`` of the suite's text env, so the step limit, costs and scoring are the env's.
:func:`episode_reward` is the reward function: the env's own return (the sum of its step
rewards), after a final answer the model wrote as text (``<answer>...</answer>`` rather than a
call) has been given to the env. :func:`make_dataset` gives the rows (the conversational
``prompt`` TRL reads, and the ``task_id`` and ``split`` that ``reset`` plays), and
:func:`trl_tokenizer` the offline chat tokenizer with the response template TRL parses tool calls
with. Only the single-agent text suites fit: TRL plays one model per rollout.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Sequence
from typing import Any

from searchgym.endpoint.chat_replies import message_text
from searchgym.integrations.text_tasks import check_seed
from searchgym.registry import spec
from searchgym.suites import SUITES, Suite, env_kind, get_suite
from searchgym.task_api import (
    SYSTEM_PROMPT,
    task_source,  # the env and tasks that to_hf_dataset's rows come from
    to_hf_dataset,
)
from searchgym.tools.team_actions import chat_tools

__all__ = ["RESPONSE_TEMPLATE", "environment_factory", "episode_reward", "make_dataset", "trl_tokenizer"]

TRL_INSTALL = "pip install 'searchgym[trl]'"
TRAIN_SPLITS = ("train", "dev")
_WRAPPED = re.compile(r"<tool_response>\n(.*)\n</tool_response>", re.DOTALL)
_PY_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool}
_OVER = ("The episode is over (it was answered or ran out of steps); no tool can be called. "
         "Stop calling tools.")
#: How an assistant turn of the chat tokenizer reads back (transformers' ``response_template``
#: format): ``<tool_call>`` JSON blocks, then text up to ``<|im_end|>`` (Qwen2.5's layout).
RESPONSE_TEMPLATE: dict[str, Any] = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "tool_calls": {"open": "<tool_call>", "close_pattern": r"</tool_call>\s*", "repeats": True,
                       "content": "json", "transform": {"type": "function", "function": "{content}"}},
        "content": {"close_pattern": r"<\|im_end\|>\s*", "content": "text"},
    },
}


class _SearchGymEnv:
    """One rollout's env for TRL; :func:`environment_factory` adds the suite's tools as methods.

    ``reward`` (the env's return so far), ``done`` and ``info`` (the last step's info) are
    attributes, not methods, so TRL offers none of them as a tool. ``suite`` is a Suite, or an env id
    (``"SearchQA-v0"``: every task of the env's default world); ``source`` is its id, as rows name it."""

    suite: Suite | str
    source: str
    seed: int = 0

    def __init__(self) -> None:
        self._envs: dict[str, Any] = {}
        self._ids: dict[str, set[str]] = {}
        self._env: Any = None
        self.task_id: str | None = None
        self.reward, self.done, self.info = 0.0, True, {}
        self._text_given = False

    def reset(self, **row: Any) -> None:
        """Start the row's task (``task_id``, ``split``); the row's ``prompt`` already holds the
        question, so nothing is appended to it (None)."""
        task_id, split = row.get("task_id"), row.get("split", "train")
        if not isinstance(task_id, str):
            raise ValueError("reset needs the row's task_id; build the dataset with "
                             "searchgym.integrations.trl.make_dataset(suite, split)")
        source = row.get("suite")  # before: a row of an env id's tasks played the suite's task of the same id
        if source is not None and source != self.source:
            raise ValueError(f"the row is a task of {source!r} and this env plays {self.source!r}, whose task "
                             f"{task_id!r} is another question; build the dataset with make_dataset("
                             f"{self.source!r}, {split!r}), or the env with environment_factory({source!r})")
        if split not in TRAIN_SPLITS:
            raise ValueError(f"split {split!r} is not one to train on; accepted: {', '.join(TRAIN_SPLITS)}")
        if split not in self._envs:
            self._envs[split], found = task_source(self.suite, split)
            self._ids[split] = {task.id for task in found}
        if task_id not in self._ids[split]:  # the env's task_id option picks from any split: a test task too
            raise ValueError(f"task {task_id!r} is not in the {split} split of {self.source!r}; accepted: one of "
                             f"its {len(self._ids[split])} task ids (make_dataset(suite, {split!r}) gives them)")
        self._env = self._envs[split]
        _, self.info = self._env.reset(seed=self.seed, options={"task_id": task_id})
        self.task_id, self.reward, self.done, self._text_given = task_id, 0.0, False, False

    def _act(self, action: Any) -> str:
        """One env step with a tool call or a text action; its observation is the tool's result."""
        if self._env is None:
            raise RuntimeError("call reset(**row) before a tool")
        if self.done:
            return _OVER
        observation, reward, terminated, truncated, self.info = self._env.step(action)
        self.reward += float(reward)
        self.done = bool(terminated or truncated)
        wrapped = _WRAPPED.fullmatch(observation)
        return wrapped.group(1) if wrapped else observation  # the chat template wraps a tool message itself

    def _finish_with_text(self, text: str) -> None:
        """Give the env a final turn the model wrote as text (an ``<answer>`` or a text tool call),
        once per episode: before, each further :func:`episode_reward` of the same rollout stepped a
        text that was no answer again, charging its format cost again."""
        if not self.done and not self._text_given and text.strip():
            self._text_given = True
            self._act(text)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its suite and seed and its state: the class is made at run time, so pickle cannot
        find it by name (before: "Can't pickle <class '...SearchGym_searchqa_text_v2'>")."""
        return _unpickle_env, (self.suite, self.seed), self.__dict__


def _tool_method(schema: dict[str, Any]) -> Any:
    """A method named after the schema's function, whose signature and docstring describe the
    schema (what ``transformers.utils.get_json_schema`` reads), and whose call is one env step.
    Every argument reaches the env, so a bad call gets the env's own error message."""
    function = schema["function"]
    name, parameters = function["name"], function["parameters"]
    required = set(parameters.get("required", ()))

    def method(self: _SearchGymEnv, **arguments: Any) -> str:
        return self._act({"name": name, "arguments": arguments})

    signature = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    lines = [function["description"], ""]
    properties = parameters.get("properties", {})
    if properties:
        lines.append("Args:")
    for arg, schema_of_arg in properties.items():
        annotations[arg] = _PY_TYPES[schema_of_arg["type"]]
        default = inspect.Parameter.empty if arg in required else None
        signature.append(inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY, default=default,
                                           annotation=annotations[arg]))
        lines.append(f"    {arg}: {schema_of_arg.get('description', arg)}")
    lines += ["", "Returns:", "    What the environment shows after the call."]
    method.__name__ = method.__qualname__ = name
    method.__doc__ = "\n".join(lines)
    method.__annotations__ = {**annotations, "return": str}
    method.__signature__ = inspect.Signature(signature, return_annotation=str)
    return method


def _suite_tool_schemas(suite: Suite | str) -> list[dict[str, Any]]:
    """The function schemas of the suite's (or env id's) single agent (its tools, then ``answer``)."""
    env, _ = task_source(suite, "dev")
    try:
        env.reset(seed=0)
        session = env.unwrapped.session  # a single-agent env: _playable_suite checked it
        return chat_tools(session.allowed, answer=session.can_answer)
    finally:
        env.close()


def _playable_suite(suite: Any, env_ids: bool = False) -> Any:
    """``suite`` as a single-agent text suite (or, with ``env_ids``, such an env id), else a clear error
    naming it. Before: ``make_dataset`` built rows for candidate and team suites (found out only when
    the trainer played them), and a list was "unhashable type: 'list'"."""
    if not isinstance(suite, str | Suite):
        raise TypeError(f"suite must be a suite id (str) or a Suite, such as 'searchqa-text-v2'; "
                        f"got {type(suite).__name__}")
    if env_ids and isinstance(suite, str) and suite not in SUITES:
        try:
            found = spec(suite.removeprefix("searchgym/"))
        except (KeyError, ValueError):
            return suite  # to_hf_dataset names what is accepted
        env_id, kwargs, kind = found.id, dict(found.kwargs), found.kind
    else:
        suite = get_suite(suite)
        env_id, kwargs, kind = suite.env_id, {**spec(suite.env_id).kwargs, **suite.kwargs}, env_kind(suite)
    name = suite if isinstance(suite, str) else suite.id
    if kwargs.get("action_mode", "text") != "text":
        raise ValueError(f"suite {name!r} is not a text suite (its agents pick numbered candidates); "
                         "TRL's tools need one: searchqa-text-v2")
    if kind != "single":
        raise ValueError(f"suite {name!r} ({env_id}) is multi-agent; TRL's environment_factory plays one model per "
                         "rollout: use a single-agent text suite such as searchqa-text-v2")
    return suite


def environment_factory(suite: str | Suite = "searchqa-text-v2", seed: int = 0) -> type:
    """The env class for ``GRPOTrainer(environment_factory=...)`` (the class is the zero-argument
    factory): its public methods are the suite's tools and ``answer``, plus TRL's ``reset``. ``suite``
    is what :func:`make_dataset` takes: a suite, or a single-agent text env id, whose rows it plays
    (before: ``environment_factory("SearchQA-v0")`` was "unknown suite" though its rows were made)."""
    check_seed(seed, "environment_factory's", optional=False)  # before: -1 failed at the first reset, in Gymnasium
    suite = _playable_suite(suite, env_ids=True)
    if isinstance(suite, str):  # an env id (an unknown id: task_source names the suites and env ids)
        suite = suite.removeprefix("searchgym/")
    source = suite if isinstance(suite, str) else suite.id
    methods = {s["function"]["name"]: _tool_method(s) for s in _suite_tool_schemas(suite)}
    name = "SearchGym_" + "".join(c if c.isalnum() else "_" for c in source)
    env_class = type(name, (_SearchGymEnv,), {"suite": suite, "source": source, "seed": int(seed),
                                              "__doc__": _SearchGymEnv.__doc__, **methods})
    _MADE[(source, int(seed))] = env_class
    return env_class


#: The class :func:`environment_factory` made last for each (suite or env id, seed): a copy keeps its class.
_MADE: dict[tuple[str, int], type] = {}


def _unpickle_env(suite: Suite | str, seed: int) -> _SearchGymEnv:
    """An uninitialised instance of ``environment_factory(suite, seed)``'s class (pickle sets its state)."""
    env_class = _MADE.get((suite if isinstance(suite, str) else suite.id, seed))
    if env_class is None or env_class.suite != suite:
        env_class = environment_factory(suite, seed)
    return env_class.__new__(env_class)


def episode_reward(completions: Sequence[list[dict[str, Any]]], environments: Sequence[Any] | None = None,
                   **_: Any) -> list[float]:
    """TRL reward function: each rollout's env return (the sum of the env's step rewards).

    A rollout whose last assistant turn is text without a tool call (an ``<answer>`` written
    out, say) has that text stepped first, so the env scores it; a rollout that never answers
    gets what the env gave it (its step costs)."""
    if environments is None:
        raise ValueError("episode_reward needs TRL's environments: pass environment_factory=... to GRPOTrainer")
    odd = next((e for e in environments if not isinstance(e, _SearchGymEnv)), None)
    if odd is not None:  # before: "'int' object is not subscriptable", from deep inside
        raise TypeError(f"environments must be the envs environment_factory's class made (one per completion); "
                        f"got {type(odd).__name__}")
    if len(completions) != len(environments):  # before: "zip() argument 2 is longer than argument 1"
        raise ValueError(f"episode_reward needs one environment per completion; got {len(completions)} completions "
                         f"and {len(environments)} environments")
    rewards = []
    for completion, env in zip(completions, environments, strict=True):
        last = completion[-1] if completion else {}
        if isinstance(last, dict) and last.get("role") == "assistant" and not last.get("tool_calls"):
            env._finish_with_text(message_text(last.get("content")))  # content parts too (were dropped unscored)
        rewards.append(float(env.reward))
    return rewards


def make_dataset(suite: str | Suite = "searchqa-text-v2", split: str = "train",
                 system_prompt: str = SYSTEM_PROMPT) -> Any:
    """The rows GRPOTrainer trains on: ``prompt`` (the task's chat messages), ``task_id``, ``split``
    and ``suite`` (what ``reset`` plays: the suite id, or the env id the rows came from, which
    ``environment_factory`` of that id plays), ``question``, ``family`` and ``answers``. Train or dev
    only: the test split is the leaderboard's."""
    suite = _playable_suite(suite, env_ids=True)
    if split not in TRAIN_SPLITS:
        raise ValueError(f"split {split!r} is not one to train on; accepted: {', '.join(TRAIN_SPLITS)} "
                         "(the test split stays unseen: the leaderboard scores it)")
    rows = to_hf_dataset(suite, split, system_prompt).remove_columns(["tools"])
    source = suite.id if isinstance(suite, Suite) else suite.removeprefix("searchgym/")
    return rows.add_column("suite", [source] * len(rows))


def trl_tokenizer() -> Any:
    """searchgym's offline chat tokenizer (:func:`searchgym.agents.llm_tokenizer.chat_tokenizer`)
    with :data:`RESPONSE_TEMPLATE` set, so TRL reads the tool calls a model writes with it."""
    from searchgym.agents.llm_tokenizer import chat_tokenizer

    tokenizer = chat_tokenizer()
    tokenizer.response_template = RESPONSE_TEMPLATE
    return tokenizer
