"""The offline chat tokenizer: byte-level BPE trained on a searchgym world, with a Qwen/Hermes template.

The ``random:*`` models need a tokenizer that needs no download and that a model can write
tool calls with. A WordPiece vocabulary (MiniLM's) lower-cases text and spaces out punctuation,
so ``decode(encode('{"name": "web_search"}'))`` is no longer JSON. Byte-level BPE maps every
string to bytes and back, so ``decode(encode(x)) == x`` for any ``x``: every action text
round-trips, and a tool call a model writes with it parses.

It is trained with the ``tokenizers`` library, deterministically (a fixed text order and vocab
size, no normalizer), on the suites' world (seed 0, medium: its page titles and texts, its
questions) and the action formats (tool schemas, accepted forms). The result ships as package
data (``searchgym/assets/chat_tokenizer.json``); :func:`train_tokenizer` rebuilds it (a test
checks that the rebuild is byte-identical), ``python -m searchgym.agents.llm_tokenizer`` writes it.

The chat template is Qwen2.5's layout: ``tools`` as JSON lines inside ``<tools></tools>`` in the
system turn, an assistant's ``tool_calls`` as ``<tool_call>\\n{"name": ..., "arguments": ...}\\n</tool_call>``
(the text :func:`searchgym.actions.format_action` writes), ``tool`` messages as
``<tool_response>`` blocks in a user turn. The tokenizer gives ``input_ids`` and
``attention_mask`` only (no ``token_type_ids``, which Qwen2's ``generate`` refuses).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import searchgym
from searchgym.extras import MissingExtra, require_all_installed

ASSET = Path(searchgym.__file__).resolve().parent / "assets" / "chat_tokenizer.json"
VOCAB_SIZE = 6000
WORLD = (0, "medium")  # (seed, size) of the world whose corpus trains it: the suites' world
#: What loading the shipped tokenizer imports (both in the llm extra, which also brings torch).
LOAD_NEEDS = ("tokenizers", "transformers")
#: Special tokens (skipped by ``decode(skip_special_tokens=True)``): padding, and the chat turns.
SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
#: The action markup, one token each (not special: a decoded action keeps them).
MARKUP_TOKENS = ("<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<answer>", "</answer>",
                 "<think>", "</think>", "<post>", "</post>", "<wait/>", "<tools>", "</tools>")
TOOLS_PREAMBLE = ("# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are "
                  "provided with function signatures within <tools></tools> XML tags:\n<tools>")
CALLS_PREAMBLE = ("\n</tools>\n\nFor each function call, return a json object with function name and arguments "
                  "within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, "
                  "\"arguments\": <args-json-object>}\n</tool_call>")

CHAT_TEMPLATE = (
    "{%- set offset = 1 if messages and messages[0]['role'] == 'system' else 0 %}"
    "{%- if tools %}{{- '<|im_start|>system\\n' }}"
    "{%- if offset %}{{- messages[0]['content'] + '\\n\\n' }}{%- endif %}"
    "{{- " + json.dumps(TOOLS_PREAMBLE) + " }}"
    "{%- for tool in tools %}{{- '\\n' }}{{- tool | tojson }}{%- endfor %}"
    "{{- " + json.dumps(CALLS_PREAMBLE) + " + '<|im_end|>\\n' }}"
    "{%- elif offset %}{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}{%- endif %}"
    "{%- for message in messages[offset:] %}"
    "{%- set i = loop.index0 + offset %}"
    "{%- if message['role'] == 'assistant' %}"
    "{{- '<|im_start|>assistant\\n' + (message['content'] or '') }}"
    "{%- for call in (message['tool_calls'] or []) %}"
    "{%- set fn = call['function'] if call['function'] is defined else call %}"
    "{%- if message['content'] or not loop.first %}{{- '\\n' }}{%- endif %}"
    "{{- '<tool_call>\\n{\"name\": ' + (fn['name'] | tojson) + ', \"arguments\": ' }}"
    "{%- if fn['arguments'] is string %}{{- fn['arguments'] }}{%- else %}{{- fn['arguments'] | tojson }}{%- endif %}"
    "{{- '}\\n</tool_call>' }}"
    "{%- endfor %}"
    "{{- '<|im_end|>\\n' }}"
    "{%- elif message['role'] == 'tool' %}"
    "{%- if i == 0 or messages[i - 1]['role'] != 'tool' %}{{- '<|im_start|>user' }}{%- endif %}"
    "{{- '\\n<tool_response>\\n' + message['content'] + '\\n</tool_response>' }}"
    "{%- if i + 1 == messages | length or messages[i + 1]['role'] != 'tool' %}{{- '<|im_end|>\\n' }}{%- endif %}"
    "{%- else %}{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)


def training_texts(world: Any = None) -> list[str]:
    """What the tokenizer learns from, in a fixed order: the action formats first (every tool's
    schema, the accepted forms of both formats, the template's fixed text), then the world's
    pages and questions."""
    from searchgym.actions import accepted_forms
    from searchgym.tools import TOOL_NAMES, chat_tools
    from searchgym.world import shared_world

    world = world if world is not None else shared_world(*WORLD)
    schemas = chat_tools(TOOL_NAMES, team_actions=True, answer=True)
    texts = [json.dumps(s) for s in schemas]
    texts += [accepted_forms(f, TOOL_NAMES, allow_team_actions=True) for f in ("hermes", "tags")]
    texts += [TOOLS_PREAMBLE + CALLS_PREAMBLE]
    texts += [f"{page.title}\n{page.text}" for page in world.pages]
    texts += [task.question for task in world.tasks]
    return texts


#: the GPT-2 split with the space after a word instead of before it ("Feitio " + "Group")
TRAILING_SPACE_SPLIT = r"'s|'t|'re|'ve|'m|'ll|'d|\p{L}+ ?|\p{N}+ ?|[^\s\p{L}\p{N}]+ ?|\s+"


def train_tokenizer(world: Any = None, vocab_size: int = VOCAB_SIZE, trailing_space: bool = False) -> Any:
    """A ``tokenizers.Tokenizer`` trained on :func:`training_texts` (the same texts give the same file).

    ``trailing_space``: a word carries the space after it, not the one before (GPT-2's split), so a
    name has the same first token in running text (``made by: Feitio Group``) and in a JSON
    string (``"entity": "Feitio Group"``): what a small model copies into a call is the token it
    read. The tiny-LM recipe trains with it; the shipped tokenizer keeps GPT-2's split."""
    require_all_installed(("tokenizers",), "training the chat tokenizer", extra="llm")
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(TRAILING_SPACE_SPLIT), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]) if trailing_space else \
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[AddedToken(t, special=True, normalized=False) for t in SPECIAL_TOKENS])
    tokenizer.train_from_iterator(training_texts(world), trainer=trainer)
    tokenizer.add_tokens([AddedToken(t, special=False, normalized=False) for t in MARKUP_TOKENS])
    return tokenizer


