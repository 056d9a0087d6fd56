"""An on-disk cache of generated worlds: a process loads a big world instead of generating it again.

The harness's spawned workers, and every later run, each used to generate their own copy of the
world; at 100k pages that is seconds of CPU per process, and minutes at a million. A cached world
is a pickle whose file name carries a hash of its key: everything generation depends on (the
seed, the normalised size, the knobs, the searchgym, numpy and Python versions and the source of
the generator's modules), so editing the generator never serves a stale world. A world with a
task family whose builder is code outside those modules (a family in a module of its own) is
never stored or served: the key could not tell an edited builder from the old one.

Cache folders are shared and synced, so a file there is never trusted: it must be a regular file
(a FIFO, a folder or a link to a device is refused before reading) of bounded size, its header
must hold this world's key (a file copied over another world's name is refused), and the SHA-256
of key and payload must match. Only then is the payload unpickled, by an unpickler that knows the
world's classes and nothing else, and the world's fields, seed and size are checked once more. Anything
else is regenerated with a warning. Writes go to a temporary file renamed into place (atomic),
under a file lock, so concurrent workers generate a world once and the others wait for it.

``SEARCHGYM_WORLD_CACHE`` chooses the directory (default ``$XDG_CACHE_HOME/searchgym/worlds`` when
that is an absolute path, else ``~/.cache/searchgym/worlds`` when the home folder exists); ``off``
disables the cache. Worlds below :data:`MIN_CACHED_SCALE` are generated in well under a second and
are never written. A cache that cannot be used (no home folder, a file or a broken link where its
folder belongs, no room) is one warning, and the world is generated.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import importlib
import importlib.metadata
import io
import json
import logging
import os
import pickle
import platform
import tempfile
import types
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from searchgym.damaged import DamagedFile, open_regular
from searchgym.fileio import _umask, not_a_folder
from searchgym.world.cache_parts import part_files, part_prefix, remove_stale_parts
from searchgym.world.families import FAMILY_REGISTRY, families_key
from searchgym.world.generate import _no_cyclic_gc, generate_world, resolve_size
from searchgym.world.model import Entity, EvidenceHop, Fact, Page, Sentence, Task
from searchgym.world.world import World

ENV_VAR = "SEARCHGYM_WORLD_CACHE"
#: Smallest scale worth caching (1,000 cities is about 16k pages and about 1.5 s to generate).
MIN_CACHED_SCALE = 1000
#: How long a process waits for another one generating the same world before generating it too.
LOCK_TIMEOUT_S = 1800.0
_MAGIC = b"searchgym-world-cache-v2\n"
#: Longest header line (the key and the hash: about a kilobyte).
_HEADER_LIMIT = 64 * 1024
#: The only classes a cached world's pickle may name.
_WORLD_CLASSES = frozenset({("searchgym.world.world", "World"), ("datetime", "date"),
                            *(("searchgym.world.model", name) for name in
                              ("Entity", "Fact", "Sentence", "Page", "EvidenceHop", "Task", "WorldStats"))})
_GENERATOR_MODULES = (
    "searchgym.world.generate", "searchgym.world.names", "searchgym.world.corpus", "searchgym.world.tasks",
    "searchgym.world.schema", "searchgym.world.model", "searchgym.world.world", "searchgym.world.mentions",
    "searchgym.world.shortcuts",
)
_log = logging.getLogger(__name__)


class NoHomeFolder(RuntimeError):
    """The default cache folder is under a home folder that is unknown or missing (containers)."""


def default_cache_dir() -> Path | None:
    """The cache directory from ``SEARCHGYM_WORLD_CACHE`` (None when it says ``off``), else the default;
    :class:`NoHomeFolder` when that lies in a home folder there is none of. Why: with HOME unset and
    no passwd entry, loading any world ended in "RuntimeError: Could not determine home directory.",
    and with HOME=/nonexistent the cache made /nonexistent/.cache/searchgym/worlds. A relative
    ``XDG_CACHE_HOME`` is ignored, as the XDG Base Directory spec says (it made a cache folder under
    whatever folder a command was run from)."""
    chosen = os.environ.get(ENV_VAR)
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "0", "off", "false", "no") else Path(_expanded(chosen))
    xdg_cache = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg_cache):
        return Path(xdg_cache) / "searchgym" / "worlds"
    home = _expanded("~")
    if not os.path.isdir(home):
        raise NoHomeFolder(f"the home folder {home} does not exist, and no cache is made in a missing home; "
                           f"set {ENV_VAR} to a folder, or to off")
    return Path(home) / ".cache" / "searchgym" / "worlds"


def _expanded(text: str) -> str:
    """``text`` with a leading ``~`` expanded (:class:`NoHomeFolder` when no home folder is known)."""
    found = os.path.expanduser(text)
    if not found.startswith("~"):
        return found
    name = text[1:].replace(os.sep, "/").split("/", 1)[0]
    user = f"user {os.getuid()}" if hasattr(os, "getuid") else "this user"
    known = (f"no user {name!r} is known" if name
             else f"HOME is unset and {user} has no home folder in the password database")
    raise NoHomeFolder(f"{known}; set {ENV_VAR} to a folder, or to off")


def _generator_digest() -> str:
    digest = hashlib.sha256()
    for name in _GENERATOR_MODULES:
        digest.update(Path(importlib.import_module(name).__file__ or "").read_bytes())
    return digest.hexdigest()


def uncovered_families() -> list[str]:
    """The registered families whose builder is not a function of the generator's modules, whose
    source :func:`_generator_digest` hashes. Why the cache skips their worlds rather than hashing
    the builder's code objects: a builder also runs the helpers, globals and imports it names, which
    no hash of its own code sees, so an edit there would still serve a stale world. Worlds of
    searchgym's own families keep their keys."""
    files = {os.path.realpath(importlib.import_module(name).__file__ or "") for name in _GENERATOR_MODULES}
    return [name for name, builder in FAMILY_REGISTRY.items() if not (
        isinstance(builder, types.FunctionType) and os.path.realpath(builder.__code__.co_filename) in files)]


