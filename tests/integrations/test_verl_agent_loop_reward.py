"""The reward verl gives a searchgym trajectory is the env's return.

verl's own ToolAgentLoop keeps what the tools write in ``agent_data.extra_fields`` to itself (its
output carries only ``turn_scores`` and ``tool_rewards``), so the episode's record never reached
``compute_score``, which then stepped only the text after the last tool reply in a fresh env: a
right answer given with the ``answer`` tool scored -0.06 where the env returned 0.98. The export's
rows now run SearchgymToolAgentLoop, whose ``finish_output`` sets the trajectory's reward_score.
verl is usually absent (it needs a GPU to train): these tests drive the tools as verl 0.7 does
and hand ``finish_output`` the output verl builds."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest

import searchgym
from searchgym.integrations.verl import EPISODES, SearchgymTool
from searchgym.integrations.verl_agent_loop import EpisodeReward, SearchgymToolAgentLoop, finish_output
from searchgym.integrations.verl_dataset import verl_agent_loop_config, verl_rows, verl_tool_config
from searchgym.integrations.verl_reward import compute_score

SUITE = "searchqa-text-v2"


@dataclass
class AgentData:
    request_id: str
    extra_fields: dict = field(default_factory=dict)


def _verl_output(tool_rewards: list[float]):
    """What verl's ToolAgentLoop.run returns, as far as the reward goes (verl 0.7 to main)."""
    return SimpleNamespace(reward_score=None, extra_fields={"turn_scores": [], "tool_rewards": tool_rewards})


def _tools() -> dict[str, SearchgymTool]:
    tools = {}
    for entry in verl_tool_config(SUITE, "dev")["tools"]:
        tool = SearchgymTool(config=entry["config"], tool_schema=entry["tool_schema"])
        tools[tool.name] = tool
    return tools


def _play(row: dict, calls: list[dict]) -> tuple[AgentData, list[float]]:
    tools = _tools()
    agent_data, rewards = AgentData("request-1"), []

    async def rollout():
        for call in calls:  # verl 0.7+: create, execute with the trajectory's agent_data, release
            tool = tools[call["name"]]
            instance, _ = await tool.create(create_kwargs=row["extra_info"]["tools_kwargs"][call["name"]]["create_kwargs"])
            _, reward, _ = await tool.execute(instance, call["arguments"], agent_data=agent_data)
            await tool.release(instance)
            rewards.append(reward)

    asyncio.run(rollout())
    return agent_data, rewards


def _env_return(task_id: str, actions: list) -> float:
    env = searchgym.make_task_env(SUITE, "dev", task_id)
    env.reset(seed=0)
    return sum(env.step(action)[1] for action in actions)


def test_an_answer_given_with_the_tool_is_rewarded_as_the_env_rewards_it() -> None:
    row, record = verl_rows(SUITE, "dev")[0], searchgym.tasks(SUITE, "dev")[0]
    calls = [{"name": "web_search", "arguments": {"query": record.question}},
             {"name": "answer", "arguments": {"answer": record.answers[0]}}]
    agent_data, rewards = _play(row, calls)
    expected = _env_return(record.task_id, calls)
    assert expected > 0.9 and sum(rewards) == pytest.approx(expected)
    text = f"...<tool_response>\nAnswer submitted: {record.answers[0]}\n</tool_response>\nassistant\n"
    # what verl's reward manager gave compute_score: the row and verl's output, not the episode's record
    verl_extra = {**row["extra_info"], **_verl_output(rewards).extra_fields}
    assert compute_score(row["data_source"], text, "", verl_extra) < 0  # the defect, as verl's own loop meets it
    output = finish_output(_verl_output(rewards), agent_data.extra_fields, row, text)
    assert output.reward_score == pytest.approx(expected)
    assert output.extra_fields["searchgym_done"] and output.extra_fields["searchgym_success"]
    assert output.extra_fields["tool_rewards"] == rewards  # verl's own fields are kept


def test_an_episode_ended_in_text_is_replayed_and_finished_with_that_text() -> None:
    row, record = verl_rows(SUITE, "dev")[1], searchgym.tasks(SUITE, "dev")[1]
    search = {"name": "web_search", "arguments": {"query": record.question}}
    agent_data, rewards = _play(row, [search])
    answer = f"<answer>{record.answers[0]}</answer>"
    output = finish_output(_verl_output(rewards), agent_data.extra_fields, row,
                           f"<tool_call>...</tool_call>\n<tool_response>\nresults\n</tool_response>\n{answer}")
    assert output.reward_score == pytest.approx(_env_return(record.task_id, [search, answer]))
    untouched = finish_output(_verl_output([]), None, row, answer)  # no tool called: the text alone, from a fresh env
    assert untouched.reward_score == pytest.approx(_env_return(record.task_id, [answer]))


def test_a_row_of_another_dataset_is_left_to_verls_reward_function() -> None:
    output = finish_output(_verl_output([]), {}, {"data_source": "gsm8k", "extra_info": {"index": 3}}, "42")
    assert output.reward_score is None and output.extra_fields == {"turn_scores": [], "tool_rewards": []}


