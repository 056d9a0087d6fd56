"""One check of every device a user gives: ``auto``, ``cpu``, ``cuda`` or ``cuda:N``, and a GPU torch sees.

Before: anything starting with ``cuda:`` was taken, so on a machine with CUDA ``cuda:x`` failed inside
torch ("Invalid device string") after the run's folder was written, and ``cuda:7`` on a one-GPU machine
was taken too. The agents' own check (``agents.encoders.resolve_device``) had other words again."""

from __future__ import annotations

import pytest
import torch
from searchgym.agents.encoders import resolve_device as torch_device

from searchgym.devices import check_device, resolve_device
from searchgym.harness.provenance import run_device

UNKNOWN = "accepted: auto, cpu, cuda or cuda:N (N a GPU index)"


@pytest.fixture
def gpus(monkeypatch):
    """Makes torch report ``count`` CUDA GPUs (none: no CUDA)."""
    def fake(count: int) -> None:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: count > 0)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: count)
    return fake


MISSPELT = ["cuda:x", "cuda:-1", "cuda:1.5", "cuda:01", "cuda: 1", "cuda:", "CUDA", "", None]


@pytest.mark.parametrize("device", MISSPELT)
def test_a_device_that_names_none_is_refused_in_one_line(device, gpus):
    gpus(1)
    with pytest.raises(ValueError) as caught:
        check_device(device)
    assert str(caught.value) == f"unknown device {device!r}; {UNKNOWN}"
    for resolve in (resolve_device, torch_device):  # before: torch's RuntimeError for cuda:x
        with pytest.raises(ValueError, match="unknown device"):
            resolve(device)


@pytest.mark.parametrize("device", ["auto", "cpu", "cuda", "cuda:0", "cuda:12"])
def test_the_accepted_names_pass_the_check(device):
    assert check_device(device) == device


def test_a_gpu_index_past_the_last_names_how_many_torch_sees(gpus):
    gpus(1)
    assert resolve_device("cuda:0") == "cuda:0" and resolve_device("auto") == "cuda"
    with pytest.raises(ValueError) as caught:
        resolve_device("cuda:7")
    assert str(caught.value) == ("device 'cuda:7' was asked for but torch sees 1 CUDA GPU; "
                                 "accepted: auto, cpu, cuda or cuda:0")
    gpus(4)
    assert resolve_device("cuda:3") == "cuda:3"
    with pytest.raises(ValueError, match="sees 4 CUDA GPUs; accepted: auto, cpu, cuda or cuda:0 to cuda:3"):
        torch_device("cuda:4")


def test_the_agents_check_speaks_the_harness_words(gpus):
    gpus(0)
    with pytest.raises(ValueError, match="'cuda' was asked for but torch sees no CUDA GPU; use device cpu"):
        torch_device("cuda")
    assert torch_device(torch.device("cpu")) == torch.device("cpu")


def test_a_baseline_on_the_cpu_fallback_still_refuses_a_misspelt_device(gpus):
    gpus(0)
    assert run_device("cuda:1", trains=False) == "cpu"
    with pytest.raises(ValueError, match="unknown device 'cuda:x'"):  # before: "cpu"
        run_device("cuda:x", trains=False)