def cache_identity(seed: int, size: str | int, knobs: Mapping[str, object]) -> dict[str, object]:
    """Everything the world for (seed, size, knobs) depends on, code included: the file's key."""
    label, scale = resolve_size(size)
    return {
        "seed": int(seed), "label": label, "scale": scale, "knobs": {k: repr(v) for k, v in sorted(knobs.items())},
        "searchgym": _package_version(), "numpy": np.__version__, "python": platform.python_version(),
        "generator": _generator_digest(), "families": list(families_key()),
    }


def cache_key(seed: int, size: str | int, knobs: Mapping[str, object]) -> str:
    """A hash of :func:`cache_identity` (the file name carries its first 20 digits)."""
    return hashlib.sha256(_canonical(cache_identity(seed, size, knobs))).hexdigest()


def cache_path(directory: Path, seed: int, size: str | int, knobs: Mapping[str, object]) -> Path:
    label, _ = resolve_size(size)
    return directory / f"world-{seed}-{label}-{cache_key(seed, size, knobs)[:20]}.pickle"


def max_cache_bytes(scale: int) -> int:
    """The largest payload a world of ``scale`` may have (worlds take about 20 KB per unit of scale)."""
    return 64 * 1024 * 1024 + scale * 256 * 1024


def read_cached(path: Path, identity: Mapping[str, object]) -> World | None:
    """The world stored at ``path`` if it is the world ``identity`` names; else None (with a warning
    unless the file is simply missing). Nothing is unpickled before the key and the hash match,
    and then only world classes (:class:`_WorldUnpickler`)."""
    try:
        payload = _checked_payload(path, identity)
        with _no_cyclic_gc():  # millions of acyclic objects: the collector would only slow the load
            world = _WorldUnpickler(io.BytesIO(payload)).load()
        # Before: the seed check sat outside this ``try``, so a World pickled without its fields
        # (valid key and hash: the header holds no secret) ended in AttributeError: 'seed' or 'tasks'.
        missing = _missing_parts(world) if isinstance(world, World) else None
    except FileNotFoundError:
        return None
    except DamagedFile as exc:
        _log.warning("cached world %s %s; regenerating it", path, exc.what)
        return None
    except Exception as exc:  # noqa: BLE001 - a payload with a valid hash that does not unpickle
        _log.warning("cached world %s does not load (%s: %s); regenerating it", path, type(exc).__name__,
                     str(exc)[:200])
        return None
    if missing:
        _log.warning("cached world %s is not a whole world (%s); regenerating it", path, missing[:200])
        return None
    if not isinstance(world, World) or world.seed != identity["seed"] or world.size != identity["label"]:
        _log.warning("cached world %s holds another world than its key says; regenerating it", path)
        return None
    return world


