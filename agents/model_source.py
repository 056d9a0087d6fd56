"""Whether a ``--model`` names weights on this machine, decided before any run folder is made.

Why: searchgym downloads nothing at run time, and a model that is not on disk was found only when
the run loaded it: ``--policy llm`` after writing ``checkpoint/`` and ``config.json`` (the corrected
command was then refused as "a different run"), ``--policy hf`` with Hugging Face's own message
("Repo id must use alphanumeric chars ...", exit 1). This looks, reading no weights, at the folder or
the Hugging Face cache (``huggingface_hub.try_to_load_from_cache``), as ``from_pretrained`` would.
"""

from __future__ import annotations

import os
from pathlib import Path

from .llm_policy import ALLOW_DOWNLOAD_ENV
from .model_folder import check_model_folder


def check_model_source(spec: str, option: str = "--model", presets: tuple[str, ...] = (),
                       auto_class: str = "causal_lm") -> None:
    """Raise ``ValueError`` (one line naming ``option`` and what is accepted) unless ``spec`` is
    ``random:<preset>`` with a preset of ``presets``, a folder (checked as ``auto_class`` loads it:
    :func:`~.model_folder.check_model_folder`), or a hub id whose config is cached."""
    if presets and spec.startswith("random:"):
        if spec.removeprefix("random:") not in presets:
            raise ValueError(f"{option} {spec!r}: unknown preset; accepted: "
                             f"{', '.join('random:' + p for p in presets)}, a local folder or a cached hub id")
        return
    if os.environ.get(ALLOW_DOWNLOAD_ENV):
        return
    path = Path(spec).expanduser()
    if path.exists():
        if not path.is_dir():
            raise ValueError(f"{option} {spec!r} is a file; give the model's folder (config.json, weights, tokenizer)")
        check_model_folder(path, option, auto_class)  # a damaged file named before any run folder
        return
    if _cached(spec):
        return
    if names_a_folder(spec):
        raise ValueError(f"{option} {spec!r}: no such folder; give the model's folder (config.json, weights, "
                         "tokenizer) or a Hugging Face id already in the local cache")
    raise ValueError(f"{option} {spec!r} is neither a folder here nor a Hugging Face id in the local cache; "
                     f"searchgym downloads nothing: `hf download {spec}` once (with network access), or give a "
                     f"local folder with config.json and weights, or set {ALLOW_DOWNLOAD_ENV}=1 to let "
                     "transformers download it during the run")


def names_a_folder(spec: str) -> bool:
    """Whether ``spec`` can only be a folder, not a Hugging Face id (``org/name``)."""
    return spec.startswith(("/", ".", "~")) or spec.count("/") > 1


def _cached(spec: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # the run's own loader says what is missing
        return True
    try:
        return isinstance(try_to_load_from_cache(spec, "config.json"), str)
    except ValueError:  # not a valid hub id (HFValidationError) either
        return False
