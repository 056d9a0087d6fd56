"""Two errors a multi-agent user meets, worded to be read. Before: ``reset(options={"task_id":
"nope"})`` said only "no task with id 'nope' in this world"; a numeric wrapper's missing action printed
its message inside quotes (``AgentActionError`` is a KeyError, whose str is the repr of its argument)."""

from __future__ import annotations

import pytest

import searchgym
from searchgym.wrappers.parallel import AgentActionError


def test_an_unknown_task_id_names_what_a_task_id_is():
    env = searchgym.make("SearchQA-Candidates-v0", world_size="tiny")
    first = env.unwrapped.tasks.tasks("train")[0].id
    with pytest.raises(ValueError, match="no task with id 'nope' in this world; a task id is one of") as caught:
        env.reset(options={"task_id": "nope"})
    assert first in str(caught.value) and "tasks.tasks(split)" in str(caught.value)


def test_a_missing_agent_action_is_printed_without_quotes():
    env = searchgym.make("GroupSearch-Numeric-v0", world_size="tiny", group_size=2)
    env.reset(seed=0)
    with pytest.raises(AgentActionError) as caught:
        env.step({env.agents[0]: 0})
    assert str(caught.value).startswith("no action for live agent"), str(caught.value)


def test_a_shallow_copy_of_a_numeric_multi_agent_env_has_its_own_episode():
    import copy

    env = searchgym.make("GroupSearch-Numeric-v0", world_size="tiny", group_size=2)
    env.reset(seed=0)
    task = env.env.task.id
    clone = copy.copy(env)
    clone.reset(seed=1)
    assert clone.env is not env.env and env.env.task.id == task  # before: the copy's reset switched it
    observations, *_ = env.step(dict.fromkeys(env.agents, 0))
    assert set(observations) <= set(env.possible_agents)


@pytest.mark.parametrize("families", [[], ()])
def test_an_empty_family_list_says_none_means_every_family(families):
    # before: "no tasks in split 'train' for families=[] ...; check families and difficulty"
    wanted = (r"families=(\[\]|\(\)) is empty, which is not accepted: None \(the default\) "
              r"means every family; or name some of: aggregate, ambiguous, bridge")
    with pytest.raises(ValueError, match=wanted):
        searchgym.make("SearchQA-v0", world_size="tiny", families=families)
