"""Where an LLM run's episodes end, and what compare checks before an LLM run's folder.

Before: the harness's ``LLMActor`` lowered the env's own limit in the middle of an episode (a team's
``max_rounds`` stayed lowered after the evaluation); ``compare`` with an LLM method found
``group_by='role'`` without a team, or vLLM problems, in the trainer after the run's folder was made;
a single agent out of tokens sent "(out of tokens)" each step until ``max_turns`` in the harness, and
a group member out of tokens sent ``<wait/>`` (a format error there) each round of a rollout.
"""

from __future__ import annotations

import numpy as np
import pytest
from harness_helpers import refused_line

pytest.importorskip("transformers")

from searchgym.agents.llm_policy import LLMPolicy, load_model
from searchgym.agents.llm_rollout import (
    LLMActor,
    RolloutConfig,
    collect_llm_parallel,
    collect_llm_single,
    open_conversation,
)

import searchgym
from searchgym.cli import main
from searchgym.harness.evaluate import evaluate_suite, evaluation_env, play_parallel, play_single
from searchgym.suites import Suite, make_env, register_suite, tasks

LIMITS = {"SearchQA-v0": "max_steps", "TeamSearch-v0": "max_rounds", "GroupSearch-v0": "max_steps"}
QUIET = {"no_answer_score": -1.0, "step_cost": 0.0, "format_cost": 0.0, "invalid_cost": 0.0}
LLM = "l=searchgym.harness.llm_method:harness_method"


@pytest.fixture(scope="module")
def tiny():
    model, tokenizer = load_model("random:tiny", seed=0)
    return LLMPolicy(model, tokenizer)


def _suite(env_id: str) -> Suite:
    return register_suite(Suite(f"test-llm-ends-{env_id.lower()}", 0, env_id,
                                {"action_mode": "text", LIMITS[env_id]: 4}, world_size="tiny", dev_size=2,
                                test_size=3, description="tests: where an LLM run's episodes end"))


def _limit(env) -> int:
    base = env.unwrapped
    return base.max_rounds if hasattr(base, "max_rounds") else base.config.max_steps


# --------------------------------------------------------------------------- 1. the env ends at max_turns
@pytest.mark.parametrize("env_id", list(LIMITS))
def test_the_harness_builds_an_llm_runs_env_with_its_turn_limit(tiny, env_id):
    suite = _suite(env_id)
    actor = LLMActor(tiny, RolloutConfig(max_new_tokens=4, max_turns=2))
    assert _limit(evaluation_env(suite, "test", actor)) == 2
    assert _limit(evaluation_env(suite, "test", LLMActor(tiny, RolloutConfig(max_turns=9)))) == 4  # the suite's
    assert _limit(evaluation_env(suite, "test")) == 4  # any other actor: the suite's env
    predictions = evaluate_suite(suite, actor, "test")
    assert [p.steps for p in predictions if p.answer is None] == [2] * len(predictions)


def test_the_actor_leaves_the_env_it_plays_as_it_was(tiny):
    """Its own limit is the env's, not the actor's: an env built otherwise plays to its own limit."""
    actor = LLMActor(tiny, RolloutConfig(max_new_tokens=4, max_turns=2))
    team = make_env(_suite("TeamSearch-v0"), "test")
    task = tasks(_suite("TeamSearch-v0"), "test")[0].id
    assert play_parallel(team, actor, task, 0, "team")[1] == 4
    assert team.unwrapped.max_rounds == 4  # before: 2 after the evaluation (restored at a next episode only)
    single = make_env(_suite("SearchQA-v0"), "test")
    assert play_single(single, actor, tasks(_suite("SearchQA-v0"), "test")[0].id, 0)[1] == 4
    assert single.unwrapped.session.config.max_steps == 4


def test_a_turn_limit_that_is_no_count_is_one_line():
    class Odd:
        turn_limit = "3"

    with pytest.raises(ValueError, match=r"^an actor's turn_limit is a positive number of turns \(or None\), got '3'$"):
        evaluation_env(_suite("SearchQA-v0"), "test", Odd())


# --------------------------------------------------------------------------- 2. compare checks before any folder
@pytest.mark.parametrize(("env_id", "options", "said"), [
    ("SearchQA-v0", "group_by=role", "SearchQA-v0 has no team"),
    ("GroupSearch-v0", "method=grpo_role", "group_by='role' (grpo_role) compares each agent"),
    ("SearchQA-v0", "generation_backend=vllm", "vLLM loads a model from a path or hub id"),
    # before: compare made the folder, and the trainer found it when the first episode opened
    ("SearchQA-v0", "max_episode_tokens=50", "max_episode_tokens 50 leaves no room for a turn: the opening prompt"),
])
def test_compare_refuses_an_llm_run_that_cannot_start_before_any_folder(tmp_path, capsys, env_id, options, said):
    line = refused_line(capsys, ["compare", "--suite", _suite(env_id).id, "--methods",
                                 f"{LLM}[model=random:tiny;{options}]", "--budget", "1", "--no-progress"],
                        tmp_path / "cmp")
    assert line.startswith("searchgym compare: error: method 'l': ") and said in line, line


