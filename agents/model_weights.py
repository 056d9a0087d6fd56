"""A model folder's safetensors tensors are the weights of the model its config.json builds.

Why: a config.json naming another architecture (``"model_type": "bert"`` over Qwen2 weights) loaded
with every tensor UNEXPECTED and every weight MISSING, in transformers' multi-line load report, and the
run trained from random values, silently: the shape check compared only the names in both. Here the
names are compared (the model is built on the meta device by the caller; no weights are read).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from searchgym.damaged import DamagedFile

FIX = "replace the model folder with an undamaged copy"
#: Old checkpoints' names of LayerNorm weights, which transformers renames when loading
LEGACY = ((re.compile(r"\.gamma$"), ".weight"), (re.compile(r"\.beta$"), ".bias"))


def check_tensor_names(folder: Path, headers: dict[Path, dict], model: Any) -> None:
    """Refuse (one line naming the weights file) a file that holds none of the model's tensors, or that
    leaves a weight of the model without a value. Tied weights (``lm_head`` sharing ``embed_tokens``)
    need one of their names in the file; names with or without the base model's prefix both count (as
    transformers loads them); an architecture whose checkpoints transformers converts when loading is
    checked for the first only."""
    stored = {_legacy(name) for header in headers.values() for name in header if name != "__metadata__"}
    prefix = str(getattr(model, "base_model_prefix", "") or "")

    def found(name: str) -> bool:
        forms = {name, f"{prefix}.{name}"} if prefix else {name}
        if prefix and name.startswith(prefix + "."):
            forms.add(name[len(prefix) + 1:])
        return not forms.isdisjoint(stored)

    where = _weights_file(folder, headers)
    arch = type(model).__name__
    names = list(model.state_dict())
    if names and not any(found(n) for n in names):
        raise DamagedFile(where, f"holds none of the tensors of config.json's model ({arch}: e.g. {names[0]}; the "
                          f"file has e.g. {min(stored, default='nothing')}) (a config.json of another model?)", FIX)
    if _converted(model):
        return
    shared: dict[int, list[str]] = {}  # one parameter, every name it has (tied weights)
    for name, parameter in model.named_parameters(remove_duplicate=False):
        shared.setdefault(id(parameter), []).append(name)
    ignored = [re.compile(p) for p in getattr(model, "_keys_to_ignore_on_load_missing", None) or []]
    missing = [aliases[0] for aliases in shared.values() if not any(found(n) for n in aliases)
               and not any(p.search(n) for p in ignored for n in aliases)]
    if missing:
        raise DamagedFile(where, f"lacks {len(missing)} of the {len(shared)} weights of config.json's model ({arch}), "
                          f"e.g. {', '.join(missing[:3])}: the run would train them from random values (a "
                          "config.json of another model, or weights of part of it?)", FIX)


def _legacy(name: str) -> str:
    for pattern, replacement in LEGACY:
        name = pattern.sub(replacement, name)
    return name


def _weights_file(folder: Path, headers: dict[Path, dict]) -> Path:
    """The file to name: the index of sharded weights, else the one safetensors file."""
    index = folder / "model.safetensors.index.json"
    return index if len(headers) > 1 and index.exists() else min(headers)


def _converted(model: Any) -> bool:
    """Whether transformers renames or merges this architecture's tensors when loading (then a stored
    name need not be the model's)."""
    try:
        from transformers.conversion_mapping import extract_weight_conversions_for_model
    except ImportError:  # transformers 4: no conversion on load
        return False
    try:
        return bool(extract_weight_conversions_for_model(model))
    except Exception:  # noqa: BLE001 - an unknown shape of the API: check the names in common only
        return True
