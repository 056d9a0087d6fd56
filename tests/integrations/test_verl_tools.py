"""The verl tools drive a searchgym episode (create/execute/calc_reward/release) the ways verl's
rollouts call them, and compute_score gives the env's return.

verl needs a GPU to train and is usually absent: the tool then subclasses VerlBaseToolStandIn and
these tests run the same calls through it; with verl installed, through verl's BaseTool."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

import searchgym
from searchgym.integrations.verl import (
    EPISODES,
    VERL_INSTALLED,
    SearchgymTool,
    VerlBaseToolStandIn,
    compute_score,
)
from searchgym.integrations.verl_dataset import verl_rows, verl_tool_config

SUITE = "searchqa-text-v2"


@dataclass
class AgentData:
    """The two fields of verl's AgentData the tools use."""

    request_id: str
    extra_fields: dict = field(default_factory=dict)


def _tools(split: str) -> dict[str, SearchgymTool]:
    schema_cls = None
    if VERL_INSTALLED:
        from verl.tools.schemas import OpenAIFunctionToolSchema as schema_cls
    tools = {}
    for entry in verl_tool_config(SUITE, split)["tools"]:
        schema = schema_cls.model_validate(entry["tool_schema"]) if schema_cls else entry["tool_schema"]
        tool = SearchgymTool(config=entry["config"], tool_schema=schema)
        tools[tool.name] = tool
    return tools


def _reference(split: str, task_id: str, actions: list) -> float:
    env = searchgym.make_task_env(SUITE, split, task_id)
    env.reset(seed=0)
    return sum(env.step(action)[1] for action in actions)


async def _call_per_instance(tools, row, agent_data, name, arguments):
    """verl 0.7+'s tool agent loop: create, execute with agent_data, release, for every call."""
    tool = tools[name]
    instance_id, _ = await tool.create(create_kwargs=row["extra_info"]["tools_kwargs"][name]["create_kwargs"])
    try:
        return await tool.execute(instance_id, arguments, agent_data=agent_data)
    finally:
        await tool.release(instance_id)


def test_the_tool_has_verls_base_class_or_the_named_stand_in() -> None:
    if VERL_INSTALLED:
        from verl.tools.base_tool import BaseTool

        assert issubclass(SearchgymTool, BaseTool)
    else:
        assert issubclass(SearchgymTool, VerlBaseToolStandIn)


def test_a_tool_agent_loop_rollout_scores_as_the_env() -> None:
    row = verl_rows(SUITE, "dev")[2]
    record = searchgym.tasks(SUITE, "dev")[2]
    tools, agent_data = _tools("dev"), AgentData("request-a")
    calls = [("web_search", {"query": record.question}), ("calculator", {"expression": "2 +"}),
             ("answer", {"answer": record.answers[0]})]

    async def rollout():
        return [await _call_per_instance(tools, row, agent_data, name, args) for name, args in calls]

    replies = asyncio.run(rollout())
    expected = _reference("dev", record.task_id, [{"name": n, "arguments": a} for n, a in calls])
    assert replies[0][0].text.startswith("[1] ") and replies[-1][2]["searchgym_success"]
    assert sum(reward for _, reward, _ in replies) == pytest.approx(expected)
    assert agent_data.extra_fields["searchgym_done"] and agent_data.extra_fields["searchgym_success"]
    extra_info = {**row["extra_info"], **agent_data.extra_fields}  # what verl's reward managers pass
    assert compute_score(row["data_source"], "...", row["reward_model"]["ground_truth"], extra_info) == \
        pytest.approx(expected)
    late = asyncio.run(_call_per_instance(tools, row, agent_data, "web_search", {"query": "again"}))
    assert "episode is over" in late[0].text and late[1] == 0.0  # a finished task does not start again
    again = AgentData("request-a")  # a later trajectory with the same request id starts its own episode
    fresh = asyncio.run(_call_per_instance(tools, row, again, "web_search", {"query": record.question}))
    assert fresh[1] == pytest.approx(replies[0][1]) and not again.extra_fields["searchgym_done"]


