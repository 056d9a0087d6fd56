"""A model folder with a damaged or missing file is one line naming it, before any run folder.

Before: a cut ``tokenizer.json`` was "Unterminated string starting at: line 11 column 7" (no file
named), a cut ``model.safetensors`` or ``chat_template.jinja`` a traceback, an empty folder
transformers' five-line note on sentencepiece; each after ``checkpoint/`` and ``config.json`` of
the run were written."""

from __future__ import annotations

import json
import shutil

import pytest

pytest.importorskip("transformers")

from searchgym.agents.llm_policy import SIMPLE_CHAT_TEMPLATE
from searchgym.agents.model_source import check_model_source

from searchgym.cli import main


def _cut(name: str, keep: int):
    return lambda f: (f / name).write_bytes((f / name).read_bytes()[:keep])


def _wrong_type(f):
    config = json.loads((f / "config.json").read_text())
    (f / "config.json").write_text(json.dumps({**config, "hidden_size": "big"}))


def _config(f):
    return json.loads((f / "config.json").read_text())


def _edit_config(f, **changes):
    (f / "config.json").write_text(json.dumps({**_config(f), **changes}))


#: Qwen2-Instruct's template (ChatML), as released
QWEN2 = ("{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\\n"
         "You are a helpful assistant<|im_end|>\\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\\n' + "
         "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}"
         "{{ '<|im_start|>assistant\\n' }}{% endif %}")
DROPS_USER = QWEN2.replace("message['content']", "(message['content'] if message['role'] != 'user' else '')")
#: Llama 3's layout: each content trimmed, in headers of its own special tokens
TRIMS = ("{% for message in messages %}{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + "
         "message['content'] | trim + '<|eot_id|>' }}{% endfor %}{% if add_generation_prompt %}"
         "{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}")

DAMAGE = [
    ("empty", lambda f: [p.unlink() for p in f.iterdir()], "the folder has no config.json"),
    ("no weights", lambda f: (f / "model.safetensors").unlink(), "the folder has no weights"),
    ("no tokenizer", lambda f: (f / "tokenizer.json").unlink(), "the folder has no tokenizer"),
    ("cut tokenizer", _cut("tokenizer.json", 200), "tokenizer.json: is not valid JSON"),
    ("cut tokenizer config", _cut("tokenizer_config.json", 20), "tokenizer_config.json: is not valid JSON"),
    ("cut weights", _cut("model.safetensors", 1000), "model.safetensors: is not a whole safetensors file"),
    ("config a list", lambda f: (f / "config.json").write_text("[1]"), "config.json: holds a list"),
    ("field of the wrong type", _wrong_type, "config.json: cannot be read by transformers"),
    ("bad template", lambda f: (f / "chat_template.jinja").write_text("{% bad"), "chat_template.jinja: is not a Jinja"),
    # before: safetensors' "incomplete metadata" and transformers' "size mismatch" tracebacks inside the run
    ("weights cut after the header", lambda f: _cut("model.safetensors", (f / "model.safetensors").stat().st_size // 2)(f),
     "model.safetensors: is cut short: its tensors end at byte"),
    ("a config of another width", lambda f: _edit_config(f, hidden_size=2 * _config(f)["hidden_size"]),
     "model.safetensors: holds "),
    ("a config of another vocabulary", lambda f: _edit_config(f, vocab_size=100), "model.safetensors: holds "),
    ("a template that raises", lambda f: (f / "chat_template.jinja").write_text("{{ raise_exception('boom') }}"),
     "chat_template.jinja: holds a chat template that fails to render a conversation (TemplateError: boom)"),
    # before: it rendered, so it passed; the run's model never saw a question
    ("a template that drops the user's content", lambda f: (f / "chat_template.jinja").write_text(DROPS_USER),
     ("chat_template.jinja: holds a chat template that leaves out the user message's content (rendered system, "
      "user and assistant messages; 'probe of the user message' not in the text); use a chat template that")),
]


@pytest.mark.parametrize(("damage", "said"), [(d, s) for _, d, s in DAMAGE], ids=[n for n, _, _ in DAMAGE])
def test_each_damage_is_one_line_naming_the_file_before_any_run_folder(good_model, tmp_path, capsys, damage, said):
    folder = tmp_path / "model"
    shutil.copytree(good_model, folder)
    damage(folder)
    code = main(["train", "--policy", "llm", "--model", str(folder), "--env", "SearchQA-v0", "--budget", "1",
                 "--world-size", "tiny", "--test-size", "1", "--out", str(tmp_path / "run"), "--no-progress"])
    [line] = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and said in line and not (tmp_path / "run").exists(), line


def test_an_undamaged_folder_passes(good_model):
    check_model_source(str(good_model))


@pytest.mark.parametrize("template", [QWEN2, SIMPLE_CHAT_TEMPLATE, TRIMS], ids=["qwen2", "chatml", "trimmed"])
def test_a_template_that_keeps_each_content_passes(good_model, tmp_path, template):
    """Qwen2's, a plain ChatML one and one that trims each content and adds its own markers (the
    shipped tokenizer's Qwen2.5 layout is ``good_model``'s own)."""
    folder = tmp_path / "model"
    shutil.copytree(good_model, folder)
    (folder / "chat_template.jinja").write_text(template)
    check_model_source(str(folder))
