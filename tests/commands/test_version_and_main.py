"""``searchgym --version``, ``python -m searchgym`` and the one-line helps of serve and demo (a new
user's review).

Before: ``searchgym --version`` was "unrecognized arguments", ``python -m searchgym`` was "No module
named searchgym.__main__", ``serve`` was described as serving "(oracle replies)" though
``--behaviour`` has six, and ``demo`` as playing "a world's test split" though it has ``--split``.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from searchgym import __version__
from searchgym.cli import main
from searchgym.endpoint.scripted_endpoint import BEHAVIOURS
from searchgym.harness import provenance


def _version(capsys) -> str:
    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code in (0, None)
    return capsys.readouterr().out.strip()


def test_version_names_the_release_and_the_checkouts_commit(capsys) -> None:
    git = provenance.git_revision()
    said = _version(capsys)
    assert said.startswith(f"searchgym {__version__}")
    if git["revision"] != "unknown":  # this checkout: its commit, +dirty with uncommitted changes
        assert said == f"searchgym {__version__} (git {git['revision']}{'+dirty' if git['dirty'] else ''})"


def test_version_outside_a_checkout_is_the_version_alone(monkeypatch, capsys) -> None:
    monkeypatch.setattr(provenance, "git_revision", lambda: {"revision": "unknown", "dirty": None})
    monkeypatch.setattr(provenance, "installed_package", lambda: {"version": "9.8.7"})
    assert _version(capsys) == "searchgym 9.8.7"


def _dash_m(args: list[str], cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "searchgym", *args], cwd=cwd, check=False, capture_output=True,
                          text=True, timeout=120)


def test_python_dash_m_searchgym_is_the_same_command(tmp_path) -> None:
    run = _dash_m(["--version"], tmp_path)
    assert run.returncode == 0 and run.stdout.startswith(f"searchgym {__version__}"), run.stderr[-2000:]
    listed = _dash_m(["list"], tmp_path)
    assert listed.returncode == 0 and "SearchQA-Candidates-Easy-v0" in listed.stdout, listed.stderr[-2000:]
    bad = _dash_m(["list", "--nosuch"], tmp_path)
    assert bad.returncode == 2 and "searchgym list: error: unrecognized arguments: --nosuch" in bad.stderr


def _description(command: str, capsys) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return " ".join(capsys.readouterr().out.split("\n\n")[1].split())  # the paragraph after the usage


def test_serve_help_does_not_say_it_only_replays_the_oracle(capsys) -> None:
    said = _description("serve", capsys)
    assert "(oracle replies)" not in said and "--behaviour" in said
    assert all(name in said for name in ("oracle", "random", "reader", "misbehaving"))
    assert set(BEHAVIOURS) == {"oracle", "random", "reader", "prose", "hostile", "stall"}  # the last 3 misbehave


def test_demo_help_names_its_split_option(capsys) -> None:
    said = _description("demo", capsys)
    assert "test split," not in said and "--split" in said and "default test" in said