def test_an_instance_per_trajectory_rollout_on_the_test_split() -> None:
    """Older verl: one instance per trajectory, create_kwargs spread, calc_reward at the end."""
    row = verl_rows(SUITE, "test")[0]
    tools = _tools("test")
    create_kwargs = row["extra_info"]["tools_kwargs"]["web_search"]["create_kwargs"]
    calls = [("web_search", {"query": row["extra_info"]["question"]}), ("answer", {"answer": "unknown"})]

    async def rollout():
        instance_id, _ = await tools["web_search"].create("trajectory-1", **create_kwargs)
        await tools["answer"].create("trajectory-1", **create_kwargs)
        for name, args in calls:
            await tools[name].execute(instance_id, args)
        reward = await tools["answer"].calc_reward(instance_id)
        for tool in (tools["web_search"], tools["answer"]):
            await tool.release(instance_id)
        return reward

    expected = _reference("test", row["extra_info"]["task_id"], [{"name": n, "arguments": a} for n, a in calls])
    assert asyncio.run(rollout()) == pytest.approx(expected)
    assert EPISODES.peek("instance:trajectory-1") is None  # released with its instance


def test_an_episode_ended_in_text_is_replayed_and_scored_by_the_env() -> None:
    row = verl_rows(SUITE, "dev")[5]
    record = searchgym.tasks(SUITE, "dev")[5]
    tools, agent_data = _tools("dev"), AgentData("request-b")
    asyncio.run(_call_per_instance(tools, row, agent_data, "web_search", {"query": record.question}))
    final = f"It is <answer>{record.answers[0]}</answer>"
    response = f'<tool_call>{{"name": "web_search"}}</tool_call>\nuser\n<tool_response>\n...\n</tool_response>\n{final}'
    expected = _reference("dev", record.task_id, [{"name": "web_search", "arguments": {"query": record.question}},
                                                  final])
    score = compute_score(row["data_source"], response, "", {**row["extra_info"], **agent_data.extra_fields})
    assert score == pytest.approx(expected) and score > 0.9
    no_tools = compute_score(row["data_source"], final, "", dict(row["extra_info"]))
    assert no_tools == pytest.approx(_reference("dev", record.task_id, [final]))


def test_bad_rows_and_calls_get_clear_errors() -> None:
    tool = _tools("dev")["web_search"]
    with pytest.raises(ValueError, match="missing: task_id"):
        asyncio.run(tool.create(create_kwargs={"suite": SUITE, "split": "dev"}))
    with pytest.raises(ValueError, match="call create first"):
        asyncio.run(tool.execute("never-created", {"query": "x"}))
    with pytest.raises(ValueError, match="task locator"):
        compute_score("other/source", "<answer>x</answer>", "", {})


@pytest.mark.parametrize("seed", [-1, "abc", 1.5, True])
def test_a_bad_seed_is_refused_at_create_and_export(seed) -> None:
    """Before: create_kwargs seed -1 was taken and the first call failed in Gymnasium ("Seed must be
    greater or equal to zero"), "abc" raised "invalid literal for int()", 1.5 and True were played
    as 1; verl_rows(seed=-1) wrote rows that failed so at rollout."""
    import numpy as np

    tool = _tools("dev")["web_search"]
    locator = dict(verl_rows(SUITE, "dev")[0]["extra_info"]["searchgym"])
    with pytest.raises(ValueError, match=r"create_kwargs seed must be an int in 0..9223372036854775807, got"):
        asyncio.run(tool.create(create_kwargs={**locator, "seed": seed}))
    with pytest.raises(ValueError, match=r"create_kwargs seed must be an int in 0..9223372036854775807"):
        compute_score(f"searchgym/{SUITE}", "<answer>x</answer>", "", {"searchgym": {**locator, "seed": seed}})
    with pytest.raises(ValueError, match=r"the verl export's seed must be an int in 0..9223372036854775807"):
        verl_rows(SUITE, "dev", seed=seed)
    instance_id, _ = asyncio.run(tool.create(create_kwargs={**locator, "seed": np.int64(0)}))  # as parquet gives it
    assert tool._instances[instance_id]["seed"] == 0


