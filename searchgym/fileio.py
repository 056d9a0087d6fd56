"""Files that survive crashes: atomic whole-file writes and append-only JSONL.

A whole file (config, predictions, summaries, plots, markers) is written to a temporary file
in the same folder, flushed to disk and moved over the target with ``os.replace``: a reader
sees the old file or the new one, never half of one. A JSONL log is appended one line at a
time and flushed; a crash can at worst cut the last line, which :func:`read_jsonl` skips.
A folder written by one process at a time is guarded by
:class:`searchgym.folder_lock.FolderLock` (``flock``).

A run folder may come from someone else, so the files written in place (the log, the lock) are
opened with ``O_NOFOLLOW``, and a symbolic link there is refused (:func:`refuse_link`): writing
through it would change the file it points to, outside the folder. A file with hard links (another
name for it, in a backup made with ``cp -al`` or anywhere on the disk) is refused for the same reason.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from searchgym.damaged import (
    DamagedFile,
    bounded_lines,
    file_kind,
    json_object,
    open_regular,
    read_json_checked,
)

#: Longest JSONL line read back (rows are a few kilobytes; a longer line is damage and skipped).
MAX_JSONL_LINE = 16 * 1024 * 1024
LINKED = "is a symbolic link, and searchgym never writes through one (it would write where the link points)"
DELETE_LINK = "delete the link and re-run the same command"
UNSHARE_LINK = "give it a copy of its own (cp FILE FILE.own && mv FILE.own FILE) and re-run the same command"
#: The lock file of a folder written by one process at a time (:class:`searchgym.folder_lock.FolderLock`).
LOCK_NAME = ".lock"
REPLACE_LINKED_FOLDER = "replace the link with a real folder (or delete it) and re-run the same command"


def refuse_link(path: str | os.PathLike, remedy: str = REPLACE_LINKED_FOLDER, why: str = LINKED) -> Path:
    """``path``, once it is known not to be a symbolic link (else :class:`DamagedFile` naming it, saying
    ``why``: a write's reason by default, a read's in :func:`run_reads.refuse_linked`). Why: a run folder,
    or a folder in it, that was a link sent the run's writes to where it pointed."""
    path = Path(path)
    if path.is_symlink():
        raise DamagedFile(path, why, remedy)
    return path


def folder_argument(value: object, name: str, what: str = "a folder") -> Path:
    """``value`` as a Path once it is a folder path: a str or an ``os.PathLike``, not empty (else a
    TypeError or ValueError naming ``name`` and what was given). Why: ``load_results(None)`` was
    pathlib's "expected str, bytes or os.PathLike object, not NoneType", naming no argument, and
    ``load_results("")`` read the working folder."""
    from searchgym.shown import safe_repr

    text = os.fspath(value) if isinstance(value, os.PathLike) else value
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a folder path (a str or an os.PathLike naming {what}), got "
                        f"{safe_repr(value, 60)} ({type(value).__name__})")
    if not text.strip():
        raise ValueError(f"{name} is empty, which names no folder; give the path of {what}")
    return Path(text)


def not_a_folder(path: str | os.PathLike) -> str | None:
    """What stands at ``path`` where a folder belongs, in words ("a file", "a broken symbolic link (to
    /nothere)", "a FIFO (named pipe)"); None for a folder (or a link to one) or nothing there. Why: a
    broken link read as the OS's "File exists", which named neither the link nor where it points."""
    try:
        mode = os.stat(path).st_mode
    except OSError:  # nothing there, or a link to nothing (or to itself)
        if not os.path.islink(path):
            return None
        with contextlib.suppress(OSError):
            return f"a broken symbolic link (to {os.readlink(path)})"
        return "a broken symbolic link"
    return None if stat.S_ISDIR(mode) else "a file" if stat.S_ISREG(mode) else file_kind(mode)