def wrap(tokenizer: Any) -> Any:
    """A ``transformers`` fast tokenizer around a trained ``tokenizers.Tokenizer``, with the template."""
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>", padding_side="left",
        model_input_names=["input_ids", "attention_mask"], clean_up_tokenization_spaces=False,
        chat_template=CHAT_TEMPLATE, model_max_length=1 << 20)


def chat_tokenizer() -> Any:
    """The shipped tokenizer (``searchgym/assets/chat_tokenizer.json``) as a ``transformers`` tokenizer.
    Without the llm extra: one MissingExtra line naming both packages (before: a bare
    ModuleNotFoundError for tokenizers, then another for transformers)."""
    require_all_installed(LOAD_NEEDS, "the chat tokenizer", extra="llm")
    from tokenizers import Tokenizer

    if not ASSET.is_file():
        raise FileNotFoundError(f"the chat tokenizer {ASSET} is missing; reinstall searchgym, or rebuild it with "
                                "`python -m searchgym.agents.llm_tokenizer`")
    return wrap(Tokenizer.from_file(str(ASSET)))


def main(argv: list[str] | None = None) -> int:
    """Write the trained tokenizer to ``searchgym/assets/chat_tokenizer.json`` (or the path given).
    Before: the first argument was the path whatever it was, so ``--help`` wrote a file named --help."""
    import argparse

    from searchgym.fileio import atomic_write_text

    parser = argparse.ArgumentParser(prog="python -m searchgym.agents.llm_tokenizer",
                                     description="Train the byte-level BPE chat tokenizer again (seconds, "
                                                 "deterministic) and write it as one JSON file.")
    parser.add_argument("path", nargs="?", type=Path, default=ASSET,
                        help=f"where to write it (default: the shipped file, {ASSET.name} in searchgym/assets)")
    path = parser.parse_args(argv).path
    if path.is_dir():
        parser.error(f"{path} is a folder; give the path of the JSON file to write")
    try:  # before: a traceback ("FileNotFoundError ... .tmp") for a path that cannot be written
        atomic_write_text(path, train_tokenizer().to_str(pretty=False) + "\n")
    except MissingExtra as exc:
        parser.exit(2, f"{exc}\n")
    except OSError as exc:
        parser.error(f"cannot write {path}: {exc.strerror or exc}")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
