"""Files we read back that someone else may have damaged: one error type and checked readers.

Run folders, checkpoints, caches and submissions are copied between people, synced and archived;
any of them may arrive truncated, empty, replaced by a folder, a FIFO or a link to ``/dev/zero``.
Reading one must never hang, read without bound, or end in a traceback: it raises
:class:`DamagedFile`, whose message is one line naming the file, what is wrong and what to do.
Callers that can recover (resume, the world cache) catch it and warn with
:class:`DamagedFileWarning` instead.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from searchgym.shown import terminal_safe

#: Largest JSON document :func:`read_json_checked` reads (configs and results are kilobytes).
MAX_JSON_BYTES = 256 * 1024 * 1024
DELETE_AND_RERUN = "delete it and re-run the same command"
#: Why a read with ``follow_links=False`` refuses a link, unread (a write refuses one too: fileio.LINKED).
LINKED_READ = ("is a symbolic link, which searchgym does not follow in a run folder it reads (a run writes its own "
               "files; a link could pass a file from elsewhere off as this run's)")


class DamagedFile(ValueError):
    """A file we read is damaged: ``str()`` is "PATH: WHAT; REMEDY" on one line."""

    def __init__(self, path: str | os.PathLike, what: str, remedy: str = DELETE_AND_RERUN) -> None:
        self.path = Path(path)
        self.what = " ".join(str(what).split())  # one line, whatever the cause's message held
        self.remedy = remedy
        super().__init__(f"{shown_text(self.path)}: {terminal_safe(self.what)}; {terminal_safe(remedy)}")


def shown_text(text: object) -> str:
    """Text from someone else's files (a file's name, a label, an error line) as a message prints it or
    results.md holds it: control characters escaped as ``\\x1b``, newlines and tabs as ``\\n`` and ``\\t``.
    Why: a run folder handed over under a name holding ESC sequences had them printed raw."""
    return terminal_safe(str(text)).replace("\n", "\\n").replace("\t", "\\t")


class OtherRunsFile(DamagedFile):
    """A file that is intact but was written by another run (another seed, options ...): refused and left
    as it is, since resuming from it would mix two runs and starting again would write over it."""


class UnreadableFile(DamagedFile):
    """A file that could not be read for a reason that says nothing of its content (no permission, an I/O
    error, no descriptors left): a caller that sets damaged files aside (resume restarting a run over
    its checkpoint) must stop instead, since the file may be intact."""


#: The errors of :class:`UnreadableFile`: the file may be fine, the reading was not.
UNREADABLE_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EIO, errno.EMFILE, errno.ENFILE, errno.ENOMEM,
                               errno.ESTALE, errno.ETIMEDOUT, errno.EAGAIN, errno.EBUSY, errno.EINTR})


class DamagedFileWarning(UserWarning):
    """A damaged file was set aside and the work goes on (regenerated, restarted, line skipped)."""


def warn_damaged(error: DamagedFile, action: str, stacklevel: int = 2) -> None:
    """Warn that ``error``'s file was damaged and what is done instead (``action``)."""
    warnings.warn(f"{shown_text(error.path)}: {terminal_safe(error.what)}; {action}", DamagedFileWarning,
                  stacklevel=stacklevel + 1)