def test_compare_names_vllm_not_installed_before_any_folder(tmp_path, capsys, monkeypatch, good_model):
    monkeypatch.setattr("searchgym.agents.llm_run_checks.vllm_available", lambda: False)
    out = tmp_path / "cmp"
    code = main(["compare", "--suite", _suite("SearchQA-v0").id, "--methods",
                 f"{LLM}[model={good_model};generation_backend=vllm]", "--budget", "1", "--out", str(out), "--no-progress"])
    [line] = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and "needs vLLM: pip install" in line and not out.exists(), line


def test_a_team_llm_run_passes_compares_checks(tmp_path):
    from searchgym.harness.compare import Comparison
    from searchgym.harness.preflight import check_llm_runs

    check_llm_runs(Comparison(suite=_suite("TeamSearch-v0"), methods=f"{LLM}[model=random:tiny;method=grpo_role]",
                              seeds=[0], budget=1, out=tmp_path / "cmp"))


# --------------------------------------------------------------------------- 3. out of tokens
def _prompt_tokens(policy, env, task_id: str) -> int:
    obs, _ = env.reset(seed=0, options={"task_id": task_id})
    base = env.unwrapped
    sessions, texts = ([base.session], [obs]) if hasattr(base, "session") else (
        [base.sessions[a] for a in obs], [obs[a]["text"] for a in obs])
    return max(open_conversation(policy, s, t, RolloutConfig(max_episode_tokens=100_000)).prompt_length
               for s, t in zip(sessions, texts))


def test_a_single_agent_out_of_tokens_ends_its_episode_at_once(tiny):
    suite = _suite("SearchQA-v0")
    task = tasks(suite, "test")[0].id
    env = make_env(suite, "test")
    config = RolloutConfig(max_new_tokens=8, max_turns=4, max_episode_tokens=_prompt_tokens(tiny, env, task) + 20,
                           min_turn_tokens=4)
    actor = LLMActor(tiny, config)
    answer, steps, _ = play_single(evaluation_env(suite, "test", actor), actor, task, 0)
    assert actor.episode.muted and (answer, steps) == (None, len(actor.episode.steps)) and steps < 4  # before: 4
    [prediction] = evaluate_suite(suite, actor, "test", limit=1)
    assert (prediction.answer, prediction.steps, prediction.success) == (None, steps, False)
    groups, _ = collect_llm_single([env.unwrapped], tiny, [task], 1, np.random.default_rng(0), config, greedy=True)
    assert len(groups[0][0].steps) == steps and groups[0][0].budget_truncated  # as the rollout's episode


@pytest.mark.parametrize("env_id", ["GroupSearch-v0", "TeamSearch-v0"])
def test_a_group_member_out_of_tokens_ends_at_once_and_a_team_member_waits(tiny, env_id):
    envs = [searchgym.make(env_id, world_size="tiny", action_mode="text", reward=QUIET) for _ in range(2)]
    task = envs[0].unwrapped.tasks.tasks("train")[0].id
    room = _prompt_tokens(tiny, envs[0], task) + 20
    config = RolloutConfig(max_new_tokens=8, max_turns=3, max_episode_tokens=room, min_turn_tokens=4)
    groups, stats = collect_llm_parallel(envs, dict.fromkeys(envs[0].possible_agents, tiny), [task], 2,
                                         np.random.default_rng(0), config)
    episodes = [ep for group in groups for ep in group]
    muted = [ep for ep in episodes if ep.muted]
    assert muted and all(ep.done and ep.budget_truncated and not ep.success for ep in muted)
    if env_id == "GroupSearch-v0":  # an episode of its own: it ends at once, paying no_answer_score
        assert all(len(ep.steps) < 3 and ep.steps[-1].done and ep.steps[-1].reward == -1.0 for ep in muted)
        assert all(not any(s.done for s in ep.steps[:-1]) for ep in muted)
    else:  # a team member waits for its team's rounds
        assert all(len(ep.steps) == 3 for ep in episodes)
    assert stats.env_steps == sum(len(ep.steps) for ep in episodes)


def test_a_ray_comparison_leaves_the_llm_checks_to_its_workers(tmp_path):
    """The model's cache and vLLM are the Ray workers', not the driver's: compare refused a model the
    driver had not cached ("neither a folder here nor a Hugging Face id in the local cache")."""
    from types import SimpleNamespace

    from searchgym.harness.methods import parse_methods
    from searchgym.harness.preflight import check_llm_runs

    methods = parse_methods(f"{LLM}[model=Some/Model-not-cached-here]")
    check_llm_runs(SimpleNamespace(suite=_suite("SearchQA-v0"), methods=methods, options={}, executor="ray"))
    with pytest.raises(ValueError, match="neither a folder here nor a Hugging Face id in the local cache"):
        check_llm_runs(SimpleNamespace(suite=_suite("SearchQA-v0"), methods=methods, options={}, executor="local"))
