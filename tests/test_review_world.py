"""Worlds a user builds: a clock that is no date is refused where it is given, and a cached world
is a file every user of a shared cache folder can read."""

from __future__ import annotations

import datetime as dt
import json
import os

import pytest

from searchgym.world import world_from_files
from searchgym.world.disk_cache import cache_identity, cache_path, read_cached, write_cached
from searchgym.world.generate import generate_world


@pytest.mark.parametrize("now", ["2020-01-01", 2020, dt.time(12)])
def test_world_from_files_refuses_a_clock_that_is_no_date(tmp_path, now) -> None:
    """Before: taken, and `searchgym.make("SearchQA-v0", world=...)` then failed in the clock tool with
    "CurrentTime needs a datetime.date, got str ... was raised from the environment creator" and the
    whole world's repr."""
    corpus, tasks = tmp_path / "corpus.jsonl", tmp_path / "tasks.jsonl"
    corpus.write_text(json.dumps({"id": "d1", "title": "Alpha", "text": "Alpha is red."}) + "\n")
    tasks.write_text(json.dumps({"id": "q1", "question": "What colour is Alpha?", "answers": ["red"]}) + "\n")
    with pytest.raises(TypeError, match=r"^now must be a datetime\.date \(the world's clock, e\.g\. "
                                        r"datetime\.date\(2024, 5, 1\)\) or None for 2030-01-01, got "):
        world_from_files(corpus, tasks, now=now)
    assert world_from_files(corpus, tasks, now=dt.date(2024, 5, 1)).now == dt.date(2024, 5, 1)
    assert world_from_files(corpus, tasks).now == dt.date(2030, 1, 1)


def test_a_cached_world_is_readable_as_the_umask_allows(tmp_path) -> None:
    """Before: 0o600 whatever the umask (mkstemp's mode, kept by the rename), so in a cache folder
    shared by several users only the writer could load the world; the others regenerated it."""
    world = generate_world(0, "tiny")
    identity = cache_identity(0, "tiny", {})
    path = cache_path(tmp_path, 0, "tiny", {})
    previous = os.umask(0o022)
    try:
        assert write_cached(path, world, identity)
    finally:
        os.umask(previous)
    assert path.stat().st_mode & 0o777 == 0o644
    assert read_cached(path, identity).fingerprint == world.fingerprint
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left


def test_a_misspelled_world_knob_names_the_accepted_ones() -> None:
    """Before: "generate_world() got an unexpected keyword argument 'bridge_shortcut'" (no word of
    which knobs there are), and only once the world was being built."""
    from searchgym.world import shared_world

    with pytest.raises(TypeError, match=r"^unknown world knob\(s\) \['bridge_shortcut'\]; accepted: "
                                        r"bridge_shortcut_rate$"):
        shared_world(0, "tiny", bridge_shortcut=0.1)
    assert shared_world(0, "tiny", bridge_shortcut_rate=0.0) is shared_world(0, "tiny")
