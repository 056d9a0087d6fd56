"""Multi-turn LLM rollouts: the token stream (prompt, generated turns, tool messages), budgets,
process signals per turn, groups, and team play with shared or separate policies."""

from __future__ import annotations

import numpy as np
import pytest
from searchgym.agents import compute_advantages
from searchgym.agents.llm_policy import Generation, LLMPolicy, load_model
from searchgym.agents.llm_rollout import (
    LLMActor,
    RolloutConfig,
    collect_llm_parallel,
    collect_llm_single,
    strip_tool_listing,
    unwrap_tool_response,
)
from searchgym.baselines import OracleAgent

import searchgym


@pytest.fixture(scope="module")
def tiny():
    model, tokenizer = load_model("random:tiny", seed=0)
    return LLMPolicy(model, tokenizer)


def text_envs(n: int, **kwargs):
    return [searchgym.make("SearchQA-v0", world_size="tiny", **kwargs).unwrapped for _ in range(n)]


class ScriptedPolicy(LLMPolicy):
    """Writes what a script says for each live env (in the rollout's order): the oracle's action
    for ``good`` envs (after a useless search first for ``detour`` envs), a wrong answer for the
    others. The text is real; its ids are its encoding."""

    DETOUR = '<tool_call>{"name": "web_search", "arguments": {"query": "zzzz qqqq"}}</tool_call>'

    def __init__(self, base: LLMPolicy, envs, good: set[int], detour: frozenset[int] = frozenset()) -> None:
        super().__init__(base.model, base.tokenizer)
        self.envs, self.good, self.detour, self.calls = envs, good, detour, 0

    def generate(self, prompts, max_new_tokens, seed, greedy=False):
        self.calls += 1
        live = [i for i, env in enumerate(self.envs) if env.session is not None and not env.session.done]
        assert len(live) == len(prompts)
        texts = [self.DETOUR if i in self.detour and self.envs[i].session.steps == 0
                 else OracleAgent().choose_action(self.envs[i].session) if i in self.good else "<answer>nobody at all</answer>"
                 for i in live]
        return [Generation(self.codec.encode(t), t, "stop") for t in texts]


def test_random_policy_episodes_are_token_streams_with_masked_tool_messages(tiny) -> None:
    envs = text_envs(4, max_steps=3)
    tasks = [t.id for t in envs[0].tasks.tasks("train")[:2]]
    config = RolloutConfig(max_new_tokens=10, max_episode_tokens=3000)
    groups, stats = collect_llm_single(envs, tiny, tasks, 2, np.random.default_rng(0), config)
    assert [len(g) for g in groups] == [2, 2] and [g[0].task_id for g in groups] == tasks
    assert stats.episodes == 4 and stats.env_steps == 12 and stats.successes == 0
    for episode in (ep for g in groups for ep in g):
        conv = episode.conversation
        assert len(conv.token_ids) == len(conv.loss_mask) == len(conv.turn_index) <= 3000
        assert [s.done for s in episode.steps] == [False, False, True]
        assert [s.reward for s in episode.steps] == pytest.approx([-0.06, -0.06, -0.06])  # step + format cost
        turns = np.array(conv.turn_index)
        mask = np.array(conv.loss_mask)
        assert np.array_equal(mask == 1, turns >= 0)  # exactly the generated tokens are scored
        assert sorted(set(turns[turns >= 0])) == [0, 1, 2]
        assert all(1 <= (turns == k).sum() <= 10 for k in range(3))  # per-turn cap
        assert [m["role"] for m in conv.messages] == ["system", "user", "assistant", "tool", "assistant", "tool",
                                                      "assistant"]
        assert conv.messages[3]["content"].startswith("Error: Could not read your action")
        tool_ids = tiny.codec.message_ids("tool", conv.messages[3]["content"])
        first_gap = int(np.flatnonzero(turns == 1)[0])
        assert conv.token_ids[first_gap - len(tool_ids):first_gap] == tool_ids  # the tool message, unscored
        assert not mask[first_gap - len(tool_ids):first_gap].any()


def test_tools_go_through_the_template_and_not_twice(tiny) -> None:
    (env,) = text_envs(1, max_steps=1)
    groups, _ = collect_llm_single([env], tiny, [env.tasks.tasks("train")[0].id], 1, np.random.default_rng(1),
                                   RolloutConfig(max_new_tokens=4))
    conv = groups[0][0].conversation
    assert [t["function"]["name"] for t in conv.tools] == list(env.session.allowed)
    assert "Tools: [" not in conv.messages[1]["content"] and "Question:" in conv.messages[1]["content"]
    prompt_text = tiny.codec.decode(conv.token_ids[: conv.prompt_length])
    assert prompt_text.count("knowledge_base") == 2  # the schema once, the accepted form once


