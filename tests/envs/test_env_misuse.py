"""What an env does with a caller's mistakes: stepping a finished episode, a failed reset, an
action changed after it was sent, an index given as a 0-d array."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import searchgym
from searchgym.action_types import Action
from searchgym.actions import MAX_ACTION_CHARS, parse_action

TOOL_CALL = '<tool_call>{"name": "web_search", "arguments": {"query": "Tistel Group"}}</tool_call>'


def test_a_step_after_the_episode_ended_runs_no_tool():
    env = searchgym.make("SearchQA-v0", world_size="tiny")
    env.reset(seed=0)
    assert env.step("<answer>x</answer>")[2]
    session = env.unwrapped.session
    calls = []
    tool = session.tools["web_search"]
    session.tools["web_search"] = lambda **kwargs: calls.append(kwargs) or tool(**kwargs)
    with pytest.raises(RuntimeError, match="episode is over; call reset"):
        env.step(TOOL_CALL)
    assert calls == [] and session.tool_calls == 0 and session.steps == 1


@pytest.mark.parametrize("env_id", ["SearchQA-Candidates-v0", "GroupSearch-Candidates-v0"])
def test_a_reset_that_fails_on_its_options_leaves_the_episode_as_it_was(env_id):
    env = searchgym.make(env_id, world_size="tiny")
    single = env_id.startswith("SearchQA")
    env.reset(seed=0)
    env.step(0) if single else env.step(dict.fromkeys(env.agents, 0))
    state = env.unwrapped.np_random.bit_generator.state
    for options, said in (({"task_id": "no-such-task"}, "no task with id 'no-such-task'"),
                          ({"split": "nope"}, "split must be one of")):
        with pytest.raises(ValueError, match=said):
            env.reset(seed=99, options=options)
    assert env.unwrapped.np_random.bit_generator.state == state  # not reseeded
    env.step(1) if single else env.step(dict.fromkeys(env.agents, 1))
    copy = pickle.loads(pickle.dumps(env))  # failed before: the record held the failed reset's options
    sessions = [env.unwrapped.session] if single else list(env.unwrapped.sessions.values())
    copied = [copy.unwrapped.session] if single else list(copy.unwrapped.sessions.values())
    assert [s.transcript for s in copied] == [s.transcript for s in sessions]


@pytest.mark.parametrize("env_id", ["SearchQA-v0", "TeamSearch-v0"])
def test_a_pickled_env_replays_the_calls_as_they_were_sent_not_as_changed_since(env_id):
    env = searchgym.make(env_id, world_size="tiny")
    env.reset(seed=0)
    call = {"name": "web_search", "arguments": {"query": "Tistel Group"}}
    for query in ("Tistel Group", "Saenebeir"):  # one template, a new query each step
        call["arguments"]["query"] = query
        env.step(call) if env_id == "SearchQA-v0" else env.step(dict.fromkeys(env.agents, call))
    sessions = [env.unwrapped.session] if env_id == "SearchQA-v0" else list(env.unwrapped.sessions.values())
    copy = pickle.loads(pickle.dumps(env))
    copied = [copy.unwrapped.session] if env_id == "SearchQA-v0" else list(copy.unwrapped.sessions.values())
    assert [s.transcript for s in copied] == [s.transcript for s in sessions]
    assert 'query="Tistel Group"' in sessions[0].transcript[0][0]


def test_a_0d_integer_array_is_an_index_as_the_action_space_says():
    env = searchgym.make("SearchQA-Candidates-v0", world_size="tiny")
    _, info = env.reset(seed=0)
    index = np.array(int(np.flatnonzero(info["action_mask"])[0]))  # what tensor.numpy() gives
    assert env.action_space.contains(index)
    _, _, _, _, info = env.step(index)
    assert not info["format_error"] and info["step"] == 1
    _, _, _, _, info = env.step(np.array(True))  # a bool is no index, as before
    assert info["format_error"]


def test_the_numeric_wrappers_read_a_0d_array_as_a_slot():
    plain, arrays = (searchgym.make("SearchQA-Numeric-v0", world_size="tiny") for _ in range(2))
    plain.reset(seed=3)
    arrays.reset(seed=3)
    done = False
    while not done:
        slot = int(np.flatnonzero(plain.get_wrapper_attr("action_masks")())[-1])
        a, b = plain.step(slot), arrays.step(np.array(slot, dtype=np.int32))
        assert np.array_equal(a[0], b[0]) and a[1] == b[1] and not b[4]["format_error"]
        done = a[2] or a[3]
    group = searchgym.make("GroupSearch-Numeric-v0", world_size="tiny")
    group.reset(seed=0)
    infos = group.step({agent: np.array(0) for agent in group.agents})[4]
    assert not any(info["format_error"] for info in infos.values())


@pytest.mark.parametrize("env_id", ["SearchQA-v0", "TeamSearch-v0"])
@pytest.mark.parametrize("options", [[1], "task_id"])
def test_a_task_env_refuses_options_that_are_no_dict_naming_what_is_accepted(env_id, options):
    task_id = searchgym.tasks(env_id, "dev")[0].task_id
    env = searchgym.make_task_env(env_id, "dev", task_id)
    with pytest.raises(TypeError, match="reset options must be a dict with string keys.*accepted keys: task_id"):
        env.reset(seed=0, options=options)


@pytest.mark.parametrize("env_id", ["GroupSearch-v0", "TeamSearch-v0"])
def test_the_env_page_says_what_reset_infos_hold(env_id):
    env = searchgym.make(env_id, world_size="tiny")
    _, infos = env.reset(seed=0)
    info = infos[env.agents[0]]
    assert set(info["reward_components"].values()) == {0.0} and info["signals"]["reason"] == "reset"
    page = " ".join(type(env).__doc__.split())
    assert "are empty dicts" not in page and "``signals`` hold zeros" in page


@pytest.mark.parametrize("env_id", ["SearchQA-v0", "GroupSearch-v0", "TeamSearch-v0"])
def test_the_text_action_space_holds_exactly_the_actions_the_parser_reads(env_id):
    env = searchgym.make(env_id, world_size="tiny")
    space = env.action_space if env_id == "SearchQA-v0" else env.action_space(env.possible_agents[0])
    assert space.max_length == MAX_ACTION_CHARS
    longest = "<answer>Mara Quell" + " " * (MAX_ACTION_CHARS - 27) + "</answer>"
    assert len(longest) == MAX_ACTION_CHARS and space.contains(longest)
    assert parse_action(longest, "hermes", ["web_search"]) == Action.answer("Mara Quell")
    too_long = longest + " "
    assert not space.contains(too_long)
    assert f"at most {MAX_ACTION_CHARS} outside <think>" in parse_action(too_long, "hermes", ["web_search"]).message


HUGE = 10**5000  # past Python's 4,300-digit limit for writing an int: repr and json.dumps raise on it


@pytest.mark.parametrize(("env_id", "action", "said"), [
    ("SearchQA-Candidates-v0", HUGE, "index <an integer of about 5001 digits> is out of range"),
    ("SearchQA-v0", {"name": "web_search", "arguments": {"query": "x", "k": HUGE}},
     "web_search k must be between 1 and 10; got <an integer of about 5001 digits>"),
    ("SearchQA-v0", {"name": "answer", "arguments": {"answer": HUGE}}, "Answer submitted: <an integer of about"),
], ids=["index", "argument", "answer"])
def test_an_int_too_long_to_write_is_an_error_observation_not_a_crash(env_id, action, said):
    """Before: a ValueError from writing the int, raised half-way through the step (steps counted,
    the transcript and the replay record without the step)."""
    env = searchgym.make(env_id, world_size="tiny")
    env.reset(seed=0)
    observation, *_ = env.step(action)
    text = observation["text"] if isinstance(observation, dict) else observation
    assert said in text
    copy = pickle.loads(pickle.dumps(env))
    assert copy.unwrapped.session.steps == env.unwrapped.session.steps == 1


def test_a_group_step_with_one_huge_index_steps_every_agent():
    env = searchgym.make("GroupSearch-Candidates-v0", world_size="tiny")
    env.reset(seed=0)
    observations, *_ = env.step({**dict.fromkeys(env.agents, 0), env.agents[-1]: HUGE})
    assert "is out of range" in observations[env.agents[-1]]["text"]
    assert [env.unwrapped.sessions[a].steps for a in env.possible_agents] == [1] * len(env.possible_agents)


def test_a_split_and_a_task_of_another_split_are_refused():
    """Before: ``{"split": "test", "task_id": <a train task>}`` played the train task, silently."""
    env = searchgym.make("SearchQA-v0", world_size="tiny")
    train_task = env.unwrapped.tasks.tasks("train")[0].id
    with pytest.raises(ValueError, match=f"task '{train_task}' is in split 'train', not 'test'; give task_id alone"):
        env.reset(seed=0, options={"split": "test", "task_id": train_task})
    assert env.reset(seed=0, options={"split": "train", "task_id": train_task})[1]["task_id"] == train_task
    assert env.reset(seed=0, options={"task_id": train_task})[1]["split"] == "train"


def test_an_env_that_took_a_call_object_of_a_local_class_still_pickles():
    """Before: the replay record kept the caller's object, and pickling the env failed on its class."""
    function = type("Function", (), {"name": "current_time", "arguments": "{}"})()
    call = type("Call", (), {"function": function})()
    env = searchgym.make("SearchQA-v0", world_size="tiny")
    env.reset(seed=0)
    first = env.step(call)[0]
    copy = pickle.loads(pickle.dumps(env))
    assert copy.unwrapped.session.steps == 1 and "current" in first.lower()
    assert copy.step("<answer>x</answer>")[1:3] == env.step("<answer>x</answer>")[1:3]


@pytest.mark.parametrize(("action", "got"), [(5, "got an int."), (None, "got None."), (b"x", "got a bytes.")])
def test_a_text_env_names_what_it_got_in_plain_words(action, got):
    """Before: "got a int", "got a NoneType"."""
    env = searchgym.make("SearchQA-v0", world_size="tiny")
    env.reset(seed=0)
    assert f'a structured action must be a dict {{"name": ..., "arguments": {{...}}}} or an OpenAI tool call, {got}' \
        in env.step(action)[0]
