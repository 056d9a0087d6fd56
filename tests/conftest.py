"""Fixtures shared by the tests of benchmarks/rl_from_base.py (its base record and its reused-base check)."""

from __future__ import annotations

import io
import subprocess

import pytest


@pytest.fixture(scope="session")
def base_bytes() -> bytes:
    """The bytes of a base.pt as rl_from_base's clone_oracle saves it (an untrained shared hash population)."""
    import torch

    from searchgym.agents.population import Population

    buffer = io.BytesIO()
    torch.save(Population.build("shared", 2, encoder="hash", seed=0).state_dict(), buffer)
    return buffer.getvalue()


@pytest.fixture
def rl_from_base(monkeypatch, base_bytes):
    """The script with its base build (writes a base of the saved layout: a reused one is checked) and its
    compare replaced by recorders (``rl_from_base.calls``)."""
    import rl_from_base

    calls = []

    def clone_oracle(suite, n_tasks, follow, epochs, seed, out):
        calls.append("base")
        out.write_bytes(base_bytes)
        return {"states": 1}

    monkeypatch.setattr(rl_from_base, "clone_oracle", clone_oracle)
    monkeypatch.setattr(subprocess, "run", lambda command, **kw: calls.append("compare") or
                        subprocess.CompletedProcess(command, 0))
    monkeypatch.setattr(rl_from_base, "calls", calls, raising=False)
    return rl_from_base
