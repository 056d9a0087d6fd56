"""The world cache's part files: a stopped write removes its own, and a killed writer's is removed by
the next process that holds the key's lock; a live writer's never is.

Before: the write removed its part file only on OSError, so Ctrl-C or SIGTERM left it, and after a
SIGKILL an 11 MB ``.part`` (scale 1,000) stayed beside the stored world for good; its name ran the
random part into the file's (``...pickle0_aapy4c.part``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from searchgym.world import cache_parts, disk_cache
from searchgym.world.disk_cache import cache_identity, cache_path, load_or_generate, write_cached
from searchgym.world.generate import generate_world

_KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
from searchgym.world import disk_cache
disk_cache.MIN_CACHED_SCALE = 0
os.replace = lambda *args: os.kill(os.getpid(), signal.SIGKILL)  # killed between the write and the rename
disk_cache.load_or_generate(0, "tiny", Path(sys.argv[1]))
"""


@pytest.fixture
def cache_everything(monkeypatch):
    monkeypatch.setattr(disk_cache, "MIN_CACHED_SCALE", 0)


def _parts(folder) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(".part"))


def _killed_while_writing(folder) -> str:
    """A part file left by a writer killed with SIGKILL (its name)."""
    process = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(folder)], capture_output=True, timeout=120)
    assert process.returncode == -9, process.stderr
    [left] = _parts(folder)
    return left


@pytest.mark.parametrize("stop", [KeyboardInterrupt, SystemExit])
def test_a_write_stopped_by_any_exception_removes_its_part_file(tmp_path, cache_everything, monkeypatch, stop):
    path = cache_path(tmp_path, 0, "tiny", {})
    renamed = []

    def stopped(source, target):
        renamed.append(os.path.basename(source))
        raise stop

    monkeypatch.setattr(disk_cache.os, "replace", stopped)
    with pytest.raises(stop):
        load_or_generate(0, "tiny", tmp_path)
    assert _parts(tmp_path) == [] and not path.exists()
    # the random part is set off from the file's name, after its writer (this kernel, this process)
    assert re.fullmatch(rf"{re.escape(path.name)}\.[0-9a-f]{{8}}-{os.getpid()}\.[a-z0-9_]{{8}}\.part", renamed[0])


def test_a_killed_writers_part_file_is_removed_by_the_next_load(tmp_path, cache_everything):
    left = _killed_while_writing(tmp_path)
    assert (tmp_path / left).stat().st_size > 0
    world = load_or_generate(0, "tiny", tmp_path)
    assert _parts(tmp_path) == []
    assert world.fingerprint == generate_world(0, "tiny").fingerprint
    assert cache_path(tmp_path, 0, "tiny", {}).is_file()


def test_a_killed_writers_part_file_beside_a_stored_world_is_removed_on_a_hit(tmp_path, cache_everything):
    left = _killed_while_writing(tmp_path)
    world = generate_world(0, "tiny")
    assert write_cached(cache_path(tmp_path, 0, "tiny", {}), world, cache_identity(0, "tiny", {}))
    assert left in _parts(tmp_path)  # stored beside it (as by an earlier version), not yet tidied
    assert load_or_generate(0, "tiny", tmp_path).fingerprint == world.fingerprint
    assert _parts(tmp_path) == []


def test_only_part_files_of_dead_or_long_silent_writers_are_removed(tmp_path, cache_everything):
    name = cache_path(tmp_path, 0, "tiny", {}).name
    here, elsewhere = cache_parts.host_id(), "0" * 8 if cache_parts.host_id() != "0" * 8 else "1" * 8
    kept = [f"{name}.{here}-{os.getpid()}.abcd1234.part",  # a live writer on this machine (this process)
            f"{name}.{elsewhere}-1.abcd1234.part",  # another machine's writer, writing now
            f"{name}abcd1234.part",  # an earlier version's, fresh: its writer is unknown
            f"world-1-tiny-0123456789abcdef0123.pickle.{elsewhere}-1.abcd1234.part"]  # another world's, old
    silent = [f"{name}.{elsewhere}-1.old12345.part", f"{name}old12345.part"]  # untouched for two hours
    hours_ago = time.time() - 2 * 3600
    for part in kept + silent:
        (tmp_path / part).write_bytes(b"partial")
    for part in (*silent, kept[-1]):
        os.utime(tmp_path / part, (hours_ago, hours_ago))
    load_or_generate(0, "tiny", tmp_path)
    assert _parts(tmp_path) == sorted(kept)


def test_a_link_named_as_a_part_file_is_left_alone(tmp_path, cache_everything):
    target = tmp_path / "elsewhere"
    target.write_text("not the cache's")
    name = cache_path(tmp_path, 0, "tiny", {}).name
    hours_ago = time.time() - 2 * 3600
    link = tmp_path / f"{name}old12345.part"
    link.symlink_to(target)
    os.utime(link, (hours_ago, hours_ago), follow_symlinks=False)
    load_or_generate(0, "tiny", tmp_path)
    assert link.is_symlink() and target.read_text() == "not the cache's"