#: The type each field of a cached World must hold, and the fields each model object must have.
_WORLD_FIELD_TYPES = {"seed": int, "size": str, "now": datetime.date, "entities": dict, "facts": dict,
                      "pages": tuple, "kb": dict, "tasks": tuple, "version": str, "meta": dict,
                      "family_failures": tuple}
_FIELDS = {cls: frozenset(f.name for f in dataclasses.fields(cls))
           for cls in (Entity, Fact, Page, Sentence, Task, EvidenceHop)}


def _missing_parts(world: World) -> str:
    """What a loaded World lacks ("" when whole). Why: the unpickler only limits which classes a
    file names, so a crafted file can hold a World or a Page without its fields; checked here in one
    pass (0.04 of a 0.25-CPU-s load of the size-1000 world, once a process) instead of as an
    AttributeError deep inside a run."""
    state = vars(world)
    for name, kind in _WORLD_FIELD_TYPES.items():
        if not isinstance(state.get(name), kind) or (kind is int and isinstance(state[name], bool)):
            return f"its {name!r} is {type(state.get(name)).__name__ if name in state else 'missing'}"
    for label, items, cls, inner, inner_cls in (
            ("entities", state["entities"].values(), Entity, None, None),
            ("facts", state["facts"].values(), Fact, None, None),
            ("pages", state["pages"], Page, "sentences", Sentence),
            ("tasks", state["tasks"], Task, "evidence", EvidenceHop)):
        for item in items:
            if not _whole(item, cls) or (inner is not None and not (
                    isinstance(vars(item)[inner], tuple) and all(_whole(part, inner_cls) for part in vars(item)[inner]))):
                return f"one of its {label} is not a whole {cls.__name__}"
    return ""


def _whole(item: object, cls: type) -> bool:
    return type(item) is cls and _FIELDS[cls] <= vars(item).keys()


def _checked_payload(path: Path, identity: Mapping[str, object]) -> bytes:
    """The pickled bytes of ``path`` once its format, key, length and hash are checked."""
    limit = max_cache_bytes(int(identity["scale"]))  # type: ignore[call-overload]
    with open_regular(path, limit + len(_MAGIC) + _HEADER_LIMIT) as handle:
        if handle.readline(len(_MAGIC)) != _MAGIC:
            raise DamagedFile(path, "is not a world cache file of this format")
        line = handle.readline(_HEADER_LIMIT + 1)
        try:
            header = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise DamagedFile(path, "has a damaged header") from None
        if not isinstance(header, dict) or not isinstance(header.get("bytes"), int) \
                or not isinstance(header.get("sha256"), str):
            raise DamagedFile(path, "has a damaged header")
        if header.get("key") != json.loads(_canonical(identity)):
            raise DamagedFile(path, f"holds another world (key {_shown(header.get('key'))}, "
                                    f"wanted {_shown(identity)})")
        size = header["bytes"]
        if not 0 < size <= limit:
            raise DamagedFile(path, f"declares a payload of {size} bytes (at most {limit} for this world)")
        payload = handle.read(size + 1)
    if len(payload) != size:
        raise DamagedFile(path, f"holds {len(payload)} payload bytes where its header says {size} (cut or extended)")
    if _digest(identity, payload) != header["sha256"]:
        raise DamagedFile(path, "fails its content hash (corrupted)")
    return payload


def write_cached(path: Path, world: World, identity: Mapping[str, object]) -> bool:
    """Store ``world`` under ``identity`` at ``path`` atomically (a part file named for its writer, see
    :mod:`searchgym.world.cache_parts`, then a rename); False on failure. Call it holding ``path``'s lock,
    as :func:`load_or_generate` does. The part file is removed on any exception (before: only on
    OSError, so Ctrl-C or SIGTERM left it)."""
    payload = pickle.dumps(world, protocol=pickle.HIGHEST_PROTOCOL)
    header = {"key": json.loads(_canonical(identity)), "bytes": len(payload), "sha256": _digest(identity, payload)}
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=part_prefix(path), suffix=".part")
        with os.fdopen(handle, "wb") as out:
            # 0o666 less the umask, as open() makes it: mkstemp's 0o600 kept every other user of a shared
            # cache folder from reading the world (each regenerated it, and failed to replace the file)
            os.fchmod(out.fileno(), 0o666 & ~_umask())
            out.write(_MAGIC + json.dumps(header, sort_keys=True).encode("utf-8") + b"\n")
            out.write(payload)
        os.replace(temporary, path)
        temporary = None
        return True
    except OSError as error:
        _log.warning("cannot write the world cache %s (%s); continuing without it", path, error)
        return False
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass


