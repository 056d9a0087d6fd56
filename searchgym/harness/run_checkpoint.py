"""The checkpoint a ``searchgym evaluate --agent run`` plays: read once, with its trainer's cap and keys.

Why: ``torch.load`` read it four times in one command (by ``run_agent.check_options``, which
``evaluate`` calls twice, then by the rebuild's check and by the trainer's ``load``), and every read
but the last was bounded only by the cap of every torch file (``torch_archive.MAX_ARCHIVE_BYTES``, 256 GiB), where
the trainer reads at most :func:`~searchgym.agents.trainer_base.max_checkpoint_bytes` of its policy
and members (16 GiB for one ``hash`` policy). Its SHA-256 (the evaluation's identity) was a further
pass with the loose cap. Now the first read has the trainer's cap and keys, so a checkpoint past them
is refused in the trainer's words before any policy is built; it is hashed in the same open, and what
it read is kept for the rest of the command (:func:`read_once`: the last file read, by its identity
on disk; the rebuild takes it and lets it go).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path
from typing import Any

from searchgym.damaged import DamagedFile


@dataclasses.dataclass(frozen=True)
class ReadCheckpoint:
    """A checkpoint's dict and the SHA-256 of the bytes it was loaded from."""

    blob: dict[str, Any]
    sha256: str


#: The last checkpoint read, by (its identity on disk, keys, cap): at most one, so at most one held.
_LAST: dict[tuple, ReadCheckpoint] = {}


def checkpoint_limits(config: Any, trainer_cls: type) -> tuple[frozenset[str], int]:
    """(keys, most bytes) the trainer of ``config`` reads its checkpoint with (``TrainerBase.load``): its
    class's ``checkpoint_keys``, and :func:`max_checkpoint_bytes` of its policy and its population's
    members (one when shared, else one per agent of its env: the env is built only then)."""
    from searchgym.agents.trainer_base import max_checkpoint_bytes
    from searchgym.registry import spec as env_spec

    members = 1
    if getattr(config, "population_mode", "shared") != "shared" and env_spec(config.env_id).kind == "parallel":
        import searchgym

        env = searchgym.make(config.env_id, **config.env_kwargs)
        try:
            members = len(env.possible_agents)
        finally:
            env.close()
    return trainer_cls.checkpoint_keys, max_checkpoint_bytes(getattr(config, "policy", None), members)


def _identity(path: Path) -> tuple | None:
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:  # missing or unreadable: the read says so
        return None
    return str(path.absolute()), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def read_once(path: Path, keys: frozenset[str], max_bytes: int, remedy: str, keep: bool = True) -> ReadCheckpoint:
    """The checkpoint at ``path`` (``weights_only=True``, not through a link, at most ``max_bytes``, no key
    but ``keys``), hashed as it is read; the same file asked for again is not read again. ``keep=False``:
    its last use (it is let go). Damage is one-line :class:`DamagedFile` with ``remedy``."""
    from searchgym.agents.trainer_base import read_checkpoint

    ident = _identity(path)
    key = (ident, keys, max_bytes)
    found = _LAST.get(key) if ident is not None else None
    if found is None:
        _LAST.clear()  # the one held before is let go first
        digest = hashlib.sha256()
        try:
            blob = read_checkpoint(path, "cpu", keys, max_bytes, digest=digest, follow_links=False)
        except DamagedFile as exc:  # its remedy ("delete it to start the run again") is not for a reader
            raise DamagedFile(path, exc.what, remedy) from None
        found = ReadCheckpoint(blob, digest.hexdigest())
    _LAST.clear()
    if keep and ident is not None:
        _LAST[key] = found
    return found