def check_folder_can_be_made(path: str | os.PathLike, flag: str = "--out") -> Path:
    """``path`` once a folder not made yet can be made there: every existing part above it is a folder,
    and in the nearest one a folder can be made (a probe folder, made and removed); ``path`` itself is
    no broken link. Why: ``compare --out /proc/x`` started its runs, which failed one by one with the
    OS's bare line, and ``train`` and ``recipe`` gave that line too, naming neither the flag nor the
    folder at fault; a broken link as ``--out`` was "File exists; a file stands where a folder belongs"."""
    path = Path(path)
    if os.path.lexists(path):  # it exists: the command's own check says what it must be (a run folder, a
        if path.is_symlink() and not path.exists():  # recipe's), and each file is checked as it is written
            raise ValueError(f"{flag} {path} is {not_a_folder(path)}; delete the link or choose another "
                             f"{flag}")
        return path
    for part in path.parents:
        if not os.path.lexists(part):
            continue
        what = not_a_folder(part)
        if what is not None:
            raise ValueError(f"{part} is {what}, so {flag} {path} cannot be a folder; choose another {flag}")
        try:
            os.rmdir(tempfile.mkdtemp(prefix=".searchgym-probe-", dir=part))
        except OSError as exc:
            raise ValueError(f"{flag} {path} cannot be made: no folder can be made in {part} "
                             f"({exc.strerror or exc}); choose another {flag}") from None
        return path
    return path


