"""A local model folder's files, checked before any run folder is made; each damaged file is one
line naming it.

Why: a folder handed over with a cut ``tokenizer.json`` or ``tokenizer_config.json`` was
"Unterminated string starting at: line 11 column 7" (no file named), a cut ``model.safetensors`` or
``chat_template.jinja`` a traceback from safetensors or jinja2, an empty folder transformers'
five-line note on sentencepiece, and a ``config.json`` holding a list "argument after ** must be a
mapping"; each after the run folder was written (the corrected command was then refused as "a
different run"). Nothing here reads the weights or runs the folder's code.
"""

from __future__ import annotations

import json
import struct
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from searchgym.damaged import DamagedFile, open_regular, read_json_checked

from .model_weights import check_tensor_names

#: JSON files transformers reads from a model folder (when present)
JSON_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
              "generation_config.json", "model.safetensors.index.json", "pytorch_model.bin.index.json")
WEIGHTS = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json")
TOKENIZERS = ("tokenizer.json", "tokenizer.model", "vocab.json", "vocab.txt", "spiece.model",
              "sentencepiece.bpe.model")
#: A safetensors header is JSON of a few kB per tensor; more is no safetensors file
MAX_HEADER = 100 << 20
FIX = "replace the model folder with an undamaged copy"


def check_model_folder(folder: Path, option: str = "--model", auto_class: str = "causal_lm") -> None:
    """Raise ``ValueError`` (one line) unless ``folder`` holds a readable config, weights and tokenizer;
    its weights are checked against the model ``auto_class`` loads from it (``"causal_lm"``: an LLM
    policy's; ``"model"``: the hf encoder's base model, which an encoder such as BERT has without an LM head)."""
    given = f"{option} {str(folder)!r}"
    if not (folder / "config.json").exists():
        raise ValueError(f"{given}: the folder has no config.json; give the model's folder (config.json, "
                         "weights, tokenizer), as save_pretrained writes it")
    for name in JSON_FILES:
        if (folder / name).exists():
            read_json_checked(folder / name, expect=dict, remedy=FIX)
    _check_config(folder)
    shards = sorted(folder.glob("*.safetensors"))
    if not shards and not any((folder / name).exists() for name in WEIGHTS):
        raise ValueError(f"{given}: the folder has no weights (model.safetensors or pytorch_model.bin)")
    headers = {shard: _check_safetensors(shard) for shard in shards}
    _check_shapes(folder, headers, auto_class)
    if not any((folder / name).exists() for name in TOKENIZERS):
        raise ValueError(f"{given}: the folder has no tokenizer (one of {', '.join(TOKENIZERS)})")
    if (folder / "chat_template.jinja").exists():
        _check_template(folder / "chat_template.jinja")
    _check_rendering(folder)


def _check_safetensors(path: Path) -> dict:
    """Its header (an 8-byte length, then that much JSON) is whole, and the tensors it lists end within
    the file (a copy cut after the header was a safetensors traceback inside the run); the tensors are
    not read. Returns the header."""
    with open_regular(path, remedy=FIX) as handle:
        size = path.stat().st_size
        head = handle.read(8)
        length = struct.unpack("<Q", head)[0] if len(head) == 8 else -1
        if not 0 < length <= min(size - 8, MAX_HEADER):
            raise DamagedFile(path, "is not a whole safetensors file (its header is cut or damaged)", FIX)
        read = handle.read(length)
    try:
        header = json.loads(read)
    except ValueError:  # UnicodeDecodeError and JSONDecodeError too
        header = None
    if not isinstance(header, dict):
        raise DamagedFile(path, "is not a whole safetensors file (its header is not JSON)", FIX)
    ends = [entry["data_offsets"][1] for entry in header.values() if isinstance(entry, dict)
            and isinstance(entry.get("data_offsets"), list) and len(entry["data_offsets"]) == 2]
    data = size - 8 - length
    if not all(isinstance(end, int) for end in ends) or max(ends, default=0) > data:
        raise DamagedFile(path, f"is cut short: its tensors end at byte {max(ends, default=0)} of a data section of "
                          f"{data} bytes", FIX)
    return header


