"""The supervised base's checkpoint file: what it holds, how it is written, read and loaded into a policy.

Why a format of its own: a base is shared by every run of a comparison and may come from another
machine's folder, so it is untrusted input. It holds plain tensors and types only and is read with
``torch.load(weights_only=True)``; it names the policy it was trained for, so loading it into
another architecture is a clear error, not a shape mismatch deep in torch.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import torch

from searchgym.damaged import DELETE_AND_RERUN, DamagedFile, open_regular
from searchgym.fileio import atomic_torch_save
from searchgym.policy_format import policy_format
from searchgym.torch_archive import MAX_ARCHIVE_BYTES, archive_problem

from .population import Population

#: The policies whose every weight the option bounds limit (harness.option_bounds: n_buckets 2**16 x dim 4096
#: floats for the words, layers of dim and hidden 4096): a base of one is ~2 GB at the largest, a few MB as
#: the docs build them. A base of another policy (hf: a whole language model) is capped as every torch file
#: searchgym reads (torch_archive.MAX_ARCHIVE_BYTES).
BOUNDED_POLICIES = ("attn", "hash", "minilm")
MAX_BOUNDED_BASE_BYTES = 4 * 2**30


def max_base_bytes(policy: object) -> int:
    """The largest ``base.pt`` of ``policy`` read or hashed. Why: a base in a comparison's ``bases/`` folder
    (which may be handed over) was hashed whatever its size: a sparse file of a terabyte, for hours."""
    return MAX_BOUNDED_BASE_BYTES if policy in BOUNDED_POLICIES else MAX_ARCHIVE_BYTES


def save_base(path: str | Path, key: str, policy: str, state_dict: dict[str, torch.Tensor],
              settings: dict[str, Any]) -> str:
    """Write the base atomically; its sha256."""
    blob = {"format": policy_format(policy), "key": key, "policy": policy, "settings": dict(settings),
            "state_dict": {k: v.detach().cpu().clone() for k, v in state_dict.items()}}
    atomic_torch_save(path, blob)
    return file_sha256(path)


def read_weights_only(path: str | Path, max_bytes: int, remedy: str, unreadable: str) -> Any:
    """What ``torch.load(weights_only=True)`` reads from one open regular file (not through a link, at most
    ``max_bytes``, an archive :func:`~searchgym.torch_archive.archive_problem` finds intact); any failure is a
    one-line :class:`DamagedFile` naming it (``unreadable``: what to call a file torch cannot read). One reader
    for a handed base, the harness's and a benchmark's."""
    path = Path(path)
    with open_regular(path, max_bytes, remedy, follow_links=False) as handle:
        problem = archive_problem(handle)  # torch.load reads changed tensor bytes without a word
        if problem:
            raise DamagedFile(path, problem, remedy)
        try:
            return torch.load(handle, map_location="cpu", weights_only=True)
        except Exception as exc:  # noqa: BLE001 - any unreadable file gets the same one line
            raise DamagedFile(path, load_problem(exc, unreadable), remedy) from None


def load_problem(exc: Exception, unreadable: str) -> str:
    """torch.load's error in a few words: the global a weights-only load refused (its message is paragraphs
    of advice to load with weights_only=False, which searchgym never does), else ``unreadable`` and the
    error's first line."""
    text = str(exc)
    if text.startswith("Weights only load failed"):
        reason = next((line.strip().removeprefix("WeightsUnpickler error: ").split(". ")[0][:200]
                       for line in text.splitlines() if "WeightsUnpickler error:" in line
                       or line.strip().startswith("Trying to load unsupported")), "objects other than tensors")
        return f"holds what torch.load(weights_only=True) refuses ({reason})"
    first = (text.splitlines() or [""])[0][:200]
    return f"{unreadable} ({type(exc).__name__}: {first})"


def read_base(path: str | Path, for_policy: str | None = None) -> dict[str, Any]:
    """The base's contents, read weights_only from one open regular file (not through a link, at most
    :func:`max_base_bytes` of ``for_policy``); a file that is not a base is a one-line error."""
    path = Path(path)
    if not path.is_file() and not path.is_symlink():
        raise ValueError(f"no supervised base at {path}; build it with the sft method or --option init=sft")
    rebuild = f"delete {path.parent} and re-run the same command to build the base again"
    blob = read_weights_only(path, max_base_bytes(for_policy), rebuild, "is not a readable supervised base")
    policy = blob.get("policy") if isinstance(blob, dict) else None
    if (not isinstance(policy, str) or blob.get("format") != policy_format(policy)
            or not isinstance(blob.get("state_dict"), dict)):
        named = f" {policy}" if isinstance(policy, str) else ""
        raise DamagedFile(path, f"is not a supervised base of this version's{named} layout (format "
                          f"{policy_format(policy) if isinstance(policy, str) else 'per policy'}; keys format, key, "
                          "policy, settings, state_dict)", rebuild)
    return blob


def load_base_into(population: Population, path: str | Path | None, policy: str) -> dict[str, Any]:
    """Copy the base's weights into every member of ``population``; the base's contents."""
    if not path:
        raise ValueError("init='sft' needs the base's file (init_checkpoint); the harness builds it: run the "
                         "method through searchgym compare/train with --option init=sft")
    blob = read_base(path, policy)
    if blob["policy"] != policy:
        raise ValueError(f"{path} is a base for --policy {blob['policy']}, not {policy}; use the same --policy for "
                         "the base and the runs that start from it")
    for member in population.unique_members():
        try:
            member.load_state_dict(blob["state_dict"])
        except RuntimeError as exc:
            first = str(exc).splitlines()[0]
            raise ValueError(f"{path} does not fit this {policy} policy ({first}); were its options changed?") from None
    return blob


def file_sha256(path: str | Path, max_bytes: int | None = None, remedy: str = DELETE_AND_RERUN,
                follow_links: bool = True) -> str:
    """The SHA-256 of a regular file (a FIFO or device is :class:`DamagedFile`, never read); for a file
    someone else may have made, ``max_bytes`` bounds it and ``follow_links=False`` refuses a link, unread
    (:func:`searchgym.damaged.open_regular`). Why: base.pt was hashed whatever its size, through a link."""
    digest, read = hashlib.sha256(), 0
    with open_regular(path, max_bytes, remedy, follow_links) as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            read += len(chunk)
            if max_bytes is not None and read > max_bytes:  # grown since it was opened
                raise DamagedFile(path, f"holds more than {max_bytes} bytes", remedy)
            digest.update(chunk)
    return digest.hexdigest()
