"""Where the model folders a run loaded are: each one its options name by a path, recorded absolute.

Why: a run's options keep a path as it was given (they are the run's identity: the same command
resumes it, and run folders made before this still do), so ``--model ./mymodel`` is recorded
relative, and ``searchgym evaluate --agent run``, which builds the policy again, read it from the
current folder: from any other folder the model was "missing" (or another folder of that name was
loaded). A run now also records the absolute folder it loaded, beside the path as given (written
with the run's other records once it has trained), and the evaluation loads that folder wherever it
is run from. A run without the record (made before it, or not done training) reads a relative path
from the current folder, as before.

Two kinds of run record folders: an LLM-policy run its base model (``base_model``), a run of a
candidate policy the folders its policy options name (``policy_folders``: hf's
``model_name_or_path``, for one; its checkpoint holds the trained weights, but the policy is built
from the folder's config, tokenizer and weights before they are put in).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: The config.json field of an LLM-policy run's base model.
RECORD = "base_model"
#: The config.json field of a candidate policy's folders, by the option that names each.
POLICY_RECORD = "policy_folders"
#: The options of each built-in policy that name a folder it loads when it is built.
FOLDER_OPTIONS = {"hf": ("model_name_or_path", "tokenizer_path"), "minilm": ("model_path",)}


def folder_record(given: Any) -> dict[str, str] | None:
    """``{"model": given, "folder": its absolute path}`` for a path to a local folder; None for
    anything else (a Hugging Face id, a preset, no string)."""
    if not isinstance(given, str) or not given:
        return None
    folder = Path(given).expanduser()
    if not folder.is_dir():
        return None
    return {"model": given, "folder": os.path.abspath(folder)}


def recorded_folder(record: Any, given: str) -> str | None:
    """The absolute folder ``record`` holds for ``given``, or None: no record, one of another path
    (the options were edited), or not an absolute path."""
    if not isinstance(record, Mapping) or record.get("model") != given:
        return None
    folder = record.get("folder")
    return folder if isinstance(folder, str) and os.path.isabs(folder) else None


def located(record: Any, given: str) -> str:
    """What to load for ``given`` (the path as the options give it): the folder ``record`` holds
    while that is there; else ``given`` (a relative path read from the current folder) when that is
    there, or when nothing was recorded; else the recorded folder (the one to put back)."""
    folder = recorded_folder(record, given)
    if folder is None or Path(folder).is_dir():
        return folder or given
    if Path(given).expanduser().exists():  # moved (with the runs, say): read from here, as before
        return given
    return folder


# ------------------------------------------------------------------------------ an LLM policy's base model
def base_model_record(model: str) -> dict[str, Any]:
    """``{"base_model": {"model": model, "folder": its absolute path}}`` for a model loaded from a
    local folder (``model`` as the run's options give it); {} for a preset or a Hugging Face id."""
    record = None if model.startswith("random:") else folder_record(model)
    return {RECORD: record} if record else {}


def located_model(config: Mapping[str, Any], model: str) -> str:
    """The model to load for a run whose config.json is ``config`` and whose options name ``model``
    (:func:`located`)."""
    return located(config.get(RECORD), model)


# ------------------------------------------------------------------------------ a candidate policy's folders
def policy_folders_record(policy: str, policy_kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """``{"policy_folders": {option: {"model": path, "folder": absolute}}}`` for each option of
    ``policy`` that names a local folder; {} when none does."""
    records = {name: folder_record(policy_kwargs.get(name)) for name in FOLDER_OPTIONS.get(policy, ())}
    found = {name: record for name, record in records.items() if record}
    return {POLICY_RECORD: found} if found else {}


def located_policy_kwargs(config: Mapping[str, Any], policy: str,
                          policy_kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """``policy_kwargs`` (as a run's options give them) with each folder option :func:`located` by
    the record of config.json ``config``: what the policy is built from to be played."""
    records = config.get(POLICY_RECORD)
    records = records if isinstance(records, Mapping) else {}
    kwargs = dict(policy_kwargs)
    for name in FOLDER_OPTIONS.get(policy, ()):
        if isinstance(kwargs.get(name), str) and name in records:
            kwargs[name] = located(records[name], kwargs[name])
    return kwargs


def missing_policy_folder(config: Mapping[str, Any], policy: str,
                          policy_kwargs: Mapping[str, Any]) -> str | None:
    """What is missing, in words, when a folder the run recorded for ``policy_kwargs`` is gone and its
    path as given is not here either; None otherwise (a run without the record: as before)."""
    from searchgym.agents.model_source import names_a_folder  # torch's import: only where a run is played

    records = config.get(POLICY_RECORD)
    for name in FOLDER_OPTIONS.get(policy, ()):
        given = policy_kwargs.get(name)
        if not isinstance(given, str):
            continue
        if not isinstance(records, Mapping):  # a run made before the folders were recorded
            if names_a_folder(given) and not Path(given).expanduser().exists():  # before: Hugging Face's "Repo id must..."
                return (f"its policy's {name} {given!r} is not here, and the run (made by an older searchgym) records "
                        "no folder for it: run this from the folder the run was trained in")
            continue
        folder = recorded_folder(records.get(name), given)
        if folder is not None and not Path(folder).is_dir() and not Path(given).expanduser().exists():
            return (f"its policy's {name} {given!r} is missing: put the folder back at {folder} (where it "
                    f"was when the run trained), or run this from a folder holding {given!r}")
    return None
