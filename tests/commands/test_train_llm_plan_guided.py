"""``train --policy llm``'s plan line says when the model's replies are decoded guided.

Before: the plan read the same with ``guided`` true and false, though it decides whether a model
trained with guided SFT writes readable actions at all."""

from __future__ import annotations

import json

import pytest

import searchgym.commands.train_llm as train_llm
from searchgym.cli import main

OPTIONS = {"world_size": "tiny", "test_size": 2, "dev_size": 2}


def plan(monkeypatch, tmp_path, capsys, options) -> str:
    pytest.importorskip("transformers")  # the llm extra
    monkeypatch.setattr(train_llm, "train_from_args", lambda args, spec=None: 0)  # the plan, not the training
    assert main(["train", "--policy", "llm", "--env", "SearchQA-v0", "--budget", "10", "--device", "cpu",
                 "--no-progress", "--out", str(tmp_path / "run"), "--options", json.dumps({**OPTIONS, **options})]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("searchgym train: ")]
    assert len(lines) == 1, lines
    return lines[0]


def test_the_plan_says_guided_decoding_when_it_is_set(monkeypatch, tmp_path, capsys) -> None:
    line = plan(monkeypatch, tmp_path, capsys, {"guided": True, "generation_backend": "kv"})
    assert ", policy llm (model random:tiny, guided decoding), device cpu;" in line


def test_the_plan_is_unchanged_without_it(monkeypatch, tmp_path, capsys) -> None:
    line = plan(monkeypatch, tmp_path, capsys, {"guided": False})
    assert ", policy llm (model random:tiny), device cpu;" in line and "guided" not in line
