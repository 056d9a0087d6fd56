"""The devices a user may name (``--device``, a recipe's or a config's ``device``), and whether torch
sees them: one check for every place that takes a device, low in the stack so that the agents and the
harness share it. Why: the harness took anything starting with ``cuda:`` and the agents had their own
words, so ``--device cuda:x`` passed the command's check and failed inside torch after the run's folder
was written. torch is imported only to ask about GPUs: a run of baselines needs none.
"""

from __future__ import annotations

import re

#: The device names besides ``cuda:N``.
DEVICES = ("auto", "cpu", "cuda")
#: A GPU by its index, as torch reads it (``cuda:01``, ``cuda:-1`` and ``cuda:x`` are not).
CUDA_INDEX = re.compile(r"cuda:(0|[1-9][0-9]*)")


def check_device(device: object) -> str:
    """``device`` where it names a device at all (``auto``, ``cpu``, ``cuda`` or ``cuda:N``), else one
    ValueError; it asks torch nothing (a Ray driver may see no GPU where its workers do)."""
    if not isinstance(device, str) or (device not in DEVICES and not CUDA_INDEX.fullmatch(device)):
        raise ValueError(f"unknown device {device!r}; accepted: {', '.join(DEVICES)} or cuda:N "
                         "(N a GPU index)")
    return device


def resolve_device(device: str, flag: str = "--device") -> str:
    """"auto" -> "cuda" where torch sees a GPU, else "cpu"; a GPU torch does not see (``cuda`` on a
    machine without one, ``cuda:N`` past the last index) is an error naming ``flag``."""
    check_device(device)
    if device == "cpu":
        return "cpu"
    try:
        import torch

        has_cuda = torch.cuda.is_available()
        count = torch.cuda.device_count() if has_cuda else 0
    except ImportError:
        has_cuda, count = False, 0
    if device == "auto":
        return "cuda" if has_cuda else "cpu"
    if not has_cuda:
        raise ValueError(f"device {device!r} was asked for but torch sees no CUDA GPU; "
                         f"use {flag} cpu or auto")
    if ":" in device and int(device.split(":")[1]) >= count:
        indices = "cuda:0" if count == 1 else f"cuda:0 to cuda:{count - 1}"
        gpus = f"{count} CUDA GPU{'s' * (count != 1)}"
        raise ValueError(f"device {device!r} was asked for but torch sees {gpus}; "
                         f"accepted: {', '.join(DEVICES)} or {indices}")
    return device
