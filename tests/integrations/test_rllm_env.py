"""The rLLM adapter: rows without answers, from_dict, ToolAgent-shaped actions, rewards equal to the env's.

rLLM is not on the package registry; without it the env subclasses RllmBaseEnvStandIn, and these
tests run the same rollouts through it."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

import searchgym
from searchgym.integrations.rllm import RLLM_INSTALLED, RllmBaseEnvStandIn, SearchgymRllmEnv, rllm_rows

SUITE, SPLIT = "searchqa-text-v2", "dev"


def _call(call_id: str, name: str, **arguments) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def test_the_env_has_rllms_base_class_or_the_named_stand_in() -> None:
    if RLLM_INSTALLED:
        from rllm.environments.base.base_env import BaseEnv

        assert issubclass(SearchgymRllmEnv, BaseEnv)
    else:
        assert issubclass(SearchgymRllmEnv, RllmBaseEnvStandIn)


def test_a_tool_agent_rollout_from_a_row_scores_as_the_env() -> None:
    row = rllm_rows(SUITE, SPLIT, seed=3)[6]
    record = {r.task_id: r for r in searchgym.tasks(SUITE, SPLIT)}[row["task_id"]]
    env = SearchgymRllmEnv.from_dict({**row, "unused_env_arg": 1})
    env.idx = 6
    observation, info = env.reset()
    assert record.question in observation["question"] and info["task_id"] == record.task_id and env.idx == 6
    steps = [[_call("a", "web_search", query=record.question), _call("b", "knowledge_base", entity="Nobody")],
             [_call("c", "finish", response=f"It is <answer>{record.answers[0]}</answer>")]]
    rewards, dones = [], []
    for action in steps:
        observation, reward, done, info = env.step(action)
        rewards.append(reward)
        dones.append(done)
    assert dones == [False, True] and info["success"]
    assert list(observation["tool_outputs"]) == ["c"]

    reference = searchgym.make_task_env(SUITE, SPLIT, record.task_id)
    reference.reset(seed=3)
    first = [reference.step({"name": "web_search", "arguments": {"query": record.question}})[1],
             reference.step({"name": "knowledge_base", "arguments": {"entity": "Nobody"}})[1]]
    last = reference.step(f"It is <answer>{record.answers[0]}</answer>")[1]
    assert rewards == pytest.approx([sum(first), last])
    with pytest.raises(RuntimeError, match="reset"):
        env.step("<answer>again</answer>")


def test_calls_sharing_an_id_keep_every_output() -> None:
    row = rllm_rows(SUITE, SPLIT)[0]
    env = SearchgymRllmEnv.from_dict(row)
    env.reset()
    observation, _, done, _ = env.step([_call("same", "knowledge_base", entity="Nobody"),
                                        _call("same", "web_search", query="Nobody"), _call("", "current_time")])
    outputs = observation["tool_outputs"]
    assert list(outputs) == ["same", "same_1", "call_2"] and not done
    assert outputs["same"] != outputs["same_1"] and all(outputs.values())
    # a repeat whose renamed id the reply already holds is kept too (before: it overwrote that output)
    env.reset()
    observation, _, _, _ = env.step([_call("same", "knowledge_base", entity="Nobody"),
                                     _call("same_2", "web_search", query="Nobody"), _call("same", "current_time")])
    outputs = observation["tool_outputs"]
    assert list(outputs) == ["same", "same_2", "same_2_2"]
    assert len(set(outputs.values())) == 3


def test_text_and_single_calls_step_too() -> None:
    row = rllm_rows(SUITE, SPLIT)[0]
    env = SearchgymRllmEnv.from_dict(row)
    env.reset()
    text, reward, done, info = env.step("no action here")
    assert isinstance(text, str) and info["format_error"] and not done and reward < 0
    # one call in the env's own form is a call too: rLLM's tool_outputs, its result unwrapped (before: the text)
    observation, _, done, _ = env.step({"name": "calculator", "arguments": {"expression": "2+2"}})
    assert observation == {"tool_outputs": {"call_0": "4"}} and not done
    _, _, done, info = env.step({"name": "answer", "arguments": {"answer": "unknown"}})
    assert done and not info["success"]


def test_rows_never_carry_answers() -> None:
    dev = rllm_rows(SUITE, SPLIT)
    records = searchgym.tasks(SUITE, SPLIT)
    assert [r["task_id"] for r in dev] == [r.task_id for r in records]
    for row, record in zip(dev, records, strict=True):
        assert set(row) == {"suite", "split", "task_id", "seed", "question", "data_source"}
        assert record.answers[0] not in json.dumps({k: v for k, v in row.items() if k != "question"})
    assert len(rllm_rows(SUITE, "test")) == 200


def test_a_suite_an_llm_cannot_play_is_refused() -> None:
    with pytest.raises(ValueError, match="candidate-mode"):
        SearchgymRllmEnv("searchqa-v2", SPLIT, searchgym.tasks("searchqa-v2", SPLIT)[0].task_id)
    with pytest.raises(ValueError, match="multi-agent"):
        rllm_rows("team-text-v2", SPLIT)


def test_from_dict_names_the_missing_keys() -> None:
    with pytest.raises(ValueError, match="missing: task_id"):
        SearchgymRllmEnv.from_dict({"suite": SUITE, "split": SPLIT})


def test_envs_stepped_on_threads_see_what_they_see_alone() -> None:
    rows = rllm_rows(SUITE, SPLIT)[:6]

    def play(row: dict) -> list[str]:
        env = SearchgymRllmEnv.from_dict(row)
        env.reset()
        seen = [env.step([_call("x", "web_search", query=row["question"])])[0]["tool_outputs"]["x"]]
        seen.append(env.step([_call("y", "knowledge_base", entity=row["question"].split()[-1])])[0]["tool_outputs"]["y"])
        return seen

    alone = [play(row) for row in rows]
    with ThreadPoolExecutor(max_workers=6) as pool:
        together = list(pool.map(play, rows))
    assert together == alone


def test_any_action_is_a_step_and_tool_call_objects_are_read_like_dicts() -> None:
    """Before: ``step(5)`` raised "'int' object is not iterable", and one OpenAI tool-call object (not
    a dict, not in a list) raised or was iterated field by field; in a list, its id and a ``finish``
    call's response were not read. Now a bad action is the env's format error (a step, no raise)
    and a tool-call object is read as its dict form is."""
    from types import SimpleNamespace

    def call(call_id: str, name: str, **arguments) -> SimpleNamespace:
        return SimpleNamespace(id=call_id, type="function",
                               function=SimpleNamespace(name=name, arguments=json.dumps(arguments)))

    row = rllm_rows(SUITE, SPLIT)[0]
    env = SearchgymRllmEnv.from_dict(row)
    env.reset()
    _, reward, done, info = env.step(5)
    assert info["format_error"] and not done and reward < 0
    observation, _, done, _ = env.step(call("x", "web_search", query="anything"))
    assert list(observation["tool_outputs"]) == ["x"] and not done
    observation, _, done, info = env.step([call("y", "finish", response="<answer>unknown</answer>")])
    assert list(observation["tool_outputs"]) == ["y"] and done and info["answer"] == "unknown"


def test_a_bad_row_or_seed_is_one_error_naming_what_is_accepted() -> None:
    """Before: a seed of -1 made an env that failed only at reset (Gymnasium's "Seed must be greater
    or equal to zero"), "abc" said "invalid literal for int()", and a None row "argument of type
    'NoneType' is not iterable"."""
    import numpy as np

    row = rllm_rows("searchqa-text-v2", "dev")[0]
    for seed in (-1, "abc", 1.5, True):
        with pytest.raises(ValueError, match=r"seed must be an int in 0..9223372036854775807, got"):
            SearchgymRllmEnv.from_dict({**row, "seed": seed})
    with pytest.raises(ValueError, match=r"a searchgym row is a dict with suite, split, task_id"):
        SearchgymRllmEnv.from_dict(None)
    with pytest.raises(ValueError, match=r"rllm_rows' seed must be an int in 0..9223372036854775807"):
        rllm_rows("searchqa-text-v2", "dev", seed=-2)
    env = SearchgymRllmEnv.from_dict({**row, "seed": np.int64(3)})  # as a row comes back from pandas
    assert env.seed == 3 and type(env.seed) is int
    assert SearchgymRllmEnv.from_dict({**row, "seed": 3.0}).seed == 3


def test_a_tool_output_is_wrapped_once_by_the_chat_template() -> None:
    """Before: each output kept the env's <tool_response> wrapper, and rLLM's ToolAgent makes it a
    ``tool`` message, which the chat template wraps again: the model read it wrapped twice."""
    from searchgym.agents.llm_tokenizer import chat_tokenizer

    from searchgym.actions import unwrap_tool_result

    row = rllm_rows(SUITE, SPLIT)[7]
    env = SearchgymRllmEnv.from_dict(row)
    env.reset()
    observation, _, _, _ = env.step([_call("a", "web_search", query=row["question"])])
    reference = searchgym.make_task_env(SUITE, SPLIT, row["task_id"])
    reference.reset(seed=0)
    expected = reference.step({"name": "web_search", "arguments": {"query": row["question"]}})[0]
    assert observation["tool_outputs"]["a"] == unwrap_tool_result(expected) != expected
    shown = chat_tokenizer().apply_chat_template([{"role": "user", "content": row["question"]},
                                                  {"role": "tool", "content": observation["tool_outputs"]["a"],
                                                   "tool_call_id": "a"}], tokenize=False)
    assert shown.count("<tool_response>") == 1
