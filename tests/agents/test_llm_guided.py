"""Guided decoding: admissible replies come from what the agent saw, the reader's replies are among
them token for token, every guided reply parses, and the trainer's log-probs are the sampler's."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import searchgym
from searchgym.agents.llm_guided import GuidedReply, TokenAutomaton, build_automaton
from searchgym.agents.llm_kv_generate import KVGenerator
from searchgym.agents.llm_losses import first_scored_position, make_token_batch, token_log_probs
from searchgym.agents.llm_policy import ChatCodec, LLMPolicy, SamplingConfig, load_model
from searchgym.agents.llm_reply_grammar import admissible_replies, figures, name_spans, visible_texts
from searchgym.agents.llm_rollout import (
    RolloutConfig,
    collect_llm_parallel,
    collect_llm_single,
    open_conversation,
    tool_schemas,
    unwrap_tool_response,
)
from searchgym.baselines.reader_text import ReaderTextAgent


@pytest.fixture(scope="module")
def tiny():
    return load_model("random:tiny")


@pytest.fixture(scope="module")
def trailing_space_tokenizer():
    from searchgym.agents.llm_policy import prepare_tokenizer
    from searchgym.agents.llm_tokenizer import train_tokenizer, wrap

    return prepare_tokenizer(wrap(train_tokenizer(trailing_space=True)))


def test_the_trailing_space_tokenizer_keeps_a_copied_names_tokens(trailing_space_tokenizer) -> None:
    from searchgym.agents.llm_guided import list_joint
    from searchgym.agents.llm_policy import offline_tokenizer

    tokenizer = trailing_space_tokenizer
    encode = lambda text: tokenizer.encode(text, add_special_tokens=False)
    read, written = encode("- made by: Feitio Group\n"), encode('{"entity": "Feitio Group"}')
    name = encode("Feitio Group")
    assert any(read[k:k + len(name)] == name for k in range(len(read)))
    assert any(written[k:k + len(name)] == name for k in range(len(written)))
    for text in ('<tool_call>\n{"name": "web_search", "arguments": {"query": "Zoë (x)"}}\n</tool_call>', "a  b\n\tc"):
        assert tokenizer.decode(encode(text)) == text
    assert list_joint(tokenizer) == ("; ", "") and list_joint(offline_tokenizer()) == (";", " ")


def text_env():
    return searchgym.make("SearchQA-v0", world_size="tiny", action_mode="text", tool_format="hermes").unwrapped


def test_names_and_figures_are_read_from_text() -> None:
    spans = name_spans("Hystu Cepri (architect) wrote Baechaes: A Memoir. The population of Nakar is 81,000.")
    for name in ("Hystu Cepri", "Hystu Cepri (architect)", "Baechaes: A Memoir", "A Memoir", "Nakar"):
        assert name in spans
    assert "is" not in spans and "Cepri wrote" not in spans
    assert "University of Jeisydu" in name_spans("the University of Jeisydu is old")
    assert "Myjos 120" in name_spans("Myjos 120 is a phone")
    assert figures("born in 1993, population 3,465,000; the Glaemuth X18 of 2.5 kg") == ["1993", "3465000", "2.5"]


def test_only_the_question_and_tool_messages_are_visible() -> None:
    messages = [{"role": "system", "content": "You are Secret Agent."},
                {"role": "user", "content": "Accepted: Example Name\nQuestion: Who founded Vexa Corp?"},
                {"role": "assistant", "content": "<tool_call>Made Up</tool_call>"},
                {"role": "tool", "content": "Vexa Corp (company)\n- founder: Mara Quell"}]
    assert visible_texts(messages) == ["Who founded Vexa Corp?", "Vexa Corp (company)\n- founder: Mara Quell"]
    tools = [{"type": "function", "function": {"name": "knowledge_base", "parameters": {
        "properties": {"entity": {"type": "string"}}, "required": ["entity"]}}}]
    before = admissible_replies(messages[:2], tools)
    after = admissible_replies(messages, tools)
    assert "Mara Quell" not in before.answers and "Mara Quell" in after.answers
    assert not any("Secret Agent" in c or "Example Name" in c or "Made Up" in c for c in after.calls)
    assert '<tool_call>\n{"name": "knowledge_base", "arguments": {"entity": "Vexa Corp"}}\n</tool_call>' in after.calls


@pytest.mark.parametrize("which", ["shipped", "trailing-space"])
def test_every_reader_reply_is_admissible_token_for_token(tiny, trailing_space_tokenizer, which: str) -> None:
    """The reader (what SFT imitates) only writes replies the guide allows, in their canonical ids."""
    tokenizer = tiny[1] if which == "shipped" else trailing_space_tokenizer
    codec = ChatCodec(tokenizer)
    env = text_env()
    tasks = env.tasks.tasks("train")
    picks = [t.id for t in tasks if t.family == "list"][:3] + [t.id for t in tasks if t.family != "list"][:12]
    turns = 0
    for task_id in picks:
        agent = ReaderTextAgent()
        obs, _ = env.reset(seed=0, options={"task_id": task_id})
        conversation = open_conversation(SimpleNamespace(codec=codec), env.session, obs, RolloutConfig())
        done = False
        while not done:
            text = agent.act(env, obs)
            automaton = build_automaton(admissible_replies(conversation.messages, tool_schemas(env.session)), tokenizer)
            assert automaton.accepts(codec.encode(text)), (task_id, text)
            turns += 1
            conversation.add_turn(SimpleNamespace(token_ids=codec.encode(text), text=text), 0)
            obs, _, terminated, truncated, _ = env.step(text)
            done = terminated or truncated
            if not done:
                conversation.add_message("tool", unwrap_tool_response(obs))
    assert turns > len(picks)


def test_the_automaton_accepts_whole_replies_only() -> None:
    automaton = TokenAutomaton()
    automaton.final[automaton.insert([1, 2, 3])] = True
    automaton.final[automaton.insert([1, 4])] = True
    assert automaton.accepts([1, 2, 3]) and automaton.accepts([1, 4])
    assert not automaton.accepts([1, 2]) and not automaton.accepts([1, 5])
    walk = GuidedReply(automaton)
    assert sorted(walk.allowed()) == [1]
    assert walk.forced() == [1]
    walk.advance(1)
    assert sorted(walk.allowed()) == [2, 4] and walk.forced() == []
    walk.advance(2)
    assert walk.forced() == [3]
    with pytest.raises(ValueError, match="not admissible"):
        walk.advance(9)


def guided_rollouts(model, tokenizer, seed: int = 0, temperature: float = 1.0, tasks: int = 2):
    envs = [text_env() for _ in range(2 * tasks)]
    task_ids = [t.id for t in envs[0].tasks.tasks("train")[:tasks]]
    policy = LLMPolicy(model, tokenizer, SamplingConfig(temperature=temperature), backend="kv")
    groups, _ = collect_llm_single(envs, policy, task_ids, 2, np.random.default_rng(seed),
                                   RolloutConfig(max_turns=3, max_new_tokens=96, guided=True))
    return envs, [ep for g in groups for ep in g], policy


def test_every_guided_reply_of_a_random_model_parses(tiny) -> None:
    model, tokenizer = tiny
    envs, episodes, _ = guided_rollouts(model, tokenizer, tasks=3)
    replies = sum(len(ep.steps) for ep in episodes)
    assert replies >= len(episodes) and sum(env.session.format_errors for env in envs) == 0
    for ep in episodes:
        assert ep.conversation.allowed and all(ep.conversation.loss_mask[i] for i in ep.conversation.allowed)


@pytest.mark.parametrize("temperature", [1.0, 0.7])
def test_the_trainers_log_probs_are_the_samplers(tiny, temperature: float) -> None:
    """The PPO ratio's denominator: the masked (renormalised) distribution that drew each token."""
    model, tokenizer = tiny
    _, episodes, _ = guided_rollouts(model, tokenizer, seed=1, temperature=temperature)
    convs = [ep.conversation for ep in episodes]
    batch = make_token_batch([c.token_ids for c in convs], [c.loss_mask for c in convs],
                             [[0.0] * len(c.token_ids) for c in convs], list(range(len(convs))),
                             tokenizer.pad_token_id, [c.allowed for c in convs])
    first = first_scored_position(batch.loss_mask)
    logp, _ = token_log_probs(model, batch.input_ids, batch.attention_mask, first, temperature=temperature,
                              allowed=batch.allowed)
    unguided, _ = token_log_probs(model, batch.input_ids, batch.attention_mask, first, temperature=temperature)
    trained, sampled, forced = [], [], []
    for i, c in enumerate(convs):
        assert sorted(c.sampled_log_probs) == sorted(c.allowed) == [j for j, m in enumerate(c.loss_mask) if m]
        for j, ids in sorted(c.allowed.items()):
            trained.append(float(logp[i, j - 1].detach()))
            sampled.append(c.sampled_log_probs[j])
            forced.append(len(ids) == 1)
            if len(ids) == 1:
                assert float(unguided[i, j - 1].detach()) < 0  # unguided, a forced token was not certain
    assert np.allclose(trained, sampled, atol=1e-4)
    assert any(forced) and not all(forced)
    assert all(t == 0.0 for t, f in zip(trained, forced) if f)


