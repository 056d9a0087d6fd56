"""The temporary ``.part`` files of the world cache's writes: named for their writer, and removed
once it is gone.

A world is written to ``<file>.<host>-<pid>.<random>.part`` and renamed over ``<file>``. A writer
stopped by an exception removes its own part file; one killed (SIGKILL, a power cut) cannot, and
before, its part file (11 MB at scale 1,000; gigabytes at a million) stayed beside the world for good.

Which part files are stale is decided under the key's lock (:class:`filelock.FileLock`: ``flock``,
which the kernel drops when its holder dies). A writer writes only while it holds that lock, so
the holder of the lock on the same kernel (``<host>`` is a hash of its boot id) knows every part
file of the key from that kernel is a dead writer's; the writer's PID is checked as well, for a
write made without the lock. Across machines (a synced or shared folder, where a lock may not reach
the other machine) a part file is removed only once nobody has written to it for
:data:`STALE_PART_AGE_S`.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import socket
import stat
import time
from pathlib import Path

#: How long a part file written on another machine (or by a version that did not name its writer)
#: must lie untouched before it is taken for a dead writer's: a live writer adds to it all the time.
STALE_PART_AGE_S = 3600.0


@functools.cache
def host_id() -> str:
    """8 hex digits naming this kernel (its boot id; the host name where there is none): the
    processes that share its locks, containers included."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as found:
            name = found.read().strip()
    except OSError:
        name = ""
    return hashlib.sha256((name or socket.gethostname()).encode("utf-8")).hexdigest()[:8]


def part_prefix(path: Path) -> str:
    """The start of this process's part file names for ``path`` (``mkstemp`` adds 8 random characters)."""
    return f"{path.name}.{host_id()}-{os.getpid()}."


def _part_name(path: Path) -> re.Pattern[str]:
    """Part files of ``path``: this format's, and the untagged ``<file><random>.part`` of earlier versions."""
    return re.compile(rf"^{re.escape(path.name)}(?:\.(?P<host>[0-9a-f]{{8}})-(?P<pid>[0-9]{{1,10}})\.)?"
                      r"[A-Za-z0-9_]{8}\.part$")


def part_files(path: Path) -> list[tuple[Path, re.Match[str]]]:
    """The part files of ``path``, each with its name's parts (none when its folder is unreadable)."""
    pattern = _part_name(path)
    try:
        names = os.listdir(path.parent)
    except OSError:
        return []
    return [(path.parent / name, found) for name in names if (found := pattern.match(name))]


def _writer_gone(host: str | None, pid: str | None) -> bool:
    """Whether the writer a part file names ran on this kernel and is no longer running."""
    if host != host_id() or pid is None:
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):  # alive under another user (EPERM), or no such PID at all
        return False
    return False


def remove_stale_parts(path: Path) -> int:
    """Delete the part files of ``path`` whose writer is gone; how many. Call it only while holding
    ``path``'s lock (see the module's docstring); a link or a folder of that name is left alone."""
    removed = 0
    now = time.time()
    for part, found in part_files(path):
        try:
            info = part.lstat()
            if not stat.S_ISREG(info.st_mode):  # not followed: a link is not a part file
                continue
            if _writer_gone(found["host"], found["pid"]) or now - info.st_mtime >= STALE_PART_AGE_S:
                part.unlink()
                removed += 1
        except OSError:  # removed meanwhile, or not ours to remove
            continue
    return removed
