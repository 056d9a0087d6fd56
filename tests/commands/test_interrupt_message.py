"""Ctrl-C on a resumable command says how to go on; on any other command, only that it stopped.

Before: `searchgym train` / `compare` / `recipe` stopped by SIGINT printed "interrupted" and nothing
more, though the README's promise is that the same command resumes the run."""

from __future__ import annotations

import importlib

import pytest

from searchgym.cli import COMMANDS, main


def _stopped(*args, **kwargs):
    raise KeyboardInterrupt


@pytest.mark.parametrize(("argv", "resumes"), [
    (["train", "--start"], True),
    (["compare", "--suite", "quick-v2", "--out", "x"], True),
    (["recipe", "tiny-lm", "--smoke"], True),
    (["suites"], False),
])
def test_interrupted(monkeypatch, capsys, argv, resumes):
    module = importlib.import_module(COMMANDS[argv[0]][0])
    monkeypatch.setattr(module, "run", _stopped)
    assert main(argv) == 130
    err = capsys.readouterr().err.strip()
    if resumes:
        assert err == "interrupted; re-run the same command to resume (finished work is kept)"
    else:
        assert err == "interrupted"
