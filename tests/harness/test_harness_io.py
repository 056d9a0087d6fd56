"""Atomic writes and crash-tolerant JSONL."""

from __future__ import annotations

import os

import numpy as np
import pytest

from searchgym import fileio as io


def test_atomic_write_replaces_and_leaves_no_temp_file(tmp_path):
    target = tmp_path / "sub" / "a.json"
    io.atomic_write_json(target, {"b": np.int64(2), "a": np.float32(0.5), "c": np.arange(2)})
    assert target.read_text() == '{\n  "a": 0.5,\n  "b": 2,\n  "c": [\n    0,\n    1\n  ]\n}\n'
    assert [p.name for p in target.parent.iterdir()] == ["a.json"]


def test_a_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "a.txt"
    io.atomic_write_text(target, "old")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        io.atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_jsonl_survives_a_cut_last_line(tmp_path):
    log = tmp_path / "metrics.jsonl"
    io.append_jsonl(log, {"step": 1})
    with open(log, "a") as f:
        f.write('{"step": 2, "dev_suc')  # a crash in the middle of a line
    io.append_jsonl(log, {"step": 3})
    assert io.read_jsonl(log) == [{"step": 1}, {"step": 3}]
    assert io.read_jsonl(tmp_path / "absent.jsonl") == []


def test_atomic_jsonl_and_unserialisable_values(tmp_path):
    path = io.atomic_write_jsonl(tmp_path / "p.jsonl", [{"a": 1}, {"a": None}])
    assert path.read_text() == '{"a": 1}\n{"a": null}\n'
    with pytest.raises(TypeError, match="object is not JSON serialisable"):
        io.append_jsonl(tmp_path / "x.jsonl", {"a": object()})


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_an_atomic_write_has_the_permissions_of_a_plain_write(tmp_path, umask):
    # Before: every atomically written file (config.json, predictions, exports, the leaderboard's
    # index.html) was 0o600, mkstemp's mode, whatever the umask: unreadable to a group or a web server.
    old = os.umask(umask)
    try:
        plain = tmp_path / "plain.txt"
        plain.write_text("x")
        written = io.atomic_write_text(tmp_path / "atomic.txt", "x")
    finally:
        os.umask(old)
    assert oct(written.stat().st_mode & 0o777) == oct(plain.stat().st_mode & 0o777) == oct(0o666 & ~umask)


def test_an_atomic_rewrite_keeps_the_file_s_own_permissions(tmp_path):
    target = tmp_path / "summary.csv"
    io.atomic_write_text(target, "old")
    target.chmod(0o640)
    io.atomic_write_text(target, "new")
    assert target.read_text() == "new" and target.stat().st_mode & 0o777 == 0o640