def _check_shapes(folder: Path, headers: dict[Path, dict], auto_class: str = "causal_lm") -> None:
    """Each stored tensor has the shape config.json's model gives it (the model is built on the meta
    device: no memory, no weights). Why: a hidden_size or vocab_size edited in config.json was a
    "size mismatch" traceback from transformers after the run folder was made."""
    try:
        import torch
        from transformers import AutoConfig, AutoModel, AutoModelForCausalLM
    except ImportError:
        return
    from .pretrained import from_pretrained

    try:
        config = from_pretrained(AutoConfig, str(folder), local_files_only=True)
        with torch.device("meta"), _quiet_transformers():  # its notes on the config are not this check's
            model = (AutoModel if auto_class == "model" else AutoModelForCausalLM).from_config(config)
        expected = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    except Exception:  # noqa: BLE001 - an architecture built otherwise: its own loader checks it
        return
    if headers:
        check_tensor_names(folder, headers, model)
    for shard, header in headers.items():
        for name, entry in header.items():
            shape = tuple(entry.get("shape", ())) if isinstance(entry, dict) else None
            if name in expected and shape != expected[name]:
                raise DamagedFile(shard, f"holds {name} of shape {list(shape or ())} where config.json's model has "
                                  f"{list(expected[name])} (a config.json of another model?)", FIX)


@contextmanager
def _quiet_transformers() -> Iterator[None]:
    from transformers.utils import logging as hf_logging

    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(level)


def _check_template(path: Path) -> None:
    import jinja2

    try:
        jinja2.Environment().parse(path.read_text(encoding="utf-8"))
    except (jinja2.TemplateSyntaxError, UnicodeDecodeError) as exc:
        raise DamagedFile(path, f"is not a Jinja chat template ({str(exc).splitlines()[0]})", FIX) from None


#: The roles of the env's chat format, each with a content a template keeps as it is (plain words:
#: no whitespace at either end to trim, nothing to escape or to read as reasoning).
PROBE = (("system", "probe of the system message"), ("user", "probe of the user message"),
         ("assistant", "probe of the assistant message"))
TEMPLATE_FIX = "use a chat template that writes each message's content (as the model's own release does)"
#: The most Python lines, and seconds, rendering the probe may take: a release's template takes 1,000 to
#: 2,500 lines (Qwen2.5's, Qwen3's) and reaches neither; a loop in a loop of 100,000 each reaches them.
RENDER_LINES, RENDER_SECONDS = 1_000_000, 2.0


class _RenderBudgetSpent(BaseException):
    """Rendering ran past its budget (a BaseException: no ``except Exception`` on the way keeps it running)."""


@contextmanager
def _render_budget() -> Iterator[None]:
    """Raise :class:`_RenderBudgetSpent` in the code run inside when it executes more than
    ``RENDER_LINES`` lines or runs past ``RENDER_SECONDS``, counted with a trace function (this thread
    only; the one there before is put back). Why: jinja2's sandbox caps each ``range`` at 100,000 but
    not loops in loops, so ``{% for i in range(100000) %}{% for j in range(100000) %}`` kept the
    preflight busy without end."""
    deadline, lines = time.monotonic() + RENDER_SECONDS, 0

    def local(frame, event, arg):  # sys.settrace's signature
        nonlocal lines
        if event == "line":
            lines += 1
            if lines > RENDER_LINES or (lines % 4096 == 0 and time.monotonic() > deadline):
                raise _RenderBudgetSpent
        return local

    before = sys.gettrace()
    sys.settrace(lambda frame, event, arg: local)
    try:
        yield
    finally:
        sys.settrace(before)


