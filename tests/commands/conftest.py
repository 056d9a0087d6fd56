"""Fixtures of the command tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def serve_must_refuse(monkeypatch):
    """`searchgym serve` fails the test at once if it starts an endpoint. Why: a refusal that
    regressed would serve until interrupted, and the test would wait for pytest's 600-s timeout."""

    def served(*args, **kwargs):
        pytest.fail("searchgym serve started an endpoint instead of refusing")

    monkeypatch.setattr("searchgym.commands.serve.ScriptedEndpoint", served)


@pytest.fixture(scope="module")
def model_project(tmp_path_factory):
    """A folder holding a tiny causal LM's folder ``mymodel`` (what ``--model ./mymodel`` names there), once per
    module: the relative-model-folder tests train in it (``model_folder_helpers.trained_in``)."""
    from model_folder_helpers import model_project as make

    return make(tmp_path_factory)
