"""Agent-supplied JSON is read in linear time and bounded depth: nesting 10 to 10,000 deep in any
tool's arguments, an answer or a team note, in both text formats and through the endpoint agent,
is refused with a message naming the limit (or read, when shallow), and ``step`` never raises.

CPU time is compared side by side: the deepest actions against flat actions of the same length,
measured in the same process (an exponential walk costs hours at depth 30, so the bound is loose).
"""

from __future__ import annotations

import json
import time

import pytest

from searchgym.action_types import MAX_ARGUMENT_DEPTH, Action
from searchgym.actions import TAG_TOOLS, parse_action
from searchgym.envs.search import SearchEnv
from searchgym.envs.team import TeamSearchEnv
from searchgym.endpoint.openai_agent import reply_from_body
from searchgym.lenient_json import MAX_JSON_DEPTH

DEPTHS = (10, 18, 22, 30, MAX_JSON_DEPTH - 2, MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH + 1, 600, 999, 3000, 10_000)
TOOL_ARGS = {"web_search": "query", "knowledge_base": "entity", "calculator": "expression",
             "current_time": "timezone", "ask_for_clarification": "question", "answer": "answer"}


def lists(depth: int, inner: str = '"x"') -> str:
    return "[" * depth + inner + "]" * depth


def objects(depth: int, inner: str = '"x"') -> str:
    return '{"a": ' * depth + inner + "}" * depth


def hermes_actions(depth: int, names=TOOL_ARGS) -> list[str]:
    """Every way a tool call can carry nesting: as the argument, beside it, as the whole arguments
    object, and inside arguments encoded as a JSON string."""
    out = []
    for name, arg in names.items():
        for nest in (lists, objects):
            encoded = json.dumps(f'{{"{arg}": "x", "k": {nest(depth)}}}')  # arguments as a JSON string
            out += [
                f'<tool_call>{{"name": "{name}", "arguments": {{"{arg}": {nest(depth)}}}}}</tool_call>',
                f'<tool_call>{{"name": "{name}", "arguments": {{"{arg}": "x", "k": {nest(depth, "1")}}}}}</tool_call>',
                f'<tool_call>{{"name": "{name}", "arguments": {nest(depth, "1")}}}</tool_call>',
                f'<tool_call>{{"name": "{name}", "arguments": {encoded}}}</tool_call>',
                f'{{"name": "{name}", "arguments": {{"{arg}": {nest(depth)}}}}}',  # bare JSON, no tag
            ]
    return out


def tags_actions(depth: int) -> list[str]:
    return ([f"<{tag}>{'(' * depth}1{')' * depth}</{tag}>" for tag in TAG_TOOLS] +
            [f"<{tag}>{lists(depth)}</{tag}>" for tag in TAG_TOOLS] +
            [f"<answer>{lists(depth)}</answer>", f"<answer>{'(' * depth}</answer>"])


def cpu(fn, *args) -> float:
    start = time.process_time()
    fn(*args)
    return time.process_time() - start


def step_all(env: SearchEnv, actions: list[str]) -> float:
    """Step each action (resetting when an episode ends); the worst CPU time of one step."""
    worst = 0.0
    for action in actions:
        start = time.process_time()
        _, _, terminated, truncated, info = env.step(action)
        worst = max(worst, time.process_time() - start)
        assert isinstance(info, dict)
        if terminated or truncated:
            env.reset(seed=0)
    return worst


@pytest.fixture(scope="module")
def envs() -> dict[str, SearchEnv]:
    made = {fmt: SearchEnv(action_mode="text", tool_format=fmt, world_size="tiny", split="train", max_steps=1000)
            for fmt in ("hermes", "tags")}
    for env in made.values():
        env.reset(seed=0)
    return made


def test_nesting_past_the_limit_is_refused_with_the_limit_in_the_message() -> None:
    for depth in (MAX_JSON_DEPTH + 1, 600, 5000):
        result = parse_action(f'<tool_call>{{"name": "web_search", "arguments": {{"query": {lists(depth)}}}}}'
                              "</tool_call>", "hermes", ["web_search"])
        assert isinstance(result, Action) is False
        assert f"at most {MAX_JSON_DEPTH} are accepted" in result.message and f"nests {depth + 2} brackets" in result.message
    # at the limit the call is read (and the tool, not the parser, refuses a list query)
    shallow = parse_action(f'<tool_call>{{"name": "web_search", "arguments": {{"query": {lists(MAX_JSON_DEPTH - 2)}}}}}'
                           "</tool_call>", "hermes", ["web_search"])
    assert isinstance(shallow, Action) and shallow.tool == "web_search"
    answer = parse_action(f'<tool_call>{{"name": "answer", "arguments": {{"answer": {lists(30)}}}}}</tool_call>',
                          "hermes", [])
    assert answer == Action.answer("x")  # a nested answer is flattened, not walked twice per level


