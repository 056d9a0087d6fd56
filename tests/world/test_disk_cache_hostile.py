"""The world cache under attack: files copied over another world's name, damaged in every way, or
crafted to run code are regenerated with a warning; the right world always comes back, nothing runs,
nothing hangs."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import pickle
import shutil

import pytest

from searchgym.world import disk_cache
from searchgym.world.disk_cache import _MAGIC, _canonical, _digest, cache_identity, cache_path, load_or_generate
from searchgym.world.generate import generate_world

pytestmark = pytest.mark.timeout(120)  # a FIFO or /dev/zero that hangs the reader fails, never stalls the suite


@pytest.fixture(autouse=True)
def cache_everything(monkeypatch):
    monkeypatch.setattr(disk_cache, "MIN_CACHED_SCALE", 0)


@pytest.fixture(scope="module")
def fingerprints():
    return {(seed, rate): generate_world(seed, "tiny", bridge_shortcut_rate=rate).fingerprint
            for seed in (0, 1, 2) for rate in (0.0, 0.5)}


def _load(tmp_path, caplog, seed=0, **knobs):
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger=disk_cache.__name__):
        return load_or_generate(seed, "tiny", tmp_path, **knobs)


def _forge(identity, payload: bytes, **header) -> bytes:
    """A cache file with a valid key and hash around ``payload`` (what an attacker can write)."""
    fields = {"key": json.loads(_canonical(identity)), "bytes": len(payload), "sha256": _digest(identity, payload)}
    fields.update(header)
    return _MAGIC + json.dumps(fields).encode() + b"\n" + payload


# ------------------------------------------------------------------------- wrong worlds
WRONG = [  # (the world stored, the world asked for): seed, knobs
    ((1, {}), (0, {})), ((0, {}), (1, {})), ((2, {}), (0, {})), ((0, {}), (2, {})),
    ((0, {"bridge_shortcut_rate": 0.5}), (0, {})), ((0, {}), (0, {"bridge_shortcut_rate": 0.5})),
    ((1, {"bridge_shortcut_rate": 0.5}), (0, {})), ((2, {}), (1, {"bridge_shortcut_rate": 0.5})),
]


@pytest.mark.parametrize(("stored", "wanted"), WRONG)
def test_a_file_copied_over_another_worlds_name_is_never_served(tmp_path, caplog, fingerprints, stored, wanted):
    (stored_seed, stored_knobs), (seed, knobs) = stored, wanted
    load_or_generate(stored_seed, "tiny", tmp_path, **stored_knobs)
    source = cache_path(tmp_path, stored_seed, "tiny", stored_knobs)
    target = cache_path(tmp_path, seed, "tiny", knobs)
    shutil.copyfile(source, target)
    world = _load(tmp_path, caplog, seed, **knobs)
    assert world.fingerprint == fingerprints[(seed, knobs.get("bridge_shortcut_rate", 0.0))]
    assert "holds another world" in caplog.text and "regenerating it" in caplog.text
    assert _load(tmp_path, caplog, seed, **knobs).fingerprint == world.fingerprint and not caplog.text  # rewritten


@pytest.mark.parametrize("seed", [1, 2])
def test_a_forged_header_over_another_worlds_pickle_is_caught_by_the_worlds_own_seed(tmp_path, caplog,
                                                                                     fingerprints, seed):
    identity = cache_identity(0, "tiny", {})
    payload = pickle.dumps(generate_world(seed, "tiny"), protocol=pickle.HIGHEST_PROTOCOL)
    cache_path(tmp_path, 0, "tiny", {}).write_bytes(_forge(identity, payload))
    assert _load(tmp_path, caplog).fingerprint == fingerprints[(0, 0.0)]
    assert "holds another world than its key says" in caplog.text


def test_a_file_of_another_searchgym_version_is_regenerated(tmp_path, caplog, fingerprints, monkeypatch):
    load_or_generate(0, "tiny", tmp_path)
    old = cache_path(tmp_path, 0, "tiny", {})
    monkeypatch.setattr(disk_cache, "_package_version", lambda: "9.9.9")
    new = cache_path(tmp_path, 0, "tiny", {})
    assert new != old  # the version is in the key, so in the name
    shutil.copyfile(old, new)  # and a file renamed to it still says which version wrote it
    assert _load(tmp_path, caplog).fingerprint == fingerprints[(0, 0.0)]
    assert "holds another world" in caplog.text


# -------------------------------------------------------------------------- code in it
class _RunsCode:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class _RunsCodeInside:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):  # a World-shaped call whose argument runs code first
        return (eval, (f"__import__('pathlib').Path({str(self.marker)!r}).touch()",))


@pytest.mark.parametrize("payload_of", [
    lambda m: pickle.dumps(_RunsCode(m)),
    lambda m: pickle.dumps(_RunsCode(m), protocol=0),
    lambda m: pickle.dumps([1, {"x": _RunsCode(m)}]),
    lambda m: pickle.dumps(_RunsCodeInside(m)),
    lambda m: pickle.dumps({"world": _RunsCodeInside(m)}, protocol=2),
])
def test_a_pickle_that_runs_code_with_a_valid_key_and_hash_never_runs(tmp_path, caplog, fingerprints, payload_of):
    marker = tmp_path / "pwned"
    cache = tmp_path / "cache"
    cache.mkdir()
    cache_path(cache, 0, "tiny", {}).write_bytes(_forge(cache_identity(0, "tiny", {}), payload_of(marker)))
    world = _load(cache, caplog)
    assert not marker.exists()
    assert world.fingerprint == fingerprints[(0, 0.0)]
    assert "does not load" in caplog.text and "is not part of a world" in caplog.text


# ---------------------------------------------------------------------- damaged files
def _stored(tmp_path):
    load_or_generate(0, "tiny", tmp_path)
    path = cache_path(tmp_path, 0, "tiny", {})
    return path, path.read_bytes()


def _header_end(blob: bytes) -> int:
    return blob.index(b"\n", len(_MAGIC)) + 1


BYTE_DAMAGE = {  # name -> (blob -> damaged blob, the words of the warning)
    "empty": (lambda b: b"", "not a world cache file"),
    "garbage": (lambda b: bytes(range(256)) * 40, "not a world cache file"),
    "one byte": (lambda b: b[:1], "not a world cache file"),
    "magic only": (lambda b: b[:len(_MAGIC)], "damaged header"),
    "magic cut": (lambda b: b[:len(_MAGIC) - 3], "not a world cache file"),
    "header cut": (lambda b: b[:len(_MAGIC) + 20], "damaged header"),
    "header only": (lambda b: b[:_header_end(b)], "cut or extended"),
    "payload cut by one": (lambda b: b[:-1], "cut or extended"),
    "payload halved": (lambda b: b[:_header_end(b) + (len(b) - _header_end(b)) // 2], "cut or extended"),
    "payload extended": (lambda b: b + b"more", "cut or extended"),
    "payload flipped": (lambda b: b[:-5] + bytes(x ^ 0xFF for x in b[-5:]), "content hash"),
    "payload zeroed": (lambda b: b[:_header_end(b)] + bytes(len(b) - _header_end(b)), "content hash"),
    "hash edited": (lambda b: b.replace(b'"sha256": "', b'"sha256": "0', 1), "content hash"),
    "header not json": (lambda b: _MAGIC + b"{nope\n" + b[_header_end(b):], "damaged header"),
    "header a list": (lambda b: _MAGIC + b"[1, 2]\n" + b[_header_end(b):], "damaged header"),
    "header not utf-8": (lambda b: _MAGIC + b"\xff\xfe\n" + b[_header_end(b):], "damaged header"),
    "header bytes a string": (lambda b: b.replace(b'"bytes": ', b'"bytes": "', 1), "damaged header"),
    "older format": (lambda b: b"searchgym-world-cache-v1\n" + b[_header_end(b):], "not a world cache file"),
    "no newline": (lambda b: _MAGIC + b"x" * (70 * 1024), "damaged header"),
}


@pytest.mark.parametrize("damage", sorted(BYTE_DAMAGE))
def test_a_damaged_file_is_regenerated_with_a_warning(tmp_path, caplog, fingerprints, damage):
    path, blob = _stored(tmp_path)
    change, words = BYTE_DAMAGE[damage]
    path.write_bytes(change(blob))
    assert _load(tmp_path, caplog).fingerprint == fingerprints[(0, 0.0)]
    assert words in caplog.text and "regenerating it" in caplog.text and str(path) in caplog.text
    assert caplog.text.count("regenerating it") == 1  # before: read again under the lock, and warned twice
    assert path.read_bytes() == blob  # written again, whole


@pytest.mark.parametrize(("payload", "words"), [
    (b"\x80\x05not a pickle", "does not load"),
    (b"random bytes that are no pickle at all", "does not load"),
    (pickle.dumps({"seed": 0}), "holds another world"),
    (pickle.dumps(None), "holds another world"),
    (pickle.dumps(("searchgym", 0)), "holds another world"),
    (pickle.dumps(b"x" * 1000)[:-1], "does not load"),  # cut inside the pickle, hash over the cut bytes
])
def test_a_valid_hash_over_a_payload_that_is_not_a_world_regenerates(tmp_path, caplog, fingerprints, payload, words):
    cache_path(tmp_path, 0, "tiny", {}).write_bytes(_forge(cache_identity(0, "tiny", {}), payload))
    assert _load(tmp_path, caplog).fingerprint == fingerprints[(0, 0.0)]
    assert words in caplog.text


def _hollow(part: str):
    """A World of seed 0 whose ``part`` is missing (or, for pages and tasks, one item's fields)."""
    from searchgym.world.world import World

    world = generate_world(0, "tiny")
    state = dict(vars(world))
    if part == "everything":
        state = {}
    elif part == "a page's sentences":
        page = object.__new__(type(world.pages[0]))
        vars(page).update({k: v for k, v in vars(world.pages[0]).items() if k != "sentences"})
        state["pages"] = (page, *world.pages[1:])
    elif part == "a hop's fact_id":
        task = world.tasks[0]
        hop = object.__new__(type(task.evidence[0]))
        vars(hop).update({k: v for k, v in vars(task.evidence[0]).items() if k != "fact_id"})
        state["tasks"] = (dataclasses.replace(task, evidence=(hop,)), *world.tasks[1:])
    elif part == "tasks a number":
        state["tasks"] = 5
    else:
        del state[part]
    hollow = object.__new__(World)
    vars(hollow).update(state)
    return pickle.dumps(hollow, protocol=pickle.HIGHEST_PROTOCOL)


@pytest.mark.parametrize(("part", "words"), [
    ("everything", "its 'seed' is missing"), ("tasks", "its 'tasks' is missing"), ("size", "its 'size' is missing"),
    ("tasks a number", "its 'tasks' is int"), ("a page's sentences", "one of its pages is not a whole Page"),
    ("a hop's fact_id", "one of its tasks is not a whole Task"),
])
def test_a_world_pickled_without_its_fields_regenerates(tmp_path, caplog, fingerprints, part, words):
    # Before: AttributeError: 'World' object has no attribute 'seed' (or 'tasks', later in the run)
    path = cache_path(tmp_path, 0, "tiny", {})
    path.write_bytes(_forge(cache_identity(0, "tiny", {}), _hollow(part)))
    assert _load(tmp_path, caplog).fingerprint == fingerprints[(0, 0.0)]
    assert "is not a whole world" in caplog.text and words in caplog.text and "regenerating it" in caplog.text
    assert _load(tmp_path, caplog).fingerprint == fingerprints[(0, 0.0)] and not caplog.text  # rewritten whole


@pytest.mark.parametrize("declared", [0, -1, 10**15])
def test_a_header_declaring_an_impossible_size_regenerates(tmp_path, caplog, fingerprints, declared):
    cache_path(tmp_path, 0, "tiny", {}).write_bytes(_forge(cache_identity(0, "tiny", {}), b"x", bytes=declared))
    assert _load(tmp_path, caplog).fingerprint == fingerprints[(0, 0.0)]
    assert "declares a payload" in caplog.text


def test_a_huge_file_is_refused_before_it_is_read(tmp_path, caplog, fingerprints, monkeypatch):
    monkeypatch.setattr(disk_cache, "max_cache_bytes", lambda scale: 1000)
    path = cache_path(tmp_path, 0, "tiny", {})
    with open(path, "wb") as f:
        f.truncate(10**12)  # a sparse terabyte
    assert _load(tmp_path, caplog).fingerprint == fingerprints[(0, 0.0)]
    assert "more than the" in caplog.text


@pytest.mark.parametrize("kind", ["/dev/zero", "/dev/urandom", "/dev/null", "fifo", "folder", "dangling link",
                                  "link to a folder", "link loop"])
def test_what_is_not_a_regular_file_regenerates_without_hanging(tmp_path, caplog, fingerprints, kind):
    path = cache_path(tmp_path, 0, "tiny", {})
    if kind.startswith("/dev/"):
        path.symlink_to(kind)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "dangling link":
        path.symlink_to(tmp_path / "nowhere")
    elif kind == "link to a folder":
        (tmp_path / "elsewhere").mkdir()
        path.symlink_to(tmp_path / "elsewhere")
    else:
        path.symlink_to(path)
    world = _load(tmp_path, caplog)
    assert world.fingerprint == fingerprints[(0, 0.0)]
    if kind != "dangling link":  # a dangling link is a missing file: generated and stored, no warning needed
        assert "regenerating it" in caplog.text and str(path) in caplog.text
    if kind != "folder":  # the stored world replaces what was there (a link, not its target)
        assert not path.is_symlink() and path.is_file()
        assert _load(tmp_path, caplog).fingerprint == world.fingerprint and not caplog.text


def test_the_structure_check_knows_every_field_of_a_world():
    """The cache's list of a World's fields is written out (with the type each must hold): a field added
    to World must be added there too, or a cached world would be checked without it."""
    import dataclasses

    from searchgym.world.disk_cache import _WORLD_FIELD_TYPES
    from searchgym.world.world import World

    assert set(_WORLD_FIELD_TYPES) == {f.name for f in dataclasses.fields(World)}