def test_forced_tokens_are_fed_in_one_pass(tiny) -> None:
    model, tokenizer = tiny
    automaton = TokenAutomaton()
    automaton.final[automaton.insert([10, 11, 12, 13, 14])] = True
    automaton.final[automaton.insert([10, 11, 20, 21, 22, 23])] = True
    generator = KVGenerator(model, tokenizer, stop=())
    calls: list[int] = []
    forward = generator._forward
    generator._forward = lambda chunks: (calls.append(max(len(c) for c in chunks)), forward(chunks))[1]
    news = generator.generate([[5, 6, 7]], [32], seed=0, guides=[GuidedReply(automaton)])
    assert automaton.accepts(news[0])
    # the prompt (its shared prefix, then the rest), then [10, 11] at once; the choice and the tokens it
    # forces end the reply, so they are not fed
    assert len(calls) == 3
    assert generator.last_allowed[0][:3] == [(10,), (11,), (12, 20)]


def test_guided_decoding_refuses_what_it_cannot_guide(tiny) -> None:
    model, tokenizer = tiny
    automaton = TokenAutomaton()
    automaton.final[automaton.insert([10])] = True
    with pytest.raises(ValueError, match="'kv' generation backend"):
        LLMPolicy(model, tokenizer, backend="transformers").generate([[1, 2]], 4, 0, guides=[GuidedReply(automaton)])
    team = searchgym.make("TeamSearch-v0", world_size="tiny", action_mode="text")
    policy = LLMPolicy(model, tokenizer, backend="kv")
    with pytest.raises(ValueError, match="<post> and <wait/>"):
        collect_llm_parallel([team], {a: policy for a in team.possible_agents}, ["x"], 1, np.random.default_rng(0),
                             RolloutConfig(guided=True))


