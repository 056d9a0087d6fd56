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


def test_an_interrupted_evaluation_says_the_same_command_evaluates_again(monkeypatch, capsys):
    """Before: only "interrupted" (an evaluation writes DONE at its end; without it the same command plays
    it again, replaying an endpoint's recorded replies)."""
    monkeypatch.setattr(importlib.import_module(COMMANDS["evaluate"][0]), "run", _stopped)
    assert main(["evaluate", "--suite", "quick-v2", "--agent", "random"]) == 130
    assert capsys.readouterr().err.strip() == "interrupted; re-run the same command to evaluate again"


@pytest.mark.parametrize("stop", [KeyboardInterrupt, "Terminated"])
def test_the_command_ignores_a_further_ctrl_c_while_it_exits(monkeypatch, capsys, stop):
    """Before: Ctrl-C pressed again while `searchgym compare` exited (atexit clean-up of torch and of
    the worker pool) printed a KeyboardInterrupt traceback after the one line. The console command
    (``main()`` with no argv) now ignores SIGINT once it has stopped; a call from Python leaves it."""
    import signal
    import sys

    from searchgym.cli import Terminated

    error = Terminated if stop == "Terminated" else stop

    def stopped(*args, **kwargs):
        raise error

    monkeypatch.setattr(importlib.import_module(COMMANDS["train"][0]), "run", stopped)
    before = signal.getsignal(signal.SIGINT)
    try:
        assert main(["train", "--start"]) in (130, 143)
        assert signal.getsignal(signal.SIGINT) is before  # from Python: untouched
        monkeypatch.setattr(sys, "argv", ["searchgym", "train", "--start"])
        assert main() in (130, 143)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
    assert "Traceback" not in capsys.readouterr().err
