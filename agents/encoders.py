"""Text encoders for candidate policies: one interface, three backbones, one factory.

    encoder = make_encoder("hash", device="cpu", dim=64)
    emb = encoder(["question text", 'web_search(query="Vexa Corp")'])   # [2, encoder.dim]

- "hash":   hashed word unigrams + bigrams -> EmbeddingBag (fast, CPU tests)   encoder_hash.py
- "minilm": frozen all-MiniLM-L6-v2 (offline) + trainable projection         encoder_minilm.py
- "hf":     any Hugging Face (causal) LM, last non-pad hidden state + projection  encoder_hf.py

The minilm / hf modules import sentence-transformers / transformers, so they load lazily.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import Tensor, nn

from searchgym.devices import resolve_device as resolve_device_name
from searchgym.named_registry import NamedRegistry


def resolve_device(device: str | torch.device = "auto") -> torch.device:
    """ "auto" -> cuda when available else cpu; "cpu"; "cuda" / "cuda:N" (error if torch sees no such GPU).
    The one device check (:func:`searchgym.devices.resolve_device`), so a config's device is
    refused in the same words as ``--device``."""
    named = str(device) if isinstance(device, torch.device) else device
    return torch.device(resolve_device_name(named, flag="device"))


class BoundedCache(dict):
    """A dict that forgets its oldest entries past `max_size` (RL revisits the same texts often)."""

    def __init__(self, max_size: int = 200_000) -> None:
        super().__init__()
        self.max_size = max_size

    def put(self, key: Any, value: Any) -> None:
        if len(self) >= self.max_size:
            del self[next(iter(self))]
        self[key] = value

    def get_or_make(self, key: Any, make: Callable[[], Any]) -> Any:
        """The value kept under ``key``, else ``make()`` kept and returned (values are never None)."""
        found = self.get(key)
        if found is None:
            found = make()
            self.put(key, found)
        return found


class TextEncoder(nn.Module):
    """Maps a list of strings to a float tensor [len(texts), dim] on the encoder's device."""

    dim: int

    def forward(self, texts: Sequence[str]) -> Tensor:  # pragma: no cover - interface
        raise NotImplementedError

    @property
    def device(self) -> torch.device:
        for p in self.parameters():
            return p.device
        return torch.device("cpu")


#: Encoder name -> its class, ``Class(device=..., **kwargs)``; lazy entries, imported on first use
#: (each class's module imports this one for :class:`TextEncoder`).
ENCODERS: NamedRegistry[str] = NamedRegistry("encoder")
ENCODERS.add("hash", "searchgym.agents.encoder_hash:HashEncoder")
ENCODERS.add("minilm", "searchgym.agents.encoder_minilm:MiniLMEncoder")
ENCODERS.add("hf", "searchgym.agents.encoder_hf:HFEncoder")


def make_encoder(name: str, device: str | torch.device = "cpu", **kwargs: Any) -> TextEncoder:
    """Build encoder `name` (see ENCODERS) on `device`; kwargs go to its constructor."""
    build = ENCODERS.load(name)  # an unknown name: an error listing the accepted ones
    dev = resolve_device(device)
    try:
        encoder = build(device=dev, **kwargs)
    except TypeError as err:
        accepted = [n for n in inspect.signature(build).parameters if n not in ("self", "device")]
        raise TypeError(f"bad arguments for encoder {name!r}: {err}; it accepts {', '.join(accepted) or 'none'}") from err
    return encoder.to(dev)
