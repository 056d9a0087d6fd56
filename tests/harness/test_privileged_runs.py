"""Runs that read what no agent sees are marked privileged from their recorded config: the oracle as
a method, the oracle evaluated as an agent, and an agent that talked to the scripted endpoint."""

from __future__ import annotations

import pytest
from harness_helpers import TINY_QA

from searchgym.cli import main
from searchgym.fileio import read_json
from searchgym.harness.methods import AGENT_PROVIDERS
from searchgym.harness.privileged_runs import run_reads_private_state
from searchgym.harness.report import RunRecord, privileged_labels
from searchgym.leaderboard_html import is_privileged

PRIVILEGED = [
    {"privileged": True},
    {"method_path": "searchgym.harness.methods:oracle_method"},
    {"method_path": "searchgym.harness.methods:agent_method", "options": {"agent": "oracle"}},
    {"options": {"agent": "Oracle"}},
    {"options": {"agent": AGENT_PROVIDERS["oracle"]}},
    {"options": {"agent": "openai", "agent_options": {"model": "scripted-oracle"}}},
    {"options": {"agent": "openai", "agent_options": {"model": "searchgym-scripted"}}},
]
NOT_PRIVILEGED = [
    {"privileged": False, "method_path": "searchgym.harness.methods:random_method"},
    {"options": {"agent": "reader"}},
    {"options": {"agent": "openai", "agent_options": {"model": "gpt-4o-mini"}}},
    {"options": "oracle"},  # a damaged options field is no agent
    {"options": {"agent": ["oracle"]}},
]


@pytest.mark.parametrize("config", PRIVILEGED)
def test_runs_that_read_private_state_are_privileged_in_tables_and_on_the_board(config):
    assert run_reads_private_state(config)
    assert privileged_labels([RunRecord("x", 0, config, {}, [])]) == {"x"}
    assert is_privileged({"method": {"name": "x"}, "run": config})


@pytest.mark.parametrize("config", NOT_PRIVILEGED)
def test_agents_that_read_only_the_conversation_are_not(config):
    assert not run_reads_private_state(config)
    assert privileged_labels([RunRecord("x", 0, config, {}, [])]) == set()
    assert not is_privileged({"method": {"name": "x"}, "run": config})


def test_evaluate_of_the_oracle_records_and_prints_it_as_privileged(tmp_path, capsys):
    """Before: the run's config said ``privileged: false`` (the generic agent method's flag), so the
    report, its plots and evaluate's own table showed the oracle as an agent."""
    out = tmp_path / "ev"
    assert main(["evaluate", "--suite", TINY_QA.id, "--agent", "oracle", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "oracle (privileged) on test-tiny-qa-v0 (test split, 12 tasks)" in printed
    assert "oracle (privileged) reads the task's gold evidence chain" in printed
    assert read_json(out / "config.json")["privileged"] is True


def test_evaluate_of_the_reader_is_not_marked(tmp_path, capsys):
    out = tmp_path / "ev"
    assert main(["evaluate", "--suite", TINY_QA.id, "--agent", "reader", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "reader on test-tiny-qa-v0" in printed and "privileged" not in printed
    assert read_json(out / "config.json")["privileged"] is False


SERVED = {"options": {"agent": "openai", "agent_options": {"model": "oracle"}}}


@pytest.mark.parametrize("behaviours", [["oracle"], ["stall"], ["unnamed"], ["random", "oracle"]])
def test_a_run_the_scripted_oracle_played_is_privileged_whatever_its_model_name(behaviours):
    """By its result.json's endpoint report (tables, load_results) or the run block that copied it (the board)."""
    endpoint = {"replies": 3, "unparseable": 0, "scripted": behaviours}
    assert not run_reads_private_state(SERVED)
    assert run_reads_private_state(SERVED, endpoint)
    assert privileged_labels([RunRecord("x", 0, SERVED, {"endpoint": endpoint}, [])]) == {"x"}
    assert is_privileged({"method": {"name": "x"}, "run": {**SERVED, "endpoint": {"scripted": behaviours}}})


@pytest.mark.parametrize("endpoint", [{"scripted": ["random"]}, {"scripted": ["reader", "prose"]}, {"scripted": []},
                                      {"scripted": "oracle"}, {"replies": 3}, "oracle", None])
def test_a_run_other_servers_played_is_not(endpoint):
    """The scripted random and reader baselines read only the conversation; a damaged record is no mark."""
    assert not run_reads_private_state(SERVED, endpoint)
    assert privileged_labels([RunRecord("x", 0, SERVED, {"endpoint": endpoint}, [])]) == set()
    assert not is_privileged({"method": {"name": "x"}, "run": {**SERVED, "endpoint": endpoint}})


def test_the_model_name_still_marks_a_run_that_recorded_no_replies():
    """Runs made before replies were recorded: the name is all they have. Where the replies named a
    behaviour, they decide (``scripted-random`` played by the random baseline is not marked)."""
    named = {"options": {"agent": "openai", "agent_options": {"model": "scripted-random"}}}
    assert run_reads_private_state(named) and run_reads_private_state(named, {"replies": 3})
    assert not run_reads_private_state(named, {"scripted": ["random"]})
