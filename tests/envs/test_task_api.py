"""The public task API: records with the env's own chat prompt and tools, answers never on test,
one-task envs, and the Hugging Face dataset (with the error that names its install line)."""

from __future__ import annotations

import json
import sys

import pytest

import searchgym
from searchgym.suites import Suite
from searchgym.task_api import HF_INSTALL, MEMBER_SYSTEM_PROMPT, SYSTEM_PROMPT

TINY = Suite("tiny-text-api", 1, "SearchQA-v0", {"max_steps": 6, "tool_format": "hermes"}, world_size="tiny",
             dev_size=4, test_size=3)
TINY_TEAM = Suite("tiny-team-api", 1, "TeamSearch-v0", {"max_rounds": 6}, world_size="tiny", dev_size=2, test_size=2)


def test_records_hold_the_envs_chat_prompt_tools_and_dev_answers():
    records = searchgym.tasks(TINY, "dev")
    gold = TINY.tasks("dev")
    assert [r.task_id for r in records] == [t.id for t in gold]
    env = searchgym.make_task_env(TINY, "dev", records[1].task_id)
    env.reset(seed=5)
    session = env.unwrapped.session
    record = records[1]
    assert record.question == gold[1].question and record.family == gold[1].family and record.split == "dev"
    assert record.messages == [{"role": "system", "content": SYSTEM_PROMPT},
                               {"role": "user", "content": session.prompt(chat=True)}]
    assert record.messages[1]["content"].endswith(f"Question: {gold[1].question}")
    assert [t["function"]["name"] for t in record.tools] == [*session.allowed, "answer"]
    assert record.answers == list(gold[1].answers) and record.agents is None
    assert searchgym.tasks(TINY, "dev", system_prompt="")[1].messages == record.messages[1:]


def test_the_test_split_never_gives_answers():
    records = searchgym.tasks(TINY, "test")
    assert len(records) == 3 and all(r.answers is None for r in records)
    assert all(r.to_dict()["answers"] is None for r in records)
    assert searchgym.tasks(TINY, "train")[0].answers  # train gives them


def test_env_ids_and_team_suites():
    by_env = searchgym.tasks("SearchQA-v0", "test")  # every test task of the env's default world
    assert len(by_env) == len(searchgym.make("SearchQA-v0").unwrapped.tasks.tasks("test"))
    team = searchgym.tasks(TINY_TEAM, "dev")
    record = team[0]
    assert list(record.agents) == ["lead", "searcher", "analyst"]
    assert record.messages == record.agents["lead"]["messages"]  # the lead answers
    lead_tools = [t["function"]["name"] for t in record.agents["lead"]["tools"]]
    searcher_tools = [t["function"]["name"] for t in record.agents["searcher"]["tools"]]
    assert lead_tools[-3:] == ["answer", "post_note", "wait"]
    assert "answer" not in searcher_tools and searcher_tools[-2:] == ["post_note", "wait"]
    assert record.agents["searcher"]["messages"][1]["content"].startswith("You are searcher in a team")


def test_bad_ids_and_splits_are_clear_errors():
    with pytest.raises(ValueError, match=r"unknown suite or env id 'nope'; suites: .*searchqa-text-v2.*env ids: "):
        searchgym.tasks("nope")
    with pytest.raises(ValueError, match=r"unknown split 'val'; accepted: train, dev, test"):
        searchgym.tasks(TINY, "val")
    with pytest.raises(ValueError, match=r"suite quick-v0 was retired"):
        searchgym.tasks("quick-v0", "dev")
    with pytest.raises(TypeError, match=r"give a suite id, a Suite or an env id, got list"):
        searchgym.tasks(["searchqa-text-v2"], "dev")


def test_make_task_env_always_plays_its_task():
    task_id = TINY.tasks("dev")[2].id
    env = searchgym.make_task_env(TINY, "dev", task_id)
    assert {env.reset(seed=s)[1]["task_id"] for s in range(4)} == {task_id}
    assert env.reset(options={"task_id": task_id})[1]["task_id"] == task_id
    with pytest.raises(ValueError, match=r"always plays task .*may not choose another task or split"):
        env.reset(options={"split": "test"})
    with pytest.raises(ValueError, match=r"task 'lookup-99999' is not in the dev split of .*\(4 tasks: "):
        searchgym.make_task_env(TINY, "dev", "lookup-99999")
    test_id = TINY.tasks("test")[0].id
    with pytest.raises(ValueError, match="is not in the dev split"):  # a task of another split
        searchgym.make_task_env(TINY, "dev", test_id)
    team_id = TINY_TEAM.tasks("dev")[1].id
    team = searchgym.make_task_env(TINY_TEAM, "dev", team_id)
    observations, infos = team.reset(seed=1)
    assert set(observations) == {"lead", "searcher", "analyst"}
    assert {info["task_id"] for info in infos.values()} == {team_id}


