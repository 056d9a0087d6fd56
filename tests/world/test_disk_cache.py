"""The on-disk world cache: stored once, loaded identical, never trusted when corrupted, shared by processes."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from searchgym.world import disk_cache, shared_world
from searchgym.world.disk_cache import cache_path, default_cache_dir, load_or_generate
from searchgym.world.generate import generate_world


@pytest.fixture
def cache_everything(monkeypatch):
    monkeypatch.setattr(disk_cache, "MIN_CACHED_SCALE", 0)


def _forbid_generation(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the world should have come from the cache")

    monkeypatch.setattr(disk_cache, "generate_world", refuse)


def test_a_stored_world_loads_identical_without_generating(tmp_path, cache_everything, monkeypatch):
    first = load_or_generate(2, "tiny", tmp_path)
    stored = list(tmp_path.glob("world-2-tiny-*.pickle"))
    assert len(stored) == 1 and stored[0] == cache_path(tmp_path, 2, "tiny", {})
    _forbid_generation(monkeypatch)
    again = load_or_generate(2, 8, tmp_path)  # 8 is "tiny": the same file
    assert again is not first and again.fingerprint == first.fingerprint


def test_the_key_separates_seed_size_knobs_and_generator_code(tmp_path, monkeypatch):
    paths = {cache_path(tmp_path, 0, "tiny", {}), cache_path(tmp_path, 1, "tiny", {}),
             cache_path(tmp_path, 0, "small", {}), cache_path(tmp_path, 0, "tiny", {"bridge_shortcut_rate": 0.5})}
    assert len(paths) == 4
    before = cache_path(tmp_path, 0, "tiny", {})
    monkeypatch.setattr(disk_cache, "_generator_digest", lambda: "edited generator")
    assert cache_path(tmp_path, 0, "tiny", {}) != before


@pytest.mark.parametrize("damage", ["truncate", "flip", "foreign"])
def test_a_damaged_file_is_regenerated_not_trusted(tmp_path, cache_everything, caplog, damage):
    world = load_or_generate(0, "tiny", tmp_path)
    path = cache_path(tmp_path, 0, "tiny", {})
    blob = path.read_bytes()
    damaged = {"truncate": blob[: len(blob) // 2], "flip": blob[:-10] + bytes(10), "foreign": b"not a world"}[damage]
    path.write_bytes(damaged)
    with caplog.at_level(logging.WARNING):
        again = load_or_generate(0, "tiny", tmp_path)
    assert again.fingerprint == world.fingerprint
    assert {"truncate": "cut or extended", "flip": "content hash", "foreign": "not a world cache file"}[damage] in caplog.text
    assert "regenerating it" in caplog.text
    assert path.read_bytes() == blob  # rewritten whole


def test_an_unwritable_cache_still_gives_the_world(tmp_path, cache_everything, caplog):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with caplog.at_level(logging.WARNING):
        world = load_or_generate(0, "tiny", blocker / "worlds")
    assert world.fingerprint == generate_world(0, "tiny").fingerprint
    assert "generating without it" in caplog.text


def test_small_worlds_and_a_disabled_cache_write_nothing(tmp_path, monkeypatch):
    load_or_generate(0, "tiny", tmp_path)  # below MIN_CACHED_SCALE
    assert not list(tmp_path.iterdir())
    monkeypatch.setenv(disk_cache.ENV_VAR, "off")
    assert default_cache_dir() is None
    monkeypatch.setenv(disk_cache.ENV_VAR, str(tmp_path / "here"))
    assert default_cache_dir() == tmp_path / "here"


def test_shared_world_normalises_its_key():
    assert shared_world(0, "tiny") is shared_world(0, 8)
    with pytest.raises(TypeError, match="no_such_knob"):
        shared_world(0, "tiny", no_such_knob=1)


_WORKER = """
import sys
from pathlib import Path
from searchgym.world import disk_cache
disk_cache.MIN_CACHED_SCALE = 0
made = []
real = disk_cache.generate_world
disk_cache.generate_world = lambda *a, **k: made.append(1) or real(*a, **k)
world = disk_cache.load_or_generate(4, "small", Path(sys.argv[1]))
print(len(made), world.fingerprint)
"""


def test_concurrent_processes_generate_a_world_once(tmp_path):
    workers = [subprocess.Popen([sys.executable, "-c", _WORKER, str(tmp_path)], stdout=subprocess.PIPE, text=True)
               for _ in range(2)]
    outputs = [w.communicate(timeout=120)[0].split() for w in workers]
    assert all(w.returncode == 0 for w in workers)
    assert sorted(int(made) for made, _ in outputs) == [0, 1]
    assert outputs[0][1] == outputs[1][1]
