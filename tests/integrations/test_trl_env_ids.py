"""TRL: make_dataset and environment_factory take the same ids. Before: make_dataset("SearchQA-v0", "dev")
made rows (suite="SearchQA-v0") that no env played: environment_factory("SearchQA-v0") was "unknown suite
'SearchQA-v0'", and environment_factory("searchqa-text-v2") refused those rows in reset."""

from __future__ import annotations

import pytest

pytest.importorskip("trl", reason="TRL is an optional extra: pip install 'searchgym[trl]'")

import searchgym
from searchgym.integrations import trl as sg_trl


def test_rows_of_an_env_id_play_in_the_factory_of_that_id():
    rows = sg_trl.make_dataset("SearchQA-v0", "dev")
    row = next(r for r in rows if r["task_id"] == "lookup-00012")  # also a task id of searchqa-text-v2's dev split
    env_class = sg_trl.environment_factory("SearchQA-v0")
    assert env_class.source == "SearchQA-v0"
    env = env_class()
    env.reset(**row)
    env.web_search(query=row["question"])
    env.answer(answer=row["answers"][0])
    assert env.done and env.info["success"] and env.info["task_id"] == row["task_id"]

    direct = searchgym.make_task_env("SearchQA-v0", "dev", row["task_id"])  # the same task, the same return
    direct.reset(seed=0)
    expected = sum(direct.step(call)[1] for call in ({"name": "web_search", "arguments": {"query": row["question"]}},
                                                     {"name": "answer", "arguments": {"answer": row["answers"][0]}}))
    assert env.reward == pytest.approx(expected)


def test_a_row_of_a_suite_is_refused_by_the_env_ids_factory_with_the_factory_to_use():
    row = sg_trl.make_dataset("searchqa-text-v2", "dev")[0]
    env = sg_trl.environment_factory("searchgym/SearchQA-v0")()  # the prefix is the same env id
    with pytest.raises(ValueError, match=r"^the row is a task of 'searchqa-text-v2' and this env plays 'SearchQA-v0'"
                                         r".*environment_factory\('searchqa-text-v2'\)"):
        env.reset(**row)


def test_an_id_that_is_neither_is_one_line_naming_suites_and_env_ids():
    with pytest.raises(ValueError, match=r"^unknown suite or env id 'nope'; suites: .*searchqa-text-v2.*; env ids: "
                                         r".*SearchQA-v0"):
        sg_trl.environment_factory("nope")
