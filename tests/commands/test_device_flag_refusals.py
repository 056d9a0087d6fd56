"""``--device`` of train, compare and evaluate on a machine with one CUDA GPU: a device that names none, or a
GPU index torch does not see, is one error line before any folder is made.

Before: ``--device cuda:x`` passed the check (anything starting with ``cuda:``), wrote config.json and
checkpoint/, then failed with torch's traceback; compare called it a failed run and advised a re-run."""

from __future__ import annotations

import pytest
import torch

from searchgym.cli import main

TRAIN = ["train", "--world-size", "tiny", "--budget", "10", "--test-size", "2", "--no-progress"]
COMPARE = ["compare", "--suite", "searchqa-easy-v2", "--methods", "random", "--no-progress"]
EVALUATE = ["evaluate", "--agent", "random", "--suite", "searchqa-easy-v2", "--limit", "2", "--no-progress"]
UNKNOWN = "unknown device 'cuda:x'; accepted: auto, cpu, cuda or cuda:N (N a GPU index)"
PAST_THE_LAST = "device 'cuda:7' was asked for but torch sees 1 CUDA GPU; accepted: auto, cpu, cuda or cuda:0"


@pytest.fixture(autouse=True)
def one_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)


@pytest.mark.parametrize("command", [TRAIN, COMPARE, COMPARE + ["--executor", "ray"], EVALUATE],
                         ids=["train", "compare", "compare-ray", "evaluate"])
@pytest.mark.parametrize(("device", "said"), [("cuda:x", UNKNOWN), ("cuda:7", PAST_THE_LAST)])
def test_a_device_torch_cannot_use_is_one_line_before_any_folder(command, device, said, tmp_path, capsys):
    if "ray" in command:
        pytest.importorskip("ray", reason="the ray executor needs Ray")
        if device == "cuda:7":
            pytest.skip("a Ray driver leaves the GPU count to the cluster's nodes")
    out = tmp_path / "out"
    assert main([*command, "--device", device, "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip().endswith(f"error: {said}")
    assert not out.exists()
