"""Whether a ``torch.save`` file is intact, checked before ``torch.load`` reads it.

Why: ``torch.save`` writes a zip archive whose records carry CRC-32 checksums, and ``torch.load``
does not check them. A checkpoint with bytes flipped inside a tensor's record loaded silently, with
other weights (one flipped byte of a 1,000-float tensor turned the weight 100.0 into 100.0019).
:mod:`zipfile` checks every record's checksum, reading the file once (a checkpoint of the ``hash``
policy is a few MB: milliseconds).
"""

from __future__ import annotations

import os
import zipfile
from typing import IO


def archive_problem(source: str | os.PathLike | IO[bytes]) -> str | None:
    """Why ``source`` is not an intact ``torch.save`` archive, in words for a one-line error; None
    when it is intact, and when it is no zip archive at all (``torch.load``'s legacy format, or a
    file cut short: ``torch.load`` refuses those itself). A file object is left at its start."""
    try:
        if not zipfile.is_zipfile(source):
            return None
        with zipfile.ZipFile(source) as archive:
            bad = archive.testzip()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, NotImplementedError) as exc:
        return f"its archive cannot be read ({type(exc).__name__}: {str(exc)[:120]})"
    except Exception as exc:  # a damaged deflate stream raises zlib.error, among others
        if isinstance(exc, OSError):
            raise
        return f"its archive cannot be read ({type(exc).__name__}: {str(exc)[:120]})"
    finally:
        if hasattr(source, "seek"):
            source.seek(0)
    if bad is not None:
        return f"its record {bad!r} fails its checksum (the bytes changed after they were written)"
    return None
