"""The supervised base's files when someone damaged them: partial.pt, base.pt."""

from __future__ import annotations

import re

import pytest
import torch

from searchgym.damaged import DamagedFileWarning
from searchgym.fileio import read_json
from searchgym.harness.methods import RunContext
from searchgym.harness.sft import PARTIAL, base_key, build_base, ensure_base, sft_config
from searchgym.suites import Suite, register_suite

QA = register_suite(Suite("test-sft-damaged-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 6}, world_size="tiny",
                          dev_size=3, test_size=3, description="tests: damaged files of the supervised base"))
SFT = {"sft_tasks": 3, "sft_epochs": 2, "sft_batch_size": 16}


def _ctx(root) -> RunContext:
    return RunContext(suite=QA, seed=0, budget=0, device="cpu", run_dir=root / "run", policy="hash",
                      options=dict(SFT), bases_dir=root / "bases")


def _folder(root):
    folder = root / "bases" / base_key(QA, 0, "hash", sft_config(SFT))
    folder.mkdir(parents=True)
    return folder


@pytest.mark.parametrize(("content", "said"), [
    (b"PK\x03\x04 torn", "is not a base build's progress (RuntimeError"),  # a torn write
    (None, "is not a base build's progress (lacks examples, demo_success"),  # a file of another layout
])
def test_a_damaged_partial_build_is_named_and_built_again(tmp_path, content, said):
    """Before: a torn partial.pt restarted the build silently, and one of another layout
    (torch-readable, other keys) ended in a KeyError traceback."""
    clean = ensure_base(_ctx(tmp_path / "clean"), sft_config(SFT))
    folder = _folder(tmp_path / "hit")
    if content is None:
        torch.save({"epoch": 1}, folder / PARTIAL)
    else:
        (folder / PARTIAL).write_bytes(content)
    with pytest.warns(DamagedFileWarning, match=f"{PARTIAL}: {re.escape(said)}.*building the base again from its beginning"):
        build_base(_ctx(tmp_path / "hit"), sft_config(SFT), folder.name, folder)
    meta = read_json(folder / "base.json")  # built from the start: the same demonstrations and epochs
    assert (meta["examples"], meta["shown_tasks"], len(meta["losses"])) == \
        (clean["examples"], clean["shown_tasks"], clean["settings"]["sft_epochs"])
    assert not (folder / PARTIAL).exists()


def test_a_damaged_base_file_says_which_folder_to_delete(tmp_path):
    """Before: 'base.pt is not a readable supervised base (RuntimeError: ...)' with no remedy."""
    meta = ensure_base(_ctx(tmp_path), sft_config(SFT))
    path = tmp_path / "bases" / meta["key"] / "base.pt"
    path.write_bytes(path.read_bytes()[:500])
    from searchgym.agents.sft_base import read_base

    with pytest.raises(ValueError, match=rf"base.pt: is not a readable supervised base \(RuntimeError: .*\); delete "
                                         rf".*{meta['key']} and re-run the same command to build the base again"):
        read_base(path)