def warnings_on_one_line() -> None:
    """Show :class:`DamagedFileWarning` as ``warning: PATH: WHAT; ACTION`` (other warnings as before).
    Why: the CLI printed it in Python's form, the code's file and line number and then a line of
    source (``attempt = check_identity(spec) + 1``) under the one line that names the file."""
    if getattr(warnings.formatwarning, "one_line", False):
        return
    plain = warnings.formatwarning

    def formatwarning(message, category, filename, lineno, line=None):
        if isinstance(category, type) and issubclass(category, DamagedFileWarning):
            return f"warning: {message}\n"
        return plain(message, category, filename, lineno, line)

    formatwarning.one_line = True  # type: ignore[attr-defined]
    warnings.formatwarning = formatwarning


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words ("a folder", "a FIFO (named pipe)" ...), for one-line errors."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: str | os.PathLike, max_bytes: int | None = None,
                 remedy: str = DELETE_AND_RERUN, follow_links: bool = True) -> IO[bytes]:
    """``path`` opened for binary reading once it is known to be a regular file (links followed, unless
    ``follow_links`` is False: then a link is :class:`DamagedFile`, :data:`LINKED_READ`, unread).

    Opened with ``O_NONBLOCK`` and checked with ``fstat`` on the open file, so a FIFO never hangs
    the open and a file swapped after a check is still caught. ``max_bytes`` bounds its size.
    A missing file is ``FileNotFoundError`` (callers decide whether that is damage).
    """
    path = Path(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
        if path.is_symlink():  # also where O_NOFOLLOW does not exist
            raise DamagedFile(path, LINKED_READ, remedy)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise DamagedFile(path, "is a folder, not a file", remedy) from None
    except OSError as exc:
        if not follow_links and path.is_symlink():  # made a link since the check above
            raise DamagedFile(path, LINKED_READ, remedy) from None
        kind = UnreadableFile if exc.errno in UNREADABLE_ERRNOS else DamagedFile
        raise kind(path, f"cannot be opened ({exc.strerror or exc})", "check its permissions, or " + remedy) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise DamagedFile(path, f"is {file_kind(info.st_mode)}, not a regular file", remedy)
        if max_bytes is not None and info.st_size > max_bytes:
            raise DamagedFile(path, f"is {info.st_size} bytes, more than the {max_bytes} such a file may hold",
                              remedy)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bounded(path: str | os.PathLike, max_bytes: int, remedy: str = DELETE_AND_RERUN,
                 follow_links: bool = True) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (a file that grows meanwhile is refused)."""
    with open_regular(path, max_bytes, remedy, follow_links) as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise DamagedFile(path, f"holds more than {max_bytes} bytes", remedy)
    return data


def json_values_at_most(data: bytes) -> int:
    """An upper bound of the JSON values ``data`` holds, from its commas and brackets, before parsing: a
    bound cheap to take, so a file of millions of tiny values is refused before ``json.loads`` builds them."""
    return 1 + data.count(b",") + data.count(b"{") + data.count(b"[")


def read_json_capped(path: str | os.PathLike, max_bytes: int, max_values: int, holds: str,
                     expect: type | None = None, remedy: str = DELETE_AND_RERUN) -> Any:
    """A JSON document from one regular file, never through a link, of at most ``max_bytes`` bytes and
    (counted before parsing: :func:`json_values_at_most`) ``max_values`` values; ``holds`` says what such a
    file holds, in the error. Why: files handed over with a run or a board are read bounded, not whole."""
    data = read_bounded(path, max_bytes, remedy, follow_links=False)
    if json_values_at_most(data) > max_values:
        raise DamagedFile(path, f"holds more than {max_values} JSON values (by its commas and brackets), {holds}",
                          remedy)
    return parse_json_bytes(path, data, expect, remedy)


class JsonlRows:
    """The JSON objects of a JSONL file someone else may have written, read line by line when iterated, not
    through a link. Why here: the harness's run files (harness.run_reads) and the tiny-LM recipe's rows
    (agents.tiny_lm_records) are read with the same bounds, and agents/ may not import the harness.

    A line of more than ``max_line`` bytes is skipped unparsed (read past in pieces of that size; counted in
    ``overlong``); a blank line, one that is not UTF-8 JSON or holds no object is skipped. Reading stops once
    the lines read hold more than ``max_values`` JSON values in all (counted from their commas and brackets
    before parsing, a blank line as one: a bound cheap to take), and ``past_values`` says so; it stops
    likewise once more than ``max_lines`` lines are read, blank, skipped and overlong ones included, and
    ``past_lines`` says so (why: without ``max_values``, a file of millions of blank lines was read through,
    none of them counted against any cap). A missing file has no rows; a file over ``max_bytes`` is
    :class:`DamagedFile`, unread."""

    def __init__(self, path: str | os.PathLike, max_line: int, remedy: str = DELETE_AND_RERUN,
                 max_bytes: int | None = None, max_values: int | None = None, max_lines: int | None = None) -> None:
        self.path, self.max_line, self.remedy = Path(path), max_line, remedy
        self.max_bytes, self.max_values, self.max_lines = max_bytes, max_values, max_lines
        self.overlong = 0
        self.past_values = self.past_lines = False

    def __iter__(self) -> Iterator[dict[str, Any]]:
        try:
            handle = open_regular(self.path, self.max_bytes, self.remedy, follow_links=False)
        except FileNotFoundError:
            return
        values = lines = 0
        with handle:
            for line in bounded_lines(handle, self.max_line):
                lines += 1
                if self.max_lines is not None and lines > self.max_lines:
                    self.past_lines = True
                    return
                if line is None:
                    self.overlong += 1
                    continue
                if self.max_values is not None:
                    values += json_values_at_most(line)
                    if values > self.max_values:
                        self.past_values = True
                        return
                if line.strip() and (row := json_object(line)) is not None:
                    yield row


def bounded_lines(handle: IO[bytes], max_line: int) -> Iterator[bytes | None]:
    """Each line of an open binary file, or None for one of more than ``max_line`` bytes, which is read
    past in pieces of that size, never held whole. Why one function: every JSONL reader bounds its lines."""
    while line := handle.readline(max_line + 1):
        if len(line) > max_line:
            while line and not line.endswith(b"\n"):
                line = handle.readline(max_line + 1)
            yield None
        else:
            yield line


def json_object(line: bytes) -> dict[str, Any] | None:
    """The JSON object a JSONL line holds; None for a line that is not UTF-8 JSON or holds no object."""
    try:
        row = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return row if isinstance(row, dict) else None


def read_json_checked(path: str | os.PathLike, expect: type | None = None, max_bytes: int = MAX_JSON_BYTES,
                      remedy: str = DELETE_AND_RERUN, follow_links: bool = True) -> Any:
    """A JSON document from a regular file; damage of any kind is :class:`DamagedFile`.

    ``expect`` (``dict``, ``list``) is the top-level type the file must hold.
    """
    return parse_json_bytes(path, read_bounded(path, max_bytes, remedy, follow_links), expect, remedy)


def parse_json_bytes(path: str | os.PathLike, data: bytes, expect: type | None = None,
                     remedy: str = DELETE_AND_RERUN) -> Any:
    """The JSON document in ``data``, the bytes read from ``path`` (named by its errors), as
    :func:`read_json_checked` reads it. Why: a caller that also hashes the bytes parses what it hashed,
    not a second read of a file that may have changed in between."""
    if not data.strip():
        raise DamagedFile(path, "is empty", remedy)
    try:
        value = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise DamagedFile(path, f"is not UTF-8 text (at byte offset {exc.start})", remedy) from None
    except json.JSONDecodeError as exc:
        why = exc.msg.removesuffix(" at")  # "Invalid control character at": before, "... at at line 1"
        raise DamagedFile(path, f"is not valid JSON ({why} at line {exc.lineno} column {exc.colno})", remedy) from None
    except RecursionError:
        raise DamagedFile(path, "is nested too deeply to be JSON we wrote", remedy) from None
    except ValueError as exc:  # an int past Python's 4,300-digit limit: before, a bare error naming no file
        what = f"holds a number of more than {sys.get_int_max_str_digits()} digits, which no searchgym file holds" \
            if "digits" in str(exc) else f"is not JSON we wrote ({str(exc)[:80]})"
        raise DamagedFile(path, what, remedy) from None
    if expect is not None and not isinstance(value, expect):
        names = {dict: "an object", list: "a list"}
        raise DamagedFile(path, f"holds {json_kind(value)} where {names.get(expect, expect.__name__)} belongs",
                          remedy)
    return value


def json_kind(value: Any) -> str:
    """A decoded JSON value's kind in words ("an object", "a boolean", "null")."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"