def _check_rendering(folder: Path) -> None:
    """The chat template renders a short conversation, through transformers' own sandboxed rendering,
    and the text holds each message's content. Why: a template that raises (``{{ raise_exception('boom')
    }}``) was a jinja2 traceback inside the run, and one that left out the user's content trained a
    model that never saw a question, silently. A template may add markers, text and whitespace around a
    content and trim it (ChatML, Qwen2, Llama 3 pass)."""
    try:
        from transformers import AutoTokenizer
    except ImportError:
        return
    from .pretrained import ModelFolderError, from_pretrained

    try:
        tokenizer = from_pretrained(AutoTokenizer, str(folder), local_files_only=True)
    except ModelFolderError:
        raise
    except ImportError:  # a library the tokenizer needs (sentencepiece ...): the run's own loader names it
        return
    except Exception as exc:  # noqa: BLE001 - a tokenizer file transformers cannot read (was "'added_tokens'")
        named = next((n for n in (*TOKENIZERS, "tokenizer_config.json") if (folder / n).exists()), "tokenizer.json")
        why = " ".join(str(exc).split())[:160]
        raise DamagedFile(folder / named, f"cannot be read as a tokenizer by transformers ({type(exc).__name__}: "
                          f"{why})", FIX) from None
    if getattr(tokenizer, "chat_template", None) is None:
        return  # the run's default template is used
    where = folder / ("chat_template.jinja" if (folder / "chat_template.jinja").exists() else "tokenizer_config.json")
    try:
        messages = [{"role": role, "content": text} for role, text in PROBE]
        _compile_template(tokenizer.chat_template)  # outside the budget: its size bounds it
        # as a run opens an episode (system and user, then the generation prompt), and with a reply after
        with _render_budget():
            rendered = (tokenizer.apply_chat_template(messages[:2], tokenize=False, add_generation_prompt=True) + " "
                        + tokenizer.apply_chat_template(messages, tokenize=False))
    except _RenderBudgetSpent:
        raise DamagedFile(where, f"holds a chat template that does not finish rendering a three-message conversation "
                          f"within {RENDER_LINES:,} steps or {RENDER_SECONDS:g} s (a loop without end, or loops in "
                          "loops?)", TEMPLATE_FIX) from None
    except Exception as exc:  # noqa: BLE001 - any failure of the folder's template is this one line
        why = " ".join(str(exc).split())[:160]
        raise DamagedFile(where, f"holds a chat template that fails to render a conversation ({type(exc).__name__}: "
                          f"{why})", FIX) from None
    shown = " ".join(str(rendered).split())  # a template may lay out the whitespace between words its own way
    missing = [role for role, text in PROBE if text not in shown]
    if missing:
        said = " and ".join(f"the {role} message's content" for role in missing)
        raise DamagedFile(where, f"holds a chat template that leaves out {said} (rendered system, user and "
                          f"assistant messages; {', '.join(repr(t) for r, t in PROBE if r in missing)} not in the "
                          "text)", TEMPLATE_FIX)


def _compile_template(template: object) -> None:
    """Compile ``template`` into transformers' cache of compiled templates, so that the budgeted render
    runs the template only (compiling a release's takes about 120,000 lines). Nothing when transformers
    has no such cache or the template does not compile (the render then says so)."""
    with suppress(Exception):  # another transformers, or a template error the render reports
        from transformers.utils.chat_template_utils import _compile_jinja_template

        if isinstance(template, str):
            _compile_jinja_template(template)


def _check_config(folder: Path) -> None:
    """transformers builds its config (no weights): a field of the wrong type is named here."""
    try:
        from transformers import AutoConfig
    except ImportError:  # the run's own loader says what is missing
        return
    from .pretrained import ModelFolderError, from_pretrained

    try:
        from_pretrained(AutoConfig, str(folder), local_files_only=True)
    except ModelFolderError:
        raise
    except Exception as exc:  # noqa: BLE001 - transformers raises many kinds; each is one line here
        why = " ".join(str(exc).split())[:200]
        raise DamagedFile(folder / "config.json", f"cannot be read by transformers ({type(exc).__name__}: {why})",
                          FIX) from None
