"""An atomic write stopped by any exception (Ctrl-C, SystemExit, the CLI's SIGTERM) removes its temp
file, re-raises, and leaves the file it was replacing as it was."""

from __future__ import annotations

import os

import pytest

from searchgym import fileio
from searchgym.fileio import atomic_write_json, atomic_write_text


@pytest.mark.parametrize("stop", [KeyboardInterrupt, SystemExit])
@pytest.mark.parametrize("step", ["replace", "fsync"])
def test_a_stopped_write_leaves_no_temp_file(tmp_path, monkeypatch, stop, step):
    target = tmp_path / "summary.csv"
    target.write_text("before\n")

    def stopped(*args):
        raise stop

    monkeypatch.setattr(fileio.os, step, stopped)
    with pytest.raises(stop):
        atomic_write_text(target, "after\n")
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["summary.csv"] and target.read_text() == "before\n"
    with pytest.raises(stop):  # a new file too
        monkeypatch.setattr(fileio.os, step, stopped)
        atomic_write_json(tmp_path / "config.json", {"a": 1})
    assert os.listdir(tmp_path) == ["summary.csv"]
