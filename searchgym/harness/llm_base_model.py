"""Where an LLM-policy run's base model is: the folder it trained from, recorded in its config.json.

Why: the run's options keep ``--model`` as it was given (they are the run's identity: the same
command resumes it, and run folders made before this still do), so ``--model ./mymodel`` is
recorded relative, and ``searchgym evaluate --agent run`` read it from the current folder: from any
other folder the model was "missing" (or another folder of that name was loaded). The run now also
records the absolute folder it loaded, beside what it started from (``base_model``: the model as
given and its folder; written with the run's other records once it has trained), and the
evaluation loads that folder wherever it is run from. A run without the record (made before it, or
not done training) reads a relative path from the current folder, as before.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: The config.json field of the record.
RECORD = "base_model"


def base_model_record(model: str) -> dict[str, Any]:
    """``{"base_model": {"model": model, "folder": its absolute path}}`` for a model loaded from a
    local folder (``model`` as the run's options give it); {} for a preset or a Hugging Face id."""
    if model.startswith("random:"):
        return {}
    folder = Path(model).expanduser()
    if not folder.is_dir():
        return {}
    return {RECORD: {"model": model, "folder": os.path.abspath(folder)}}


def recorded_folder(config: Mapping[str, Any], model: str) -> str | None:
    """The absolute folder a run's config.json records for ``model`` (its options' model), or None:
    no record, one of another model (its options were edited), or not an absolute path."""
    record = config.get(RECORD)
    if not isinstance(record, Mapping) or record.get("model") != model:
        return None
    folder = record.get("folder")
    return folder if isinstance(folder, str) and os.path.isabs(folder) else None


def located_model(config: Mapping[str, Any], model: str) -> str:
    """The model to load for a run whose config.json is ``config`` and whose options name ``model``:
    the folder it recorded while that is there; else ``model`` as given (a relative path read from
    the current folder) when that is there, or when nothing was recorded; else the recorded folder
    (the one to put back)."""
    folder = recorded_folder(config, model)
    if folder is None or Path(folder).is_dir():
        return folder or model
    if Path(model).expanduser().exists():  # moved (with the runs, say): read from here, as before
        return model
    return folder
