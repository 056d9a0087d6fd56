"""An on-disk cache of generated worlds: a process loads a big world instead of generating it again.

The harness's spawned workers, and every later run, each used to generate their own copy of the
world; at 100k pages that is seconds of CPU per process, and minutes at a million. A cached world
is a pickle whose file name is a key hashing everything generation depends on: the seed, the
normalised size, the knobs, the numpy and Python versions and the source of the generator's
modules, so editing the generator never serves a stale world. The file starts with the SHA-256 of
its payload, checked on every load: a truncated or corrupted file is regenerated, never trusted.
Writes go to a temporary file renamed into place (atomic), under a file lock, so concurrent
workers generate a world once and the others wait for it and load it.

``SEARCHGYM_WORLD_CACHE`` chooses the directory (default ``$XDG_CACHE_HOME/searchgym/worlds``,
else ``~/.cache/searchgym/worlds``); ``off`` disables the cache. Worlds below
:data:`MIN_CACHED_SCALE` are generated in well under a second and are never written.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import pickle
import platform
import tempfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from searchgym.world.families import families_key
from searchgym.world.generate import _no_cyclic_gc, generate_world, resolve_size
from searchgym.world.world import World

ENV_VAR = "SEARCHGYM_WORLD_CACHE"
#: Smallest scale worth caching (1,000 cities is about 16k pages and about 1.5 s to generate).
MIN_CACHED_SCALE = 1000
#: How long a process waits for another one generating the same world before generating it too.
LOCK_TIMEOUT_S = 1800.0
_MAGIC = b"searchgym-world-cache-v1\n"
_GENERATOR_MODULES = (
    "searchgym.world.generate", "searchgym.world.names", "searchgym.world.corpus", "searchgym.world.tasks",
    "searchgym.world.schema", "searchgym.world.model", "searchgym.world.world", "searchgym.world.mentions",
    "searchgym.world.shortcuts",
)
_log = logging.getLogger(__name__)


def default_cache_dir() -> Path | None:
    """The cache directory from ``SEARCHGYM_WORLD_CACHE`` (None when it says ``off``)."""
    chosen = os.environ.get(ENV_VAR)
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "0", "off", "false", "no") else Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "searchgym" / "worlds"


def _generator_digest() -> str:
    digest = hashlib.sha256()
    for name in _GENERATOR_MODULES:
        digest.update(Path(importlib.import_module(name).__file__ or "").read_bytes())
    return digest.hexdigest()


def cache_key(seed: int, size: str | int, knobs: Mapping[str, object]) -> str:
    """A hash of everything the world for (seed, size, knobs) depends on, code included."""
    label, scale = resolve_size(size)
    payload = {
        "seed": seed, "label": label, "scale": scale, "knobs": {k: repr(v) for k, v in sorted(knobs.items())},
        "numpy": np.__version__, "python": platform.python_version(), "generator": _generator_digest(),
        "families": list(families_key()),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def cache_path(directory: Path, seed: int, size: str | int, knobs: Mapping[str, object]) -> Path:
    label, _ = resolve_size(size)
    return directory / f"world-{seed}-{label}-{cache_key(seed, size, knobs)[:20]}.pickle"


def read_cached(path: Path) -> World | None:
    """The world stored at ``path``, or None when it is missing, truncated or corrupted."""
    try:
        blob = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        _log.warning("cannot read cached world %s (%s); generating it", path, error)
        return None
    header_end = len(_MAGIC) + 65
    expected = blob[len(_MAGIC) : header_end - 1].decode("ascii", "replace")
    payload = blob[header_end:]
    if not blob.startswith(_MAGIC) or hashlib.sha256(payload).hexdigest() != expected:
        _log.warning("cached world %s fails its content hash (truncated or corrupted); regenerating it", path)
        return None
    with _no_cyclic_gc():  # millions of acyclic objects: the collector would only slow the load
        world = pickle.loads(payload)
    return world if isinstance(world, World) else None


def write_cached(path: Path, world: World) -> bool:
    """Store ``world`` at ``path`` atomically (temporary file, then rename); False if that failed."""
    payload = pickle.dumps(world, protocol=pickle.HIGHEST_PROTOCOL)
    header = _MAGIC + hashlib.sha256(payload).hexdigest().encode("ascii") + b"\n"
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".part")
        with os.fdopen(handle, "wb") as out:
            out.write(header)
            out.write(payload)
        os.replace(temporary, path)
        return True
    except OSError as error:
        _log.warning("cannot write the world cache %s (%s); continuing without it", path, error)
        if temporary is not None and os.path.exists(temporary):
            os.unlink(temporary)
        return False


def load_or_generate(seed: int, size: str | int, directory: Path | None = None, **knobs: object) -> World:
    """The world for (seed, size, knobs): from the cache when stored there, else generated (and stored).

    ``directory`` None uses :func:`default_cache_dir`; worlds below :data:`MIN_CACHED_SCALE`
    and a disabled cache always generate. A process that finds another one generating the same
    world waits for it (a file lock) and loads its result.
    """
    _, scale = resolve_size(size)
    directory = directory if directory is not None else default_cache_dir()
    if directory is None or scale < MIN_CACHED_SCALE:
        return generate_world(seed, size, **knobs)
    path = cache_path(directory, seed, size, knobs)
    world = read_cached(path)
    if world is not None:
        return world
    from filelock import FileLock, Timeout

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(f"{path}.lock", timeout=LOCK_TIMEOUT_S):
            world = read_cached(path)  # another process may have stored it while we waited
            if world is None:
                world = generate_world(seed, size, **knobs)
                write_cached(path, world)
            return world
    except (OSError, Timeout) as error:
        _log.warning("world cache %s unusable (%s); generating without it", path, error)
        return generate_world(seed, size, **knobs)
