"""Provenance: versions, git revision and devices."""

from __future__ import annotations

import pytest
import torch

from searchgym.devices import resolve_device
from searchgym.harness.provenance import device_name, git_revision, package_versions


def test_versions_and_revision(tmp_path):
    versions = package_versions(("numpy", "surely-not-a-package-xyz"))
    assert versions["numpy"].count(".") >= 1 and versions["surely-not-a-package-xyz"] == "not installed"
    assert git_revision(tmp_path) == {"revision": "unknown", "dirty": None}  # not a repository
    assert len(git_revision()["revision"]) in (40, 7) or git_revision()["revision"] == "unknown"


def test_devices():
    assert resolve_device("cpu") == "cpu"
    assert "logical cores" in device_name("cpu")
    with pytest.raises(ValueError, match="unknown device 'gpu'; accepted: auto, cpu, cuda or cuda:N"):
        resolve_device("gpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU error")
def test_cuda_without_a_gpu_is_a_clear_error():
    assert resolve_device("auto") == "cpu"
    with pytest.raises(ValueError, match="torch sees no CUDA GPU; use --device cpu or auto"):
        resolve_device("cuda")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_auto_picks_the_gpu_and_names_it():
    assert resolve_device("auto") == "cuda"
    assert device_name("cuda") == torch.cuda.get_device_name(0)
