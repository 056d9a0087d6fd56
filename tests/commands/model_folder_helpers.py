"""Shared by the tests of runs trained on a model folder given as a relative path (``--model ./mymodel``):
the project folder holding the model, training there, and evaluating the run from elsewhere."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from searchgym.cli import main


def model_project(tmp_path_factory) -> Path:
    """A folder holding a tiny causal LM's folder ``mymodel`` (what ``--model ./mymodel`` names there)."""
    from searchgym.agents.llm_policy import offline_tokenizer
    from searchgym.agents.tiny_lm import new_tiny_model, save_model_folder

    folder = tmp_path_factory.mktemp("project")
    tokenizer = offline_tokenizer()
    save_model_folder(new_tiny_model("l2-w128", tokenizer), tokenizer, folder / "mymodel")
    return folder


def trained_in(project: Path, train_args: list[str]) -> Path:
    """``searchgym TRAIN_ARGS --out run``, run in ``project``: the run folder."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project)
        assert main([*train_args, "--out", "run"]) == 0
    return project / "run"


def evaluate(path, out) -> int:
    return main(["evaluate", "--agent", "run", "--agent-option", f"path={path}", "--out", str(out), "--no-progress"])


def elsewhere(tmp_path: Path, monkeypatch) -> Path:
    """Another folder, made the current one."""
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.chdir(other)
    return other


def without_record(run: Path, tmp_path: Path, record: str) -> Path:
    """A copy of ``run`` whose config.json lacks the ``record`` field: a run folder made before it."""
    old = tmp_path / "old"
    shutil.copytree(run, old)
    config = json.loads((old / "config.json").read_text())
    del config[record]
    (old / "config.json").write_text(json.dumps(config))
    return old
