"""The checked readers: the exact one-line message for each kind of damage, no hang on a FIFO, no
unbounded read of a device, and JSONL rows read past every kind of bad line."""

from __future__ import annotations

import os

import pytest

from searchgym import fileio
from searchgym.damaged import DamagedFile, open_regular, read_bounded, read_json_checked
from searchgym.folder_lock import FolderLock

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(("data", "expect", "what"), [
    (b"", None, "is empty"),
    (b"  \n", None, "is empty"),
    (b'{"a": 1', None, "is not valid JSON (Expecting ',' delimiter at line 1 column 8)"),
    (b'{"a": "x\ny"}', None, "is not valid JSON (Invalid control character at line 1 column 9)"),  # was "at at"
    (b'{"a": "\xff"}', None, "is not UTF-8 text (at byte offset 7)"),
    (b"[1, 2]", dict, "holds a list where an object belongs"),
    (b'{"a": 1}', list, "holds an object where a list belongs"),
    (b"true", dict, "holds a boolean where an object belongs"),
    (b"[" * 100_000, None, "is nested too deeply to be JSON we wrote"),
    # before: json's bare "Exceeds the limit (4300 digits) ..." naming no file
    (b'{"seed": ' + b"1" * 5000 + b"}", None, "holds a number of more than 4300 digits, which no searchgym file holds"),
], ids=["empty", "blank", "cut", "control", "latin-1", "list", "object", "boolean", "deep", "5000 digits"])
def test_read_json_checked_says_what_is_wrong(tmp_path, data, expect, what):
    path = tmp_path / "config.json"
    path.write_bytes(data)
    with pytest.raises(DamagedFile) as caught:
        read_json_checked(path, expect)
    assert str(caught.value) == f"{path}: {what}; delete it and re-run the same command"
    assert caught.value.path == path and caught.value.what == what


def test_read_json_checked_reads_what_we_wrote(tmp_path):
    fileio.atomic_write_json(tmp_path / "a.json", {"x": [1, 2]})
    assert fileio.read_json(tmp_path / "a.json", expect=dict) == {"x": [1, 2]}
    with pytest.raises(FileNotFoundError):
        fileio.read_json(tmp_path / "missing.json")


@pytest.mark.parametrize(("make", "what"), [
    (lambda p: p.mkdir(), "is a folder, not a regular file"),
    (lambda p: os.mkfifo(p), "is a FIFO (named pipe), not a regular file"),
    (lambda p: p.symlink_to("/dev/zero"), "is a character device, not a regular file"),
    (lambda p: p.symlink_to(p), "cannot be opened (Too many levels of symbolic links)"),
])
def test_open_regular_refuses_what_is_not_a_file_without_reading(tmp_path, make, what):
    path = tmp_path / "x"
    make(path)
    with pytest.raises(DamagedFile, match=f": {what.replace('(', '.').replace(')', '.')}"):
        open_regular(path)


def test_read_bounded_refuses_a_file_over_its_limit(tmp_path):
    path = tmp_path / "big"
    path.write_bytes(b"x" * 11)
    assert read_bounded(path, 11) == b"x" * 11
    with pytest.raises(DamagedFile, match="is 11 bytes, more than the 10 such a file may hold"):
        read_bounded(path, 10)


def test_iter_jsonl_keeps_the_good_rows_around_every_kind_of_bad_line(tmp_path, monkeypatch):
    monkeypatch.setattr(fileio, "MAX_JSONL_LINE", 64)
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(b'{"step": 1}\n\xff\xfe\n{"step": 2, "x": "\xff"}\n[1]\n7\n\n\x00\x00\n'
                     b'{"step": 3, "pad": "' + b"y" * 200 + b'"}\n{"step": 4}\n{"step": 5, "cu')
    assert fileio.read_jsonl(path) == [{"step": 1}, {"step": 4}]
    assert fileio.read_jsonl(tmp_path / "missing.jsonl") == []


def test_iter_jsonl_on_a_fifo_or_a_folder_is_damage_not_a_hang(tmp_path):
    os.mkfifo(tmp_path / "fifo.jsonl")
    (tmp_path / "dir.jsonl").mkdir()
    for name in ("fifo.jsonl", "dir.jsonl"):
        with pytest.raises(DamagedFile, match=f"{name}: is a"):
            fileio.read_jsonl(tmp_path / name)


# ------------------------------------------------------------------- files written in place
def _victim(tmp_path):
    victim = tmp_path / "elsewhere.txt"
    victim.write_text("precious data\n")
    return victim


def test_append_jsonl_refuses_a_link_and_leaves_its_target_alone(tmp_path):
    victim = _victim(tmp_path)
    path = tmp_path / "metrics.jsonl"
    path.symlink_to(victim)
    with pytest.raises(DamagedFile) as caught:
        fileio.append_jsonl(path, {"step": 1})
    assert str(caught.value) == f"{path}: {fileio.LINKED}; delete the link and re-run the same command"
    assert victim.read_text() == "precious data\n"


def test_append_jsonl_on_a_fifo_is_damage_not_a_hang(tmp_path):
    os.mkfifo(tmp_path / "metrics.jsonl")
    with pytest.raises(DamagedFile, match="metrics.jsonl: is a FIFO"):
        fileio.append_jsonl(tmp_path / "metrics.jsonl", {"step": 1})


def test_a_folder_lock_refuses_a_link_and_leaves_its_target_alone(tmp_path):
    victim = _victim(tmp_path)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / ".lock").symlink_to(victim)
    lock = FolderLock(tmp_path / "run")
    with pytest.raises(DamagedFile, match=r"run/\.lock: is a symbolic link, .*; delete the link"):
        lock.acquire()
    assert victim.read_text() == "precious data\n"
    (tmp_path / "run" / ".lock").unlink()
    assert lock.acquire() and lock.holder() == str(os.getpid())  # the remedy works
    lock.release()


def test_refuse_link_names_a_linked_folder(tmp_path):
    (tmp_path / "checkpoint").symlink_to(tmp_path, target_is_directory=True)
    assert fileio.refuse_link(tmp_path) == tmp_path
    with pytest.raises(DamagedFile, match="checkpoint: is a symbolic link, .*replace the link with a real"):
        fileio.refuse_link(tmp_path / "checkpoint")


def test_read_jsonl_counted_counts_what_iter_jsonl_skips(tmp_path):
    from searchgym.fileio import read_jsonl, read_jsonl_counted

    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'{"a": 1}\n\n[1, 2]\n{"a": \xff}\n{"a": 2}\n{"cut": ')
    assert read_jsonl_counted(path) == ([{"a": 1}, {"a": 2}], 3)  # a list, not UTF-8, cut; the blank line is none
    assert read_jsonl(path) == [{"a": 1}, {"a": 2}]
    with pytest.raises(FileNotFoundError):
        read_jsonl_counted(tmp_path / "missing.jsonl")