def test_the_export_registers_the_loop_its_rows_name() -> None:
    (entry,) = verl_agent_loop_config()
    assert entry == {"name": verl_rows(SUITE, "dev")[0]["agent_name"],
                     "_target_": "searchgym.integrations.verl_agent_loop.SearchgymToolAgentLoop"}
    module, _, name = entry["_target_"].rpartition(".")
    assert getattr(__import__(module, fromlist=[name]), name) is SearchgymToolAgentLoop


@pytest.mark.parametrize(("extra", "message"), [
    ({"searchgym_done": True}, r"searchgym_reward'\] is None, not the episode's return"),
    ({"searchgym_done": True, "searchgym_reward": "0.9"}, r"searchgym_reward'\] is '0.9'"),
    ({"searchgym_calls": "abc"}, r"searchgym_calls'\] must be the list of the episode's calls .* got str 'abc'"),
    ({"searchgym_calls": [1, 2]}, r"searchgym_calls'\] must be the list"),
])
def test_a_malformed_episode_record_is_one_error(extra, message) -> None:
    """Before: a KeyError, and a string of calls stepped letter by letter (three format errors)."""
    row = verl_rows(SUITE, "dev")[0]
    with pytest.raises(ValueError, match=message):
        compute_score(row["data_source"], "", "", {**row["extra_info"], **extra})


def test_the_loop_needs_verl_to_run_and_says_so() -> None:
    from searchgym.integrations.verl_agent_loop import ToolAgentLoopStandIn

    if issubclass(SearchgymToolAgentLoop, ToolAgentLoopStandIn):  # verl absent (CI): one line naming the extra
        with pytest.raises(RuntimeError, match=r"pip install 'searchgym\[verl\]'"):
            SearchgymToolAgentLoop()
    else:
        from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop

        assert issubclass(SearchgymToolAgentLoop, ToolAgentLoop)


def test_the_export_without_its_packages_is_one_line(tmp_path, monkeypatch, capsys) -> None:
    """Before: two chained tracebacks ending in a plain ImportError."""
    from searchgym.cli import main

    monkeypatch.setitem(__import__("sys").modules, "yaml", None)  # import yaml fails, as where pyyaml is absent
    assert main(["export", "--format", "verl", "--suite", SUITE, "--split", "dev", "--out", str(tmp_path / "x")]) == 2
    assert capsys.readouterr().err == ("the verl export needs pandas, pyarrow and pyyaml (yaml is missing): pip install "
                                       "'searchgym[verl]'  (or: pip install pandas pyarrow pyyaml)\n")
    assert not (tmp_path / "x").exists()


class ScriptedToolAgentLoop:
    """verl's ToolAgentLoop as far as EpisodeReward relies on it (verl 0.7 to main): ``run`` makes
    the trajectory's agent_data, calls ``_call_tool(tool_call, tools_kwargs, agent_data)`` for each
    of the model's calls (create, execute, release), and returns an output that carries only
    ``turn_scores`` and ``tool_rewards``; ``loop`` and ``tokenizer`` are the base's."""

    def __init__(self, calls: list[dict], response_text: str) -> None:
        self.tools, self.calls = _tools(), calls
        self.tokenizer = SimpleNamespace(decode=lambda ids, skip_special_tokens: response_text)

    async def run(self, sampling_params: dict, **kwargs):
        self.loop = asyncio.get_running_loop()
        agent_data, rewards = AgentData("request-1"), []
        for call in self.calls:
            _, reward, _ = await self._call_tool(call, kwargs["extra_info"]["tools_kwargs"], agent_data)
            rewards.append(reward)
        return SimpleNamespace(response_ids=[1, 2, 3], **vars(_verl_output(rewards)))

    async def _call_tool(self, tool_call: dict, tools_kwargs: dict, agent_data: AgentData):
        tool = self.tools[tool_call["name"]]
        instance, _ = await tool.create(create_kwargs=tools_kwargs[tool_call["name"]]["create_kwargs"])
        try:
            return await tool.execute(instance, tool_call["arguments"], agent_data=agent_data)
        finally:
            await tool.release(instance)


def test_the_loop_gives_verl_the_env_return_as_the_trajectory_reward_and_frees_the_episode() -> None:
    class Loop(EpisodeReward, ScriptedToolAgentLoop):
        pass

    row, record = verl_rows(SUITE, "dev")[2], searchgym.tasks(SUITE, "dev")[2]
    calls = [{"name": "web_search", "arguments": {"query": record.question}},
             {"name": "answer", "arguments": {"answer": record.answers[0]}}]
    loop = Loop(calls, f"<tool_response>\nAnswer submitted: {record.answers[0]}\n</tool_response>\n")
    output = asyncio.run(loop.run({}, **row))  # verl passes the row's fields as keywords
    assert output.reward_score == pytest.approx(_env_return(record.task_id, calls))
    assert output.extra_fields["searchgym_calls"] == calls and output.extra_fields["tool_rewards"]
    assert EPISODES.peek("trajectory:" + loop._searchgym_fields["searchgym_episode"]) is None
    assert SearchgymToolAgentLoop.__mro__[1] is EpisodeReward  # the loop verl runs is this one over verl's
