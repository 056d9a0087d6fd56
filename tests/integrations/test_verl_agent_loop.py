"""verl's own tool-calling code (its Hermes parser and ToolAgentLoop's tool dispatch) driving the
searchgym tools loaded from the exported tool config; the reward is the env's. Runs where verl
is installed (it imports on CPU; training needs a GPU)."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pandas as pd
import pytest

pytest.importorskip("verl.experimental.agent_loop.tool_agent_loop")

from searchgym.agents.llm_tokenizer import chat_tokenizer
from verl.experimental.agent_loop.tool_agent_loop import AgentData, ToolAgentLoop
from verl.experimental.agent_loop.tool_parser import HermesToolParser
from verl.tools.tool_registry import initialize_tools_from_config

import searchgym
from searchgym.integrations.verl_dataset import export_verl
from searchgym.integrations.verl_reward import compute_score

SUITE = "searchqa-text-v2"


def test_verls_tool_agent_loop_plays_a_scripted_model_and_scores_as_the_env(tmp_path) -> None:
    written = export_verl(SUITE, "dev", tmp_path)
    tools = {tool.name: tool for tool in initialize_tools_from_config(str(written["tool_config"]))}
    row = pd.read_parquet(written["data"]).iloc[3].to_dict()
    record = searchgym.tasks(SUITE, "dev")[3]
    turns = [{"name": "web_search", "arguments": {"query": record.question}},
             {"name": "answer", "arguments": {"answer": record.answers[0]}}]
    tokenizer = chat_tokenizer()
    parser = HermesToolParser(tokenizer)
    loop = SimpleNamespace(tools=tools, max_tool_response_length=100_000, tool_response_truncate_side="middle")
    agent_data = AgentData(messages=list(row["prompt"]), image_data=None, video_data=None, audio_data=None,
                           mm_processor_kwargs=None, metrics={}, request_id="request-1",
                           tools_kwargs=row["extra_info"]["tools_kwargs"])

    async def rollout() -> list[float]:
        rewards = []
        for call in turns:
            text = f"Let me call a tool.\n<tool_call>\n{json.dumps(call)}\n</tool_call>"
            _, calls = await parser.extract_tool_calls(tokenizer.encode(text))
            assert [c.name for c in calls] == [call["name"]]
            response, reward, _ = await ToolAgentLoop._call_tool(loop, calls[0], agent_data.tools_kwargs, agent_data)
            assert not response.text.startswith("Error executing tool"), response.text
            rewards.append(reward)
        return rewards

    rewards = asyncio.run(rollout())
    reference = searchgym.make_task_env(SUITE, "dev", record.task_id)
    reference.reset(seed=0)
    expected = [reference.step(call)[1] for call in turns]
    assert rewards == pytest.approx(expected)
    extra_info = {**row["extra_info"], **agent_data.extra_fields}
    assert compute_score(row["data_source"], "", row["reward_model"]["ground_truth"], extra_info) == \
        pytest.approx(sum(expected))
    assert agent_data.extra_fields["searchgym_success"]
