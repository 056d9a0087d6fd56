"""`searchgym serve` refuses what it cannot serve in one line, before it prints or records anything."""

from __future__ import annotations

import socket

import pytest

from searchgym.cli import main


@pytest.mark.parametrize("behaviour", ["reader", "prose", "hostile", "stall", "oracle"])
def test_a_candidate_mode_suite_is_refused_whatever_the_behaviour(behaviour, capsys, serve_must_refuse) -> None:
    """Before: only oracle and random refused quick-v2 (after playing a task); reader, prose,
    hostile and stall served it, though no chat client can play a candidate-mode task."""
    assert main(["serve", "--suite", "quick-v2", "--behaviour", behaviour, "--port", "0"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "suite 'quick-v2' is not in text mode" in captured.err and "searchqa-text-v2" in captured.err


def test_a_port_in_use_names_the_port_and_what_to_do(capsys) -> None:
    """Before: "Address already in use; fix that and re-run the same command (files written before
    it are intact: a run resumes where it stopped)", exit 1: no port named, a remedy for runs."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--suite", "searchqa-text-v2", "--port", str(port), "--splits", "dev",
                     "--limit", "1"]) == 2
    err = capsys.readouterr().err
    assert f"port {port} on 127.0.0.1 is in use" in err and "--port 0" in err and "resumes" not in err