def test_the_token_budget_ends_an_episode_with_the_no_answer_score(tiny) -> None:
    envs = text_envs(1, max_steps=10, reward={"no_answer_score": -0.5})
    task = envs[0].tasks.tasks("train")[0].id
    probe, _ = collect_llm_single(envs, tiny, [task], 1, np.random.default_rng(2), RolloutConfig(max_new_tokens=1,
                                                                                                 max_turns=1))
    budget = probe[0][0].conversation.prompt_length + 40
    groups, _ = collect_llm_single(envs, tiny, [task], 1, np.random.default_rng(2),
                                   RolloutConfig(max_new_tokens=16, max_episode_tokens=budget))
    episode = groups[0][0]
    assert episode.budget_truncated and len(episode.steps) < 10 and episode.steps[-1].done
    assert episode.steps[-1].reward == pytest.approx(-0.06 - 0.5)
    assert len(episode.conversation.token_ids) <= budget
    with pytest.raises(ValueError, match="opening prompt"):
        collect_llm_single(envs, tiny, [task], 1, np.random.default_rng(2), RolloutConfig(max_episode_tokens=50))


def test_oracle_turns_execute_tools_and_carry_the_judges_signals(tiny) -> None:
    envs = text_envs(4, max_steps=8)
    task = next(t for t in envs[0].tasks.tasks("train") if t.family == "bridge").id
    policy = ScriptedPolicy(tiny, envs, good={0, 1}, detour=frozenset({0}))
    groups, stats = collect_llm_single(envs, policy, [task], 4, np.random.default_rng(0), RolloutConfig())
    (group,) = groups
    assert [ep.success for ep in group] == [True, True, False, False] and stats.successes == 2
    good = group[0]
    assert good.steps[-1].reward > 0.9 and sum(s.signals["contribution"] for s in good.steps) >= 2
    tool_messages = [m["content"] for m in good.conversation.messages if m["role"] == "tool"]
    assert tool_messages and not any("<tool_response>" in m for m in tool_messages)
    assert tool_messages == [result for _, result in envs[0].session.transcript[:-1]]  # the tools' own output
    result = compute_advantages("cw_round", [[ep.trajectory() for ep in group]])
    advantages = good.token_advantages(result.advantages[0])
    turns = good.conversation.turn_index
    for k, a_k in enumerate(result.advantages[0]):
        assert {a for a, t in zip(advantages, turns) if t == k} == {float(a_k)}
    assert result.advantages[0][-1] > 0 and result.advantages[2][0] < 0
    contributions = [s.signals["contribution"] for s in good.steps]
    assert contributions[0] == 0.0 and good.steps[0].signals["new_gold"] == 0.0  # the detour found nothing
    assert result.advantages[0][0] < result.advantages[0][1]  # CW-GRPO: a wasted round gets less


def test_team_play_shared_and_separate_policies(tiny) -> None:
    envs = [searchgym.make("TeamSearch-v0", world_size="tiny", max_rounds=2) for _ in range(2)]
    task = envs[0].tasks.tasks("train")[0].id
    config = RolloutConfig(max_new_tokens=6)
    shared = {a: tiny for a in envs[0].possible_agents}
    groups, stats = collect_llm_parallel(envs, shared, [task], 2, np.random.default_rng(0), config)
    assert [(g[0].agent_id, len(g)) for g in groups] == [("lead", 2), ("searcher", 2), ("analyst", 2)]
    assert stats.episodes == 2 and stats.env_steps == 12
    lead = groups[0][0].conversation.messages[1]["content"]
    assert "You are lead" in lead and "<post>" in lead
    assert [t["function"]["name"] for t in groups[1][0].conversation.tools] == ["web_search", "knowledge_base"]
    counts = {}

    class Counting(LLMPolicy):
        def generate(self, prompts, *args, **kwargs):
            counts[id(self)] = counts.get(id(self), 0) + len(prompts)
            return super().generate(prompts, *args, **kwargs)

    separate = {a: Counting(tiny.model, tiny.tokenizer) for a in envs[0].possible_agents}
    groups, _ = collect_llm_parallel(envs, separate, [task], 2, np.random.default_rng(0), config, group_by="episode")
    assert len(groups) == 2 and all(len(g) == 3 for g in groups)
    assert sorted(counts.values()) == [4, 4, 4]  # each role's model wrote its own 2 x 2 turns


def test_helpers_and_the_harness_actor(tiny) -> None:
    assert unwrap_tool_response("<tool_response>\nabc\n</tool_response>") == "abc"
    assert unwrap_tool_response("Error: x") == "Error: x"
    assert strip_tool_listing('Intro\nTools: [{"a": 1}]\nQuestion: q') == "Intro\nQuestion: q"
    env = searchgym.make("SearchQA-v0", world_size="tiny", max_steps=2)
    actor = LLMActor(tiny, RolloutConfig(max_new_tokens=5))
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(actor.act(env, obs, info))
        done = terminated or truncated
    assert info["step"] == 2 and len(actor.episode.steps) == 2


def test_team_observations_with_notes_are_unwrapped_once():
    from searchgym.actions import format_tool_result

    wrapped = format_tool_result("web_search", "result", "hermes") + "\n\nNew notes on the blackboard:\n- [round 1] lead: x"
    assert unwrap_tool_response(wrapped) == "result\n\nNew notes on the blackboard:\n- [round 1] lead: x"
