"""Whether a ``torch.save`` file is intact, checked before ``torch.load`` reads it.

Why: ``torch.save`` writes a zip archive whose records carry CRC-32 checksums, and ``torch.load``
does not check them. A checkpoint with bytes flipped inside a tensor's record loaded silently, with
other weights (one flipped byte of a 1,000-float tensor turned the weight 100.0 into 100.0019).
:mod:`zipfile` checks every record's checksum, reading the file once (a checkpoint of the ``hash``
policy is a few MB: milliseconds).

Why the layout checks: ``torch.load`` also inflates compressed records and reads records that overlap,
so a handed-over file of 6.8 MB (a 1.6 GB tensor, deflated) took 4.65 GB of memory and 92 s to load.
``torch.save`` never compresses (every record ZIP_STORED, a test checks it on the files searchgym writes
with the torch installed) and writes each record once, so a record that is compressed, or records that
declare more bytes than the file holds, are no ``torch.save`` file: refused before anything is
inflated, and what ``torch.load`` then reads is at most the file's own size.
"""

from __future__ import annotations

import os
import zipfile
from typing import IO

#: The most bytes the records of one archive may hold. The largest files searchgym writes are an LLM
#: run's checkpoint.pt (each member's weights, both Adam moments and a reference copy: ~56 GB for a 7B
#: model in bf16, ~4 GB for the 0.5B ones the docs train); a candidate policy's checkpoint, base.pt or
#: partial.pt is a few MB (hash: 2**14 x 64 floats), ~4 GiB at the largest the option bounds allow
#: (n_buckets 2**16 x dim 4096 floats, twice more for Adam, once more for a reference). 256 GiB clears
#: them all by 4x or more; a file past it could not be loaded into a lent machine's memory anyway.
MAX_ARCHIVE_BYTES = 256 * 2**30
#: The most records one archive may have: ``torch.save`` writes one per storage plus 7 (an LLM checkpoint
#: of a ~300-tensor model, with Adam's moments and steps and a reference, ~1,500 per member; the hash
#: policy's ~50). Why: :mod:`zipfile` keeps an object per record, ~10x the 46 bytes each takes in the file.
MAX_RECORDS = 100_000
METHODS = {zipfile.ZIP_DEFLATED: "deflate", zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "lzma"}


def _length(source: str | os.PathLike | IO[bytes]) -> int:
    if hasattr(source, "seek"):
        return source.seek(0, os.SEEK_END)
    return os.path.getsize(source)


def _layout_problem(source: str | os.PathLike | IO[bytes]) -> str | None:
    """Why the archive's directory is no ``torch.save`` layout (module docstring), read without inflating."""
    end = None
    if hasattr(zipfile, "_EndRecData"):  # the record count, before zipfile builds an object per record
        if hasattr(source, "seek"):
            end = zipfile._EndRecData(source)
        else:
            with open(source, "rb") as handle:
                end = zipfile._EndRecData(handle)
    if end is not None and end[zipfile._ECD_ENTRIES_TOTAL] > MAX_RECORDS:
        return (f"its archive has {end[zipfile._ECD_ENTRIES_TOTAL]} records, where torch.save writes one per tensor "
                f"storage (at most {MAX_RECORDS} are read)")
    if hasattr(source, "seek"):
        source.seek(0)
    length = _length(source)
    with zipfile.ZipFile(source) as archive:
        records = archive.infolist()
    for record in records:
        name = record.filename[:120]
        if record.compress_type != zipfile.ZIP_STORED:
            method = METHODS.get(record.compress_type, f"zip method {record.compress_type}")
            return (f"its record {name!r} is compressed ({method}), where torch.save stores every record as it is: "
                    "it is no torch.save file, and is not inflated")
        if record.file_size != record.compress_size:
            return (f"its record {name!r} declares {record.file_size} bytes but stores {record.compress_size}: "
                    "it is no torch.save file")
    total = sum(record.file_size for record in records)
    if total > length:
        return (f"its records declare {total} bytes in all, more than the file's {length} (records that overlap): "
                "it is no torch.save file")
    if total > MAX_ARCHIVE_BYTES:
        return f"its records hold {total} bytes in all; at most {MAX_ARCHIVE_BYTES} are read"
    return None


def archive_problem(source: str | os.PathLike | IO[bytes]) -> str | None:
    """Why ``source`` is not an intact ``torch.save`` archive, in words for a one-line error; None
    when it is intact, and when it is no zip archive at all (``torch.load``'s legacy format, or a
    file cut short: ``torch.load`` refuses those itself). A file object is left at its start.
    Its layout is checked before any record is read (a compressed record, records declaring more
    bytes than the file holds or more than :data:`MAX_ARCHIVE_BYTES`), then every checksum."""
    try:
        if not zipfile.is_zipfile(source):
            return None
        if hasattr(source, "seek"):
            source.seek(0)
        layout = _layout_problem(source)
        if layout is not None:
            return layout
        if hasattr(source, "seek"):
            source.seek(0)
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
