"""The offline chat tokenizer: rebuilt byte-identically, every action text round-trips, the
template renders tool calls that the action parser reads back, and random:* models use it."""

from __future__ import annotations

import json

import pytest
import torch
from searchgym.agents.llm_policy import load_model
from searchgym.agents.llm_tokenizer import ASSET, MARKUP_TOKENS, chat_tokenizer, main

from searchgym.action_types import Action
from searchgym.actions import format_action, parse_action
from searchgym.endpoint.scripted_endpoint import record_oracle
from searchgym.suites import get_suite
from searchgym.text_suites import text_suite_ids
from searchgym.tools import TOOL_NAMES, chat_tools


@pytest.fixture(scope="module")
def tokenizer():
    return chat_tokenizer()


def test_the_shipped_file_is_what_the_rebuild_command_writes(tmp_path, capsys):
    assert main([str(tmp_path / "rebuilt.json")]) == 0
    assert (tmp_path / "rebuilt.json").read_text() == ASSET.read_text()
    assert capsys.readouterr().out == f"wrote {tmp_path / 'rebuilt.json'}\n"


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["--out", "x.json"], ["a.json", "b.json"], ["."]])
def test_the_rebuild_command_reads_its_arguments_and_writes_no_file_it_was_not_given(tmp_path, monkeypatch, argv):
    """Before: its first argument was the path whatever it was: ``--help`` wrote a file named --help."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == (0 if argv[0] in ("--help", "-h") else 2)
    assert list(tmp_path.iterdir()) == []


def round_trips(tokenizer, text: str) -> bool:
    return tokenizer.decode(tokenizer.encode(text, add_special_tokens=False), skip_special_tokens=False) == text


@pytest.mark.parametrize("suite_id", text_suite_ids())
def test_every_oracle_action_of_every_text_suite_round_trips(tokenizer, suite_id):
    script = record_oracle(get_suite(suite_id), splits=("test", "dev"))
    actions = [a for acts in script.values() for a in acts]
    assert len(actions) > 100 and any("<tool_call>" in a for a in actions)
    assert [a for a in actions if not round_trips(tokenizer, a)] == []


def test_odd_texts_round_trip(tokenizer):
    texts = ['<tool_call>\n{"name": "web_search", "arguments": {"query": "Zoë  Ångström\\t東京 \\u00e9"}}\n</tool_call>',
             "  leading and trailing spaces  ", "<answer>12,345.5</answer>\n\n", "<|im_end|><tool_call></answer>",
             "emoji \U0001F600 and \x00 control", "".join(MARKUP_TOKENS), "CamelCase snake_case kebab-case 3.14e-5"]
    assert [t for t in texts if not round_trips(tokenizer, t)] == []
    ids = tokenizer.encode("<tool_call></tool_call>", add_special_tokens=False)
    assert tokenizer.convert_ids_to_tokens(ids) == ["<tool_call>", "</tool_call>"]  # one token each


def test_no_token_type_ids(tokenizer):
    encoded = tokenizer("<answer>x</answer>")
    assert sorted(encoded) == ["attention_mask", "input_ids"]
    assert tokenizer.model_input_names == ["input_ids", "attention_mask"]


@pytest.mark.parametrize("arguments", ['{"query": "Vexa Corp"}', {"query": "Vexa Corp"}])
def test_template_renders_a_tool_call_that_parses_back(tokenizer, arguments):
    action = Action.call("web_search", query="Vexa Corp")
    messages = [{"role": "user", "content": "Who founded Vexa Corp?"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_0", "type": "function", "function": {"name": "web_search", "arguments": arguments}}]}]
    text = tokenizer.apply_chat_template(messages, tools=chat_tools(["web_search"], answer=True), tokenize=False)
    turn = text[text.rindex("<|im_start|>assistant\n") + len("<|im_start|>assistant\n"):]
    assert turn == format_action(action, "hermes") + "<|im_end|>\n"  # the text the env's own formatter writes
    assert parse_action(turn, "hermes", TOOL_NAMES) == action
    assert text.count('{"type": "function", "function": {"name": "answer"') == 1  # the tools, rendered
    assert round_trips(tokenizer, text)


def test_two_calls_and_tool_replies_are_grouped_as_qwen_does(tokenizer):
    calls = [{"function": {"name": "web_search", "arguments": {"query": "a"}}},
             {"function": {"name": "calculator", "arguments": {"expression": "1 + 2"}}}]
    messages = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "Two calls.", "tool_calls": calls},
                {"role": "tool", "content": "r1"}, {"role": "tool", "content": "r2"}]
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert text == (
        "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\nTwo calls.\n<tool_call>\n"
        '{"name": "web_search", "arguments": {"query": "a"}}\n</tool_call>\n<tool_call>\n'
        '{"name": "calculator", "arguments": {"expression": "1 + 2"}}\n</tool_call><|im_end|>\n'
        "<|im_start|>user\n<tool_response>\nr1\n</tool_response>\n<tool_response>\nr2\n</tool_response><|im_end|>\n"
        "<|im_start|>assistant\n")


def test_random_tiny_uses_it_and_generates_from_its_outputs():
    model, tokenizer = load_model("random:tiny", seed=0)
    assert tokenizer.get_vocab() == chat_tokenizer().get_vocab()
    assert model.config.vocab_size == len(tokenizer) and tokenizer.eos_token == "<|im_end|>"
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": "q"}], tools=chat_tools(answer=True),
                                           add_generation_prompt=True, tokenize=False)
    inputs = tokenizer(prompt, return_tensors="pt", add_special_tokens=False)  # as TRL and Qwen2 callers do
    with torch.no_grad():
        out = model.generate(**inputs, max_new_tokens=4, do_sample=False, pad_token_id=tokenizer.pad_token_id)
    assert out.shape == (1, inputs["input_ids"].shape[1] + 4)
    assert json.loads(json.dumps(tokenizer.decode(out[0]))).startswith(prompt)
