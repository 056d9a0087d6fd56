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

from searchgym.damaged import DamagedFile
from searchgym.fileio import atomic_torch_save
from searchgym.policy_format import policy_format
from searchgym.torch_archive import archive_problem

from .population import Population


def save_base(path: str | Path, key: str, policy: str, state_dict: dict[str, torch.Tensor],
              settings: dict[str, Any]) -> str:
    """Write the base atomically; its sha256."""
    blob = {"format": policy_format(policy), "key": key, "policy": policy, "settings": dict(settings),
            "state_dict": {k: v.detach().cpu().clone() for k, v in state_dict.items()}}
    atomic_torch_save(path, blob)
    return file_sha256(path)


def read_base(path: str | Path) -> dict[str, Any]:
    """The base's contents, read weights_only; a file that is not a base is a one-line error."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no supervised base at {path}; build it with the sft method or --option init=sft")
    rebuild = f"delete {path.parent} and re-run the same command to build the base again"
    problem = archive_problem(path)  # torch.load reads changed tensor bytes without a word
    if problem:
        raise DamagedFile(path, problem, rebuild)
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - any unreadable file gets the same message
        # why DamagedFile: one line that says what to do (before: torch's words only, with no remedy)
        raise DamagedFile(path, f"is not a readable supervised base ({type(exc).__name__}: {exc})", rebuild) from None
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
    blob = read_base(path)
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


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
