"""The LLM policy's pieces: offline tokenizer and template, incremental chat codec, generation
(stop strings, caps, eos, seeded sampling that leaves the global RNG alone)."""

from __future__ import annotations

import pytest
import torch
from searchgym.agents.llm_policy import (
    ChatCodec,
    LLMPolicy,
    SamplingConfig,
    StopOnStrings,
    load_model,
    offline_tokenizer,
    random_model,
    trim_at_stop,
)

TOOLS = [{"type": "function", "function": {"name": "web_search", "parameters": {"type": "object"}}}]


@pytest.fixture(scope="module")
def tokenizer():
    return offline_tokenizer()


def biased_policy(tokenizer, token: str, temperature: float = 0.0) -> LLMPolicy:
    """A tiny model whose next token is always ``token`` (zero LM-head weights, a bias on it)."""
    model = random_model("tiny", tokenizer)
    head = torch.nn.Linear(model.config.hidden_size, model.config.vocab_size, bias=True)
    with torch.no_grad():
        head.weight.zero_()
        head.bias.zero_()
        head.bias[tokenizer.convert_tokens_to_ids(token)] = 50.0
    model.lm_head = head
    return LLMPolicy(model.eval(), tokenizer, SamplingConfig(temperature=temperature))


def test_template_renders_every_role_and_the_tools(tokenizer) -> None:
    codec = ChatCodec(tokenizer)
    messages = [{"role": "system", "content": "S"}, {"role": "user", "content": "Q"},
                {"role": "assistant", "content": "A"}, {"role": "tool", "content": "R"}]
    assert codec.render(messages, TOOLS) == (
        "<|im_start|>system\nS\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
        '{"type": "function", "function": {"name": "web_search", "parameters": {"type": "object"}}}\n</tools>\n\n'
        "For each function call, return a json object with function name and arguments within "
        "<tool_call></tool_call> XML tags:\n<tool_call>\n"
        '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n'
        "<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\nA<|im_end|>\n"
        "<|im_start|>user\n<tool_response>\nR\n</tool_response><|im_end|>\n<|im_start|>assistant\n")
    assert codec.render(messages[1:2], None) == "<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n"


def test_incremental_stream_equals_the_whole_conversation_rendered(tokenizer) -> None:
    codec = ChatCodec(tokenizer)
    opening = [{"role": "system", "content": "S"}, {"role": "user", "content": "Question: who founded Vexa?"}]
    turn = '<tool_call>{"name": "web_search", "arguments": {"query": "Vexa"}}</tool_call>'
    generated = codec.encode(turn)
    stream = codec.prompt_ids(opening, TOOLS) + generated + codec.close_turn_ids(generated)
    stream += codec.message_ids("tool", "Vexa was founded by Mara Quell.")
    whole = opening + [{"role": "assistant", "content": turn}, {"role": "tool", "content": "Vexa was founded by Mara Quell."}]
    assert stream == codec.prompt_ids(whole, TOOLS)
    eos = tokenizer.eos_token_id
    assert codec.close_turn_ids(generated + [eos]) == codec.turn_end_ids[1:]  # the model closed its own turn


def test_stop_criterion_is_per_row_on_the_decoded_tail(tokenizer) -> None:
    prompt = tokenizer.encode("hello", add_special_tokens=False)
    rows = [prompt + tokenizer.encode("a b </tool_call>", add_special_tokens=False),
            prompt + tokenizer.encode("a b c d", add_special_tokens=False),
            prompt + tokenizer.encode("x </answer>", add_special_tokens=False)]
    width = max(map(len, rows))
    ids = torch.tensor([r + [0] * (width - len(r)) for r in rows])
    stop = StopOnStrings(tokenizer, ("</tool_call>", "</answer>"), len(prompt))
    assert stop(ids, None).tolist() == [True, False, True]
    stop_late = StopOnStrings(tokenizer, ("</tool_call>",), len(prompt) + 20)  # only new tokens count
    assert stop_late(ids, None).tolist() == [False, False, False]


def test_trim_at_stop_keeps_the_shortest_prefix(tokenizer) -> None:
    codec = ChatCodec(tokenizer)
    ids = codec.encode("<answer> x </answer> trailing words")
    kept, text, stopped = trim_at_stop(codec, ids, ("</answer>",))
    close = ids.index(tokenizer.convert_tokens_to_ids("</answer>"))  # one token: the markup is in the vocab
    assert stopped and text == "<answer> x </answer>" and kept == ids[:close + 1] and close + 1 < len(ids)


def test_generation_stops_at_a_stop_string(tokenizer) -> None:
    policy = biased_policy(tokenizer, "</tool_call>")
    prompt = policy.codec.prompt_ids([{"role": "user", "content": "q"}])
    (gen,) = policy.generate([prompt], 20, seed=0)
    assert gen.finish == "stop" and gen.text == "</tool_call>" and len(gen.token_ids) == 1


def test_generation_caps_each_row_and_stops_at_eos(tokenizer) -> None:
    word = biased_policy(tokenizer, "Ġthe")  # byte-level BPE: "Ġ" is the space before a word
    short = word.codec.prompt_ids([{"role": "user", "content": "q"}])
    long = word.codec.prompt_ids([{"role": "user", "content": "a much longer question than the other"}])
    gens = word.generate([long, short], [5, 3], seed=0)  # left padding: different prompt lengths
    assert [len(g.token_ids) for g in gens] == [5, 3] and all(g.finish == "length" for g in gens)
    assert gens[0].text == " the the the the the"
    eos = biased_policy(tokenizer, "<|im_end|>")
    (gen,) = eos.generate([short], 9, seed=0)
    assert gen.finish == "eos" and gen.token_ids == [tokenizer.eos_token_id]
    with pytest.raises(ValueError, match="max_new_tokens"):
        word.generate([short], [0], seed=0)


def test_sampling_is_seeded_and_leaves_the_global_rng_alone(tokenizer) -> None:
    model, tok = load_model("random:tiny", seed=3)
    policy = LLMPolicy(model, tok)
    prompt = policy.codec.prompt_ids([{"role": "user", "content": "q"}])
    state = torch.get_rng_state()
    a = policy.generate([prompt, prompt], 12, seed=7)
    b = policy.generate([prompt, prompt], 12, seed=7)
    c = policy.generate([prompt, prompt], 12, seed=8)
    assert torch.equal(state, torch.get_rng_state())
    assert [g.token_ids for g in a] == [g.token_ids for g in b]
    assert [g.token_ids for g in a] != [g.token_ids for g in c]
    assert a[0].token_ids != a[1].token_ids  # rows sample independently
    vocab = len(tok)
    assert all(t < vocab for g in a + c for t in g.token_ids)


def test_random_presets_and_bad_names(tokenizer) -> None:
    model = random_model("tiny", tokenizer)
    assert model.config.vocab_size == len(tokenizer) and model.config.num_hidden_layers == 2
    with pytest.raises(ValueError, match="unknown model preset"):
        random_model("huge", tokenizer)
    with pytest.raises(ValueError, match="backend"):
        LLMPolicy(model, tokenizer, backend="tgi")


def test_a_hub_id_that_is_not_on_disk_is_a_clear_error_not_a_download(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path))  # an empty cache
    monkeypatch.delenv("SEARCHGYM_ALLOW_DOWNLOAD", raising=False)
    with pytest.raises(ValueError, match=r"is not on disk .*hf download someone/not-a-model"):
        load_model("someone/not-a-model")
    with pytest.raises(ValueError, match="is not on disk"):
        load_model(str(tmp_path / "no-such-folder"))
