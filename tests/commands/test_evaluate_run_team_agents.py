"""`searchgym evaluate --agent run` on another team suite: a run that trained one policy per agent is
refused up front, in one line, when the suite's team has an agent it trained no policy for.

Before: a candidate run played every unknown agent with its first agent's policy, silently, and an
LLM run failed mid-evaluation with a bare "'lead'" (a KeyError), after its folder was made; an LLM
run of one shared model failed the same way, though its model can play any agent."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from searchgym.cli import main
from searchgym.harness.methods import MethodRef, resolve_method
from searchgym.harness.run_team_agents import check_team_agents
from searchgym.harness.runner import RunSpec, execute_run
from searchgym.suites import Suite, register_suite

GENERALISTS = register_suite(Suite("test-run-team-generalists-v0", 0, "TeamSearch-Generalists-Candidates-v0",
                                   {"team_size": 2, "max_rounds": 3}, world_size="tiny", dev_size=2, test_size=2,
                                   description="tests: two generalists"))
THREE = register_suite(Suite("test-run-team-three-v0", 0, "TeamSearch-Generalists-Candidates-v0",
                             {"team_size": 3, "max_rounds": 3}, world_size="tiny", dev_size=2, test_size=2,
                             description="tests: three generalists"))
ROLES = register_suite(Suite("test-run-team-roles-v0", 0, "TeamSearch-Candidates-v0", {"max_rounds": 3},
                             world_size="tiny", dev_size=2, test_size=2, description="tests: the roles team"))
TEXT_GENERALISTS = register_suite(Suite("test-run-team-text-generalists-v0", 0, "TeamSearch-Generalists-v0",
                                        {"team_size": 2, "max_rounds": 2}, world_size="tiny", dev_size=1,
                                        test_size=1, description="tests: two generalists, text"))
TEXT_ROLES = register_suite(Suite("test-run-team-text-roles-v0", 0, "TeamSearch-v0", {"max_rounds": 2},
                                  world_size="tiny", dev_size=1, test_size=1, description="tests: the roles team, text"))
SMALL = {"tasks_per_iteration": 1, "group_size": 2, "eval_tasks": 1}
LLM = MethodRef("llm", "searchgym.harness.llm_method:harness_method")
LLM_SMALL = {"model": "random:tiny", "group_size": 1, "tasks_per_iteration": 1, "max_turns": 2, "eval_tasks": 0,
             "max_new_tokens": 8}


def evaluate(path, suite, out):
    return main(["evaluate", "--agent", "run", "--agent-option", f"path={path}", "--suite", suite.id, "--out",
                 str(out), "--no-progress"])


def candidate_run(tmp_path, mode):
    execute_run(RunSpec(GENERALISTS, resolve_method("grpo"), 0, 16, tmp_path / mode,
                        options={**SMALL, "population_mode": mode}))
    return tmp_path / mode / "runs" / "grpo" / "seed0"


def llm_run(tmp_path, mode):
    pytest.importorskip("transformers")
    execute_run(RunSpec(TEXT_GENERALISTS, LLM, 0, 1, tmp_path / mode, options={**LLM_SMALL, "team_mode": mode}))
    return tmp_path / mode / "runs" / "llm" / "seed0"


def refused_in_one_line(capsys, out, option):
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    line = err[0]
    assert "trained one policy per agent" in line and "generalist_0, generalist_1" in line, line
    assert "lead, searcher, analyst" in line and f"{option} 'shared'" in line and "accepted:" in line, line
    assert not out.exists()  # before any episode, and before the evaluation's folder
    return line


@pytest.mark.parametrize("mode", ["separate", "shared_trunk"])
def test_a_candidate_run_of_a_policy_per_agent_is_refused_on_another_team(mode, tmp_path, capsys):
    run = candidate_run(tmp_path, mode)
    capsys.readouterr()
    assert evaluate(run, ROLES, tmp_path / "ev") == 2
    line = refused_in_one_line(capsys, tmp_path / "ev", "population_mode")
    assert f"population_mode {mode!r}" in line


def test_a_candidate_run_of_a_shared_policy_plays_another_team(tmp_path):
    assert evaluate(candidate_run(tmp_path, "shared"), ROLES, tmp_path / "ev") == 0
    assert (tmp_path / "ev" / "predictions.jsonl").exists()


def test_an_llm_run_of_a_model_per_agent_is_refused_on_another_team(tmp_path, capsys):
    run = llm_run(tmp_path, "separate")
    capsys.readouterr()
    assert evaluate(run, TEXT_ROLES, tmp_path / "ev") == 2
    assert "team_mode 'separate'" in refused_in_one_line(capsys, tmp_path / "ev", "team_mode")


def test_an_llm_run_of_one_shared_model_plays_another_team(tmp_path):
    assert evaluate(llm_run(tmp_path, "shared"), TEXT_ROLES, tmp_path / "ev") == 0
    assert (tmp_path / "ev" / "predictions.jsonl").exists()


def test_a_team_with_some_of_the_runs_agents_is_played_and_one_with_another_is_not(tmp_path):
    """Each agent of a smaller team of the same agents plays the policy it trained; a larger team
    has an agent the run trained none for."""
    separate = SimpleNamespace(population_mode="separate")
    check_team_agents(tmp_path, THREE, GENERALISTS, separate)  # generalist_0, generalist_1 of three
    with pytest.raises(ValueError, match=r"\(generalist_2: no policy of the run\)"):
        check_team_agents(tmp_path, GENERALISTS, THREE, separate)
    check_team_agents(tmp_path, GENERALISTS, ROLES, SimpleNamespace(population_mode="shared"))
    check_team_agents(tmp_path, GENERALISTS, ROLES, SimpleNamespace(team_mode="shared"))
