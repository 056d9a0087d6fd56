"""``from_pretrained`` for a model folder someone else handed over: it never runs the folder's
code, and what it refuses is one line naming the folder.

Why: without ``trust_remote_code=False`` transformers asks "Do you wish to run the custom code?
[y/N]" for a ``config.json`` whose ``auto_map`` names the folder's own Python file, and one "y"
(even from piped input) imported it. A ``pytorch_model.bin`` that is a pickle was refused by
``torch.load(weights_only=True)`` with a traceback advising to load it with ``weights_only=False``;
a cut ``config.json`` was reported as "not on disk", a cut ``model.safetensors`` was safetensors' traceback.
"""

from __future__ import annotations

import pickle
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch


@contextmanager
def transformers_bars_off() -> Iterator[None]:
    """transformers' progress bars off inside, as they were after ("Loading weights", "Writing model shards":
    two bars each time a small model is saved or loaded, mixed into the recipe's one line per stage and
    printed by the preflight's check build of ``--policy hf``)."""
    from transformers.utils import logging as hf_logging

    enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if enabled:
            hf_logging.enable_progress_bar()


class ModelFolderError(ValueError):
    """A model folder (or hub id) that cannot be loaded safely; the message is one line."""


def from_pretrained(loader: Any, spec: str, **kwargs: Any) -> Any:
    """``loader.from_pretrained(spec, trust_remote_code=False, **kwargs)``; a folder that asks for
    its own code, holds pickled weights, or whose files are damaged is a :class:`ModelFolderError`.
    Other errors (``OSError`` for a model not on disk) are the caller's to word."""
    what = f"model {spec!r}"
    _check_torch_weights(spec, what)
    try:
        with warnings.catch_warnings():  # torch's multi-line note on a pickled .bin came before our one line
            warnings.filterwarnings("ignore", message="Detected pickle protocol", category=UserWarning)
            return loader.from_pretrained(spec, trust_remote_code=False, **kwargs)
    except pickle.UnpicklingError as exc:
        raise ModelFolderError(
            f"{what}: torch.load(weights_only=True) refused its weights file, a pickle holding more than tensors "
            "(which could run code when loaded); searchgym loads no such file from a model folder: use one with "
            ".safetensors weights") from exc
    except ValueError as exc:
        if "trust_remote_code" not in str(exc):
            raise
        raise ModelFolderError(
            f"{what} asks to run its own Python code (an auto_map in config.json or tokenizer_config.json); "
            "searchgym never runs code from a model folder: use a folder whose config.json names an architecture "
            "that transformers ships") from exc
    except OSError as exc:
        damaged = Path(spec).expanduser().is_dir() and "not a valid JSON" in str(exc)
        if not damaged:
            raise
        raise ModelFolderError(f"{what}: {str(exc).splitlines()[0]} (the folder is there, the file is damaged)") \
            from exc
    except _safetensors_errors() as exc:  # before: safetensors' traceback ("incomplete metadata, file not fully covered")
        raise ModelFolderError(f"{what}: {_weights_files(spec)} is damaged: safetensors cannot "
                               f"read it ({' '.join(str(exc).split())[:200]})") from None


def _check_torch_weights(spec: str, what: str) -> None:
    """A local folder's ``*.bin`` weights (``torch.save`` archives) checked as searchgym's own torch
    files are (:func:`searchgym.torch_archive.archive_problem`) before transformers inflates them.
    Why: ``torch.load(weights_only=True)`` refuses code, not size: a 6 MB file of deflated records
    inflated to 4.6 GB."""
    from searchgym.torch_archive import archive_problem

    folder = Path(spec).expanduser()
    for weights in sorted(folder.glob("*.bin")) if folder.is_dir() else ():
        try:
            problem = archive_problem(weights)
        except OSError as exc:
            problem = f"cannot be read ({exc.strerror or exc})"
        if problem is not None:
            raise ModelFolderError(f"{what}: {weights.name} is no intact torch.save archive: {problem}; use a "
                                   "folder with .safetensors weights, or the model's own release")


def _safetensors_errors() -> tuple[type[BaseException], ...]:
    try:
        from safetensors import SafetensorError
    except ImportError:
        return ()
    return (SafetensorError,)


def _weights_files(spec: str) -> str:
    """The folder's .safetensors file(s), named for a message (safetensors' own error names none)."""
    folder = Path(spec).expanduser()
    shards = sorted(folder.glob("*.safetensors")) if folder.is_dir() else []
    if len(shards) == 1:
        return str(shards[0])
    return f"one of its {len(shards)} .safetensors files" if shards else "a .safetensors weights file"


def causal_lm(spec: str, dtype: Any, **kwargs: Any) -> Any:
    """``AutoModelForCausalLM`` through :func:`from_pretrained`, ``dtype`` under either of its
    transformers names (``torch_dtype`` before 4.56)."""
    from transformers import AutoModelForCausalLM

    try:
        return from_pretrained(AutoModelForCausalLM, spec, dtype=dtype, **kwargs)
    except TypeError:
        return from_pretrained(AutoModelForCausalLM, spec, torch_dtype=dtype, **kwargs)


def resolve_dtype(dtype: str | torch.dtype | None, device: torch.device) -> torch.dtype:
    """"auto" (or None): bf16 on CUDA, float32 on CPU; else a torch dtype or its name ("bfloat16"). One
    rule for the LLM policy and the hf candidate policy's encoder."""
    import torch

    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype in (None, "auto"):
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    resolved = getattr(torch, str(dtype), None)
    if not isinstance(resolved, torch.dtype):
        raise ValueError(f"unknown dtype {dtype!r}; accepted: auto, float32, bfloat16, float16")  # noqa: TRY004
    return resolved