def test_actions_built_in_python_are_bounded_too() -> None:
    value: list = ["x"]
    for _ in range(MAX_ARGUMENT_DEPTH - 1):
        value = [value]
    assert Action.call("t", a=value).args["a"][0][0]  # 32 levels: accepted
    with pytest.raises(ValueError, match=f"at most {MAX_ARGUMENT_DEPTH} are accepted"):
        Action.call("t", a=[value])
    cyclic: list = []
    cyclic.append(cyclic)
    with pytest.raises(ValueError, match="levels deep"):
        Action.call("t", a=cyclic)
    with pytest.raises(ValueError, match="levels deep"):
        Action.call("t", a={"k": [{"k": value}]})


@pytest.mark.parametrize("depth", DEPTHS)
def test_step_never_raises_on_nesting_in_either_format(envs: dict[str, SearchEnv], depth: int) -> None:
    step_all(envs["hermes"], hermes_actions(depth))
    step_all(envs["tags"], tags_actions(depth))


def test_cpu_of_deep_actions_is_that_of_flat_actions_of_their_length(envs: dict[str, SearchEnv]) -> None:
    deep = hermes_actions(10_000) + hermes_actions(MAX_JSON_DEPTH + 1) + hermes_actions(999)
    flat = [a.replace("[", " ").replace("]", " ").replace('{"a": ', "       ").replace("}", " ") for a in deep]
    flat_cpu = min(cpu(step_all, envs["hermes"], flat) for _ in range(3))
    deep_cpu = min(cpu(step_all, envs["hermes"], deep) for _ in range(3))
    assert deep_cpu < 10 * flat_cpu + 0.2, (deep_cpu, flat_cpu)
    tag_deep = tags_actions(10_000) + tags_actions(999)
    tag_flat = [a.replace("(", " ").replace(")", " ").replace("[", " ").replace("]", " ") for a in tag_deep]
    flat_cpu = min(cpu(step_all, envs["tags"], tag_flat) for _ in range(3))
    deep_cpu = min(cpu(step_all, envs["tags"], tag_deep) for _ in range(3))
    assert deep_cpu < 10 * flat_cpu + 0.2, (deep_cpu, flat_cpu)


@pytest.mark.parametrize("depth", DEPTHS)
def test_team_post_note_and_every_tool_never_raise(depth: int) -> None:
    env = TeamSearchEnv(world_size="tiny", action_mode="text", tool_format="hermes", max_rounds=1000)
    env.reset(seed=0)
    names = {**TOOL_ARGS, "post_note": "note", "post": "note"}
    for action in hermes_actions(depth, names) + [f"<post>{lists(depth)}</post>"]:
        start = time.process_time()
        _, _, _, _, infos = env.step({agent: action for agent in env.agents})
        assert time.process_time() - start < 2.0  # one round of three agents; 2^30 would take hours
        assert set(infos) and all(isinstance(i, dict) for i in infos.values())
        if not env.agents:
            env.reset(seed=0)


@pytest.mark.parametrize("depth", DEPTHS + (100_000,))
def test_endpoint_replies_with_nesting_become_actions_the_env_refuses(envs: dict[str, SearchEnv], depth: int) -> None:
    for nest in (lists, objects):
        bodies = [
            {"choices": [{"message": {"content": None, "tool_calls": [
                {"id": "c", "function": {"name": "web_search", "arguments": "@"}}]}}]},
            {"choices": [{"message": {"content": None, "tool_calls": [
                {"id": "c", "function": {"name": "web_search", "arguments": '{"query": @}'}}]}}]},
            {"choices": [{"message": {"content": "@"}}]},
            {"choices": [{"message": {"content": ["@"]}}]},
            {"choices": [{"message": {"content": "", "tool_calls": ["@"]}}]},
        ]
        for body in bodies:
            raw = json.dumps(body).replace('"@"', nest(depth)).replace("@", nest(depth).replace('"', '\\"'))
            start = time.process_time()
            reply = reply_from_body(raw.encode())
            step_all(envs["hermes"], [reply.action])
            assert time.process_time() - start < 2.0