def test_verl_can_load_the_reward_function_by_module_or_by_file() -> None:
    """verl loads a custom reward from ``pkg://module`` or from a file outside sys.modules."""
    import importlib.util

    from searchgym.integrations import verl_reward

    spec = importlib.util.spec_from_file_location("custom_module_x", verl_reward.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # as verl's load_module does: not registered in sys.modules
    row = verl_rows(SUITE, "dev")[1]
    extra = {**row["extra_info"], "searchgym_calls": []}
    assert module.compute_score(row["data_source"], "<answer>unknown</answer>", "", extra) == \
        pytest.approx(compute_score(row["data_source"], "<answer>unknown</answer>", "", extra))
    if VERL_INSTALLED:
        from omegaconf import OmegaConf
        from verl.trainer.ppo.reward import get_custom_reward_fn

        for path in ("pkg://searchgym.integrations.verl_reward", verl_reward.__file__):
            config = OmegaConf.create({"reward": {"custom_reward_function": {"path": path, "name": "compute_score"}}})
            reward = get_custom_reward_fn(config)
            assert reward(data_source=row["data_source"], solution_str="<answer>unknown</answer>", ground_truth="",
                          extra_info=extra) == pytest.approx(module.compute_score(row["data_source"],
                                                                                  "<answer>unknown</answer>", "", extra))


def test_a_trajectory_that_stops_after_a_tool_reply_scores_only_its_calls() -> None:
    """Before: with nothing after the last </tool_response> (verl's turn limit), compute_score stepped
    "" in the replay and added a format error's cost: -0.07 for one search whose env return is -0.01."""
    row = verl_rows(SUITE, "dev")[0]
    call = {"name": "web_search", "arguments": {"query": row["extra_info"]["question"]}}
    extra = {**row["extra_info"], "searchgym_calls": [call], "searchgym_done": False}
    score = compute_score(row["data_source"], "...<tool_response>\nresults\n</tool_response>\n ", "", extra)
    assert score == _reference("dev", row["extra_info"]["task_id"], [call])
    with_prose = compute_score(row["data_source"], "...</tool_response>I give up", "", extra)
    assert with_prose == _reference("dev", row["extra_info"]["task_id"], [call, "I give up"])  # text is a step


@pytest.mark.parametrize("extra_info", ["notadict", 5, ["searchgym"]])
def test_compute_score_names_an_extra_info_that_is_no_dict(extra_info):
    """Before: "'str' object has no attribute 'get'"."""
    from searchgym.integrations.verl_reward import compute_score

    with pytest.raises(TypeError, match="extra_info must be the row's dict"):
        compute_score("searchgym/searchqa-text-v2", "", None, extra_info)


def test_a_tool_reply_is_wrapped_once_by_the_chat_template() -> None:
    """Before: the reply kept the env's <tool_response> wrapper, and verl renders it as a ``tool``
    message through the chat template, which wraps it again: the model read it wrapped twice."""
    from searchgym.agents.llm_tokenizer import chat_tokenizer

    from searchgym.actions import unwrap_tool_result

    row, record = verl_rows(SUITE, "dev")[7], searchgym.tasks(SUITE, "dev")[7]
    call = {"name": "web_search", "arguments": {"query": record.question}}
    reply = asyncio.run(_call_per_instance(_tools("dev"), row, AgentData("request-wrap"), call["name"],
                                           call["arguments"]))[0]
    env = searchgym.make_task_env(SUITE, "dev", record.task_id)
    env.reset(seed=0)
    observation = env.step(call)[0]
    assert reply.text == unwrap_tool_result(observation) != observation
    shown = chat_tokenizer().apply_chat_template([{"role": "user", "content": record.question},
                                                  {"role": "tool", "content": reply.text}], tokenize=False)
    assert shown.count("<tool_response>") == 1


@pytest.mark.parametrize("locator", [5, "suite split task_id", ["suite", "split", "task_id"]])
def test_a_task_locator_that_is_no_dict_is_named(locator) -> None:
    """Before: create_kwargs=5 was "argument of type 'int' is not iterable", a string naming the keys
    "'str' object has no attribute 'get'", and extra_info['searchgym'] as a string "dictionary update
    sequence element #0 has length 1"."""
    tool = _tools("dev")["web_search"]
    says = r"a searchgym task locator \(.*\) must be a dict with suite, split, task_id, .*; got "
    with pytest.raises(ValueError, match=says + type(locator).__name__):
        asyncio.run(tool.create(create_kwargs=locator))
    with pytest.raises(ValueError, match=says + type(locator).__name__):
        compute_score(f"searchgym/{SUITE}", "<answer>x</answer>", "", {"searchgym": locator})
