"""The OpenEnv server serves the train split unless told otherwise. Before: `python -m
searchgym.integrations.openenv` and create_searchgym_app defaulted to --split test, so a training
server rewarded on the leaderboard's test split (TRL refuses test; GEM defaults to train)."""

from __future__ import annotations

import inspect

import pytest

pytest.importorskip("openenv.core")

from searchgym.integrations import openenv


def test_the_app_the_env_and_the_command_default_to_train(monkeypatch, capsys):
    for function in (openenv.create_searchgym_app, openenv.SearchgymEnvironment.__init__):
        assert inspect.signature(function).parameters["split"].default == "train"
    built = []
    monkeypatch.setattr(openenv, "create_searchgym_app", lambda *args: built.append(args) or object())
    monkeypatch.setattr("uvicorn.run", lambda *args, **kwargs: None)
    assert openenv.main(["--port", "0"]) == 0
    assert built == [("searchqa-text-v2", "train", 8)]
    with pytest.raises(SystemExit):
        openenv.main(["--help"])
    assert "default: train" in " ".join(capsys.readouterr().out.split())