def test_hf_dataset_rows():
    dataset = searchgym.to_hf_dataset(TINY, "dev")
    records = searchgym.tasks(TINY, "dev")
    assert dataset.num_rows == 4
    assert dataset.column_names == ["task_id", "question", "family", "split", "prompt", "tools", "answers"]
    row = dataset[0]
    assert row["task_id"] == records[0].task_id and row["prompt"] == records[0].messages
    assert json.loads(row["tools"]) == records[0].tools and row["answers"] == records[0].answers
    assert searchgym.to_hf_dataset(TINY, "test")["answers"] == [None, None, None]


def test_hf_dataset_without_datasets_names_the_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)  # an import of it now fails
    with pytest.raises(ImportError) as caught:
        searchgym.to_hf_dataset(TINY, "dev")
    assert str(caught.value) == f"to_hf_dataset needs the Hugging Face `datasets` package: {HF_INSTALL}"


@pytest.mark.parametrize("prompt", [5, ["be brief"], b"be brief", {"role": "system"}])
def test_a_system_prompt_that_is_no_string_is_refused(prompt):
    """Before: tasks(..., system_prompt=5) gave a system message whose content was the int 5."""
    with pytest.raises(TypeError, match=r"system_prompt must be a string \('' or None: no system message\), got "):
        searchgym.tasks(TINY, "dev", system_prompt=prompt)
    with pytest.raises(TypeError, match="system_prompt must be a string"):
        searchgym.to_hf_dataset(TINY, "dev", system_prompt=prompt)
    assert searchgym.tasks(TINY, "dev", system_prompt=None)[0].messages[0]["role"] == "user"


@pytest.mark.parametrize("env_id", ["GroupSearch-Numeric-v0", "TeamSearch-Numeric-v0"])
def test_the_numeric_multi_agent_ids_give_records_and_one_task_envs(env_id):
    """Before: AttributeError "'NumericParallel' object has no attribute 'tasks'" (the wrapper is its
    own ``unwrapped``), for two of the ids that `searchgym list` prints."""
    records = searchgym.tasks(env_id, "dev")
    candidates = searchgym.tasks(env_id.replace("Numeric", "Candidates"), "dev")
    assert [r.task_id for r in records] == [r.task_id for r in candidates] and records[0].agents
    env = searchgym.make_task_env(env_id, "dev", records[1].task_id)
    observations, infos = env.reset(seed=2)
    assert {info["task_id"] for info in infos.values()} == {records[1].task_id}
    assert all(observation.dtype.name == "float32" for observation in observations.values())


def test_a_one_task_env_is_remade_from_its_spec_and_passes_check_env():
    """Before: gymnasium.make(env.spec) and check_env(env) (which remakes it to check rendering)
    failed: "_FixedTask wrapper does not inherit from `gymnasium.utils.RecordConstructorArgs`"."""
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    task_id = TINY.tasks("dev")[1].id
    env = searchgym.make_task_env(TINY, "dev", task_id)
    twin = gymnasium.make(env.spec)
    assert {twin.reset(seed=s)[1]["task_id"] for s in range(3)} == {task_id}
    assert twin.unwrapped.config.max_steps == env.unwrapped.config.max_steps == 6
    with pytest.warns(UserWarning, match="different from the unwrapped version"):
        check_env(env)


@pytest.mark.parametrize("suite", [TINY, TINY_TEAM])
def test_a_one_task_env_pickles_and_plays_the_same_task(suite):
    # before: the multi-agent one was a class defined inside a function: "Can't pickle local object"
    import pickle

    task_id = searchgym.tasks(suite, "dev")[1].task_id
    env = searchgym.make_task_env(suite, "dev", task_id)
    twin = pickle.loads(pickle.dumps(env))
    assert twin.task_id == task_id
    assert str(twin.reset(seed=4)) == str(env.reset(seed=4))
    with pytest.raises(ValueError, match="this env always plays task"):
        twin.reset(seed=4, options={"task_id": "another"})


def test_a_team_member_that_cannot_answer_is_not_told_to_finish_by_answering():
    """Before: every role's system message said "finish by calling answer", a tool a searcher is not given."""
    record = searchgym.tasks("team-text-v2", "dev")[0]
    for agent in record.agents.values():
        answers = "answer" in [t["function"]["name"] for t in agent["tools"]]
        assert agent["messages"][0]["content"] == (SYSTEM_PROMPT if answers else MEMBER_SYSTEM_PROMPT)
    assert sorted(a["messages"][0]["content"] == SYSTEM_PROMPT for a in record.agents.values()) == [False, False, True]
    custom = searchgym.tasks("team-text-v2", "dev", system_prompt="Be brief.")[0]
    assert {a["messages"][0]["content"] for a in custom.agents.values()} == {"Be brief."}