def test_the_fast_call_renderer_writes_what_format_action_writes() -> None:
    from searchgym.action_types import Action
    from searchgym.actions import format_action
    from searchgym.agents.llm_reply_grammar import _call_renderer

    for value in ("Hystu Cepri (architect)", "Which Baechaes: A Memoir do you mean?", "48480 + 3790", 'say "x"',
                  "Zoë", "a\\b"):
        for tool_format in ("hermes", "tags"):
            try:
                expected = format_action(Action.call("web_search", query=value), tool_format)
            except ValueError:
                continue
            assert _call_renderer("web_search", "query", tool_format)(value) == expected


def test_a_call_already_made_is_not_offered_again() -> None:
    tools = [{"type": "function", "function": {"name": "knowledge_base", "parameters": {
        "properties": {"entity": {"type": "string"}}, "required": ["entity"]}}}]
    call = '<tool_call>\n{"name": "knowledge_base", "arguments": {"entity": "Vexa Corp"}}\n</tool_call>'
    messages = [{"role": "user", "content": "Question: Who founded Vexa Corp?"}]
    assert call in admissible_replies(messages, tools).calls
    messages += [{"role": "assistant", "content": call}, {"role": "tool", "content": "Vexa Corp (company)"}]
    assert call not in admissible_replies(messages, tools).calls
