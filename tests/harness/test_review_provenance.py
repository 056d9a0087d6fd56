"""The git revision a run records is searchgym's own: a repository that merely holds the installed
package (a project whose .venv is inside its clone) is not searchgym's. Before: that project's
revision was recorded in every config.json, and submitted to the leaderboard as searchgym's."""

from __future__ import annotations

import subprocess

from searchgym.harness import provenance

SHA = "a" * 40


def _git_answers(monkeypatch, toplevel):
    def fake_run(cmd, **kwargs):
        if cmd[:2] == ["git", "rev-parse"]:
            return subprocess.CompletedProcess(cmd, 0, stdout=f"{SHA}\n{toplevel}\n", stderr="")
        return subprocess.CompletedProcess(cmd, 0, stdout="", stderr="")

    monkeypatch.setattr(provenance.subprocess, "run", fake_run)


def test_a_repository_without_this_package_is_no_revision_of_it(monkeypatch, tmp_path):
    _git_answers(monkeypatch, tmp_path)  # e.g. the user's project, with searchgym installed in its .venv
    assert provenance.git_revision() == {"revision": "unknown", "dirty": None}


def test_the_repository_of_this_package_gives_its_revision(monkeypatch):
    _git_answers(monkeypatch, provenance.PACKAGE.parent)
    assert provenance.git_revision() == {"revision": SHA, "dirty": False}


def test_an_explicit_folder_is_asked_as_it_is(monkeypatch, tmp_path):
    _git_answers(monkeypatch, tmp_path)
    assert provenance.git_revision(tmp_path) == {"revision": SHA, "dirty": False}