class _WorldUnpickler(pickle.Unpickler):
    """Unpickles worlds only: any class outside :data:`_WORLD_CLASSES` is refused, so a file
    someone dropped in the cache cannot run code (``os.system`` and the like are never found)."""

    def find_class(self, module: str, name: str) -> type:
        if (module, name) not in _WORLD_CLASSES:
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a world")
        return super().find_class(module, name)


def _canonical(identity: Mapping[str, object]) -> bytes:
    return json.dumps(identity, sort_keys=True, separators=(",", ":")).encode("utf-8")


def _digest(identity: Mapping[str, object], payload: bytes) -> str:
    """SHA-256 of the key and the payload together: the hash vouches for which world it is, too."""
    digest = hashlib.sha256(_canonical(identity))
    digest.update(b"\n")
    digest.update(payload)
    return digest.hexdigest()


def _shown(key: object) -> str:
    if isinstance(key, Mapping):
        return f"seed {key.get('seed')!r}, size {key.get('label')!r}, knobs {key.get('knobs')!r}"
    return "missing"


def _package_version() -> str:
    try:
        return importlib.metadata.version("searchgym")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _stamp(path: Path) -> tuple[int, int] | None:
    """(modification time, size) of ``path``, None when absent: whether a file changed between two reads."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_mtime_ns, found.st_size


def load_or_generate(seed: int, size: str | int, directory: Path | None = None, **knobs: object) -> World:
    """The world for (seed, size, knobs): from the cache when stored there, else generated (and stored).

    ``directory`` None uses :func:`default_cache_dir`; worlds below :data:`MIN_CACHED_SCALE`,
    worlds with families of :func:`uncovered_families` and a disabled cache always generate. A
    process that finds another one generating the same world waits for it (a file lock) and loads
    its result.
    """
    _, scale = resolve_size(size)
    if scale < MIN_CACHED_SCALE:  # before the folder: no home folder is no matter for a small world
        return generate_world(seed, size, **knobs)
    try:
        directory = directory if directory is not None else default_cache_dir()
    except NoHomeFolder as error:
        _log.warning("world cache unusable (%s); generating without it", error)
        return generate_world(seed, size, **knobs)
    if directory is None:
        return generate_world(seed, size, **knobs)
    outside = uncovered_families()
    if outside:
        _log.info("world (%s, %s) is generated, not cached: task families %s are built by code outside "
                  "searchgym's generator, which the cache key does not cover", seed, size, outside)
        return generate_world(seed, size, **knobs)
    blocked = _blocked_folder(directory)
    if blocked:
        _log.warning("world cache %s; generating without it", blocked)
        return generate_world(seed, size, **knobs)
    identity = cache_identity(seed, size, knobs)
    path = cache_path(directory, seed, size, knobs)
    seen = _stamp(path)
    world = read_cached(path, identity)
    if world is not None:
        if part_files(path):  # a killed writer's, from before this world was stored
            _tidy_without_waiting(path)
        return world
    from filelock import FileLock, Timeout

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(f"{path}.lock", timeout=LOCK_TIMEOUT_S):
            remove_stale_parts(path)
            # another process may have stored it while we waited; the same file is not read (and warned about) twice
            world = read_cached(path, identity) if _stamp(path) != seen else None
            if world is None:
                world = generate_world(seed, size, **knobs)
                write_cached(path, world, identity)
            return world
    except (OSError, Timeout) as error:
        _log.warning("world cache %s unusable (%s); generating without it", path, error)
        return generate_world(seed, size, **knobs)


def _blocked_folder(directory: Path) -> str:
    """What keeps ``directory`` from being the cache's folder (its nearest existing part is no folder),
    in words; "" when nothing does. Why: a broken link there was "unusable ([Errno 17] File exists)",
    and a file there two warnings, the second "File exists" too."""
    for part in (directory, *directory.parents):
        if os.path.lexists(part):
            what = not_a_folder(part)
            if what is None:
                return ""
            what = what if os.path.islink(part) else f"{what}, not a folder"
            return f"folder {part} is {what}" if part == directory else \
                f"folder {directory} cannot be made: {part} is {what}"
    return ""


def _tidy_without_waiting(path: Path) -> None:
    """Remove stale part files of ``path`` if its lock is free now (never waiting; on failure, none)."""
    from filelock import FileLock, Timeout

    try:
        with FileLock(f"{path}.lock", timeout=0):
            remove_stale_parts(path)
    except (OSError, Timeout):
        pass