def open_in_place(path: str | os.PathLike, flags: int) -> int:
    """A descriptor of the regular file ``path`` (created 0o666 less the umask), opened with
    ``O_NOFOLLOW`` and ``O_NONBLOCK`` (a FIFO never hangs the open). A link, a file with other hard
    links, a FIFO or a device there is :class:`DamagedFile`; other failures are ``OSError`` naming the file.
    Before: ``open(path, "a")`` wrote through a link to its target, and hung on a FIFO."""
    path = Path(path)
    flags |= (os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
              | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        fd = os.open(path, flags, 0o666)
    except OSError:
        if path.is_symlink():
            raise DamagedFile(path, LINKED, DELETE_LINK) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise DamagedFile(path, f"is {file_kind(info.st_mode)}, not a regular file")
        if info.st_nlink > 1:  # a hard link: a write here changes the file under its other names, as through a link
            raise DamagedFile(path, f"has {info.st_nlink} hard links (other names for the same file), and searchgym "
                              "never writes into a file it shares", UNSHARE_LINK)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    """The process umask, read without changing it where Linux shows it (``os.umask`` sets it,
    for every thread, in the moment between its two calls)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _new_file_mode(path: Path) -> int:
    """The permissions ``open(path, "w")`` would leave: an existing file's own, else 0o666 less the
    umask. Why: ``mkstemp`` makes 0o600 files, and ``os.replace`` kept that, so run folders, exports
    and the leaderboard's pages were readable by their owner only, whatever the umask."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        return 0o666 & ~_umask()


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temp file and ``os.replace`` (same folder), with the
    permissions a plain write would give (:func:`_new_file_mode`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _new_file_mode(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and exc.filename in (None, tmp):  # name the target, not the temp file
            raise OSError(exc.errno, exc.strerror or str(exc), os.fspath(path)) from exc
        raise
    _fsync_dir(path.parent)
    return path


#: The names :func:`atomic_write_bytes` gives its temp files (``tempfile.mkstemp``'s 8 random characters).
_TEMP_NAME = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")


def remove_stale_temp_files(folder: str | os.PathLike) -> int:
    """Delete the temp files of atomic writes that a killed process left in ``folder`` (not below
    it); how many. Only for a folder this process holds alone (a run folder under its lock): a temp
    file there is no other writer's. Why: a SIGKILL during a checkpoint's write left its temp file
    (megabytes; gigabytes for an LLM) for good."""
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        if _TEMP_NAME.match(entry.name) and entry.is_file(follow_symlinks=False):
            try:
                os.unlink(entry.path)
                removed += 1
            except OSError:
                pass
    return removed


def names_written(folder: str | os.PathLike) -> list[str]:
    """The names in ``folder`` (not below it), its lock and the temp files of a killed write aside: what
    tells whose folder it is; none for a folder that cannot be listed (or is missing)."""
    try:
        return [n for n in os.listdir(folder) if n != LOCK_NAME and not _TEMP_NAME.match(n)]
    except OSError:
        return []


def holds_only_others(folder: str | os.PathLike, own: Iterable[str]) -> bool:
    """Whether ``folder`` holds files and none of them is one of ``own`` (the names a writer makes;
    its lock and the temp files of a killed write aside): someone's own folder, which a run must
    not write into (``train --out /`` wrote a run into the root folder, over any config.json there)."""
    names = names_written(folder)
    return bool(names) and not set(own).intersection(names)


def atomic_torch_save(path: str | os.PathLike, obj: Any) -> Path:
    """``torch.save`` through the same temp-file-and-replace path (checkpoints)."""
    import io

    import torch

    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return atomic_write_bytes(path, buffer.getvalue())


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | os.PathLike, payload: Any) -> Path:
    return atomic_write_text(path, json.dumps(payload, indent=2, sort_keys=True, default=jsonable) + "\n")


def atomic_write_jsonl(path: str | os.PathLike, rows: Iterable[dict]) -> Path:
    return atomic_write_text(path, "".join(json.dumps(r, sort_keys=True, default=jsonable) + "\n" for r in rows))


def append_jsonl(path: str | os.PathLike, row: dict) -> None:
    """Append one JSON line and flush it to disk (one ``write`` call per line). The file is opened
    by :func:`open_in_place`: a link there is refused, never written through."""
    line = json.dumps(row, sort_keys=True, default=jsonable)
    if "\n" in line:  # json.dumps never emits raw newlines; guard against a custom default
        raise ValueError("a JSONL row must serialise to one line")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = open_in_place(path, os.O_RDWR | os.O_APPEND)
        with os.fdopen(fd, "r+b") as f:
            fresh = b"" if _ends_a_line(f) else b"\n"  # a crash cut the last line: start on a fresh one
            f.write(fresh + line.encode("utf-8") + b"\n")
            f.flush()
            os.fsync(fd)
    except OSError as exc:
        if exc.filename is None:  # a failed write names no file: name it
            raise OSError(exc.errno, exc.strerror or str(exc), os.fspath(path)) from exc
        raise


def _ends_a_line(handle: Any) -> bool:
    """Is the open file empty or ending in a newline?"""
    size = handle.seek(0, os.SEEK_END)
    if size == 0:
        return True
    handle.seek(size - 1)
    return handle.read(1) == b"\n"


def iter_jsonl(path: str | os.PathLike) -> Iterator[dict]:
    """Rows of a JSONL file; a line that is not a JSON object (cut by a crash, not UTF-8, over
    :data:`MAX_JSONL_LINE` bytes) is skipped. A missing file has no rows; a path that is not a
    regular file (a folder, a FIFO, a device) is :class:`~searchgym.damaged.DamagedFile`."""
    try:
        handle = open_regular(path)
    except FileNotFoundError:
        return
    with handle:
        yield from (row for row in _objects(handle) if row is not None)


def read_jsonl_counted(path: str | os.PathLike) -> tuple[list[dict], int]:
    """The rows of a JSONL file and how many of its non-blank lines are no row (what
    :func:`iter_jsonl` skips without a word). A missing file is ``FileNotFoundError``. For a reader
    that must not take a cut file for a short one (an endpoint run's transcripts)."""
    with open_regular(path) as handle:
        found = list(_objects(handle))
    rows = [row for row in found if row is not None]
    return rows, len(found) - len(rows)


def _objects(handle: Any) -> Iterator[dict | None]:
    """Each non-blank line of an open JSONL file: its JSON object, or None for a line that is none."""
    for line in bounded_lines(handle, MAX_JSONL_LINE):
        if line is None or line.strip():
            yield None if line is None else json_object(line)


def read_jsonl(path: str | os.PathLike) -> list[dict]:
    return list(iter_jsonl(path))


def read_json(path: str | os.PathLike, expect: type | None = None) -> Any:
    """A JSON file we wrote; a damaged one (cut, not JSON, not UTF-8, a folder, ``expect`` not
    met) is :class:`~searchgym.damaged.DamagedFile`, naming the file. Missing: ``FileNotFoundError``."""
    return read_json_checked(path, expect)


def jsonable(value: Any) -> Any:
    """numpy scalars and arrays, paths and sets become plain JSON values (``json.dumps``'s ``default`` for
    every file written here, and for ``ctx.log``'s check of a row before it is written)."""
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")

