"""The supervised base's files when someone damaged them: partial.pt, base.pt."""

from __future__ import annotations

import json
import re

import pytest
import torch

from searchgym.damaged import DamagedFile, DamagedFileWarning
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


ONE = {"text": ["q"], "candidates": [["a", "b"]], "mask": [[1, 1]], "action": [1], "family": ["lookup"]}
PROGRESS_OF = "is not a base build's progress ("
PROGRESS = {"demo_success": 0.5, "round": 0, "epoch": 0, "losses": [], "dagger_success": []}


@pytest.mark.parametrize(("content", "said"), [
    (b"PK\x03\x04 torn", "is not a base build's progress (RuntimeError"),  # a torn write
    ({"epoch": 1}, "is not a base build's progress (lacks examples, demo_success"),  # a file of another layout
    # Before: "Examples.__init__() got an unexpected keyword argument 'evil'" (a TypeError, no file named)
    ({**PROGRESS, "examples": {"evil": 1}},
     PROGRESS_OF + "its examples have the fields evil where text, candidates, mask"),
    ({**PROGRESS, "examples": {**ONE, "action": [1, 0]}}, PROGRESS_OF + "its examples are not lists of one length"),
    ({**PROGRESS, "examples": {**ONE, "action": [5]}}, PROGRESS_OF + "its example 1 is not a demonstrated decision"),
    ({**PROGRESS, "examples": ONE, "build_seconds": ["x", 1]}, PROGRESS_OF + "lacks build_seconds as two numbers"),
    # weights of another model: before, a torch traceback about the state dict
    ({**PROGRESS, "examples": ONE, "epoch": 1, "weights": {"w": torch.zeros(2)}, "optimizer": {},
      "generator": torch.zeros(1, dtype=torch.uint8)}, "holds a model state this build cannot resume (RuntimeError"),
])
def test_a_damaged_partial_build_is_named_and_built_again(tmp_path, content, said):
    """Before: a torn partial.pt restarted the build silently, and one of another layout
    (torch-readable, other keys) ended in a KeyError traceback."""
    clean = ensure_base(_ctx(tmp_path / "clean"), sft_config(SFT))
    folder = _folder(tmp_path / "hit")
    if isinstance(content, dict):
        torch.save(content, folder / PARTIAL)
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


@pytest.mark.parametrize(("damage", "said"), [
    (lambda meta: [1], "holds a list where an object belongs"),  # before: 'list' object has no attribute 'get'
    (lambda meta: {k: v for k, v in meta.items() if k != "dev_agreement"},
     "lacks 'dev_agreement' (an object)"),  # before: error: 'dev_agreement' (a KeyError)
    (lambda meta: {**meta, "dev_success": float("nan")}, "its 'dev_success' is NaN where a finite number belongs"),
    (lambda meta: {**meta, "curve": [1]}, "its 'curve' is a list where a list of objects belongs"),
    (lambda meta: {**meta, "examples": "12"}, "its 'examples' is a string ('12') where a whole number >= 0"),
])
def test_a_damaged_base_record_is_one_line_naming_it(tmp_path, damage, said):
    meta = ensure_base(_ctx(tmp_path), sft_config(SFT))
    path = tmp_path / "bases" / meta["key"] / "base.json"
    path.write_text(json.dumps(damage(read_json(path))))
    with pytest.raises(DamagedFile, match=rf"base.json: {re.escape(said)}.*; delete .*{meta['key']} and re-run"):
        ensure_base(_ctx(tmp_path), sft_config(SFT))


def test_a_base_record_with_an_int_too_long_to_read_names_the_file(tmp_path):
    """Before: "Exceeds the limit (4300 digits) for integer string conversion", no file named."""
    meta = ensure_base(_ctx(tmp_path), sft_config(SFT))
    path = tmp_path / "bases" / meta["key"] / "base.json"
    path.write_text(path.read_text().replace('"examples": ', '"examples": ' + "1" * 5000 + "0 * ", 1))
    with pytest.raises(DamagedFile, match=r"base.json: holds a number of more than 4300 digits, which no searchgym file"):
        ensure_base(_ctx(tmp_path), sft_config(SFT))


@pytest.mark.parametrize("linked", ["bases", "bases/KEY"])
def test_a_linked_bases_folder_is_refused_and_nothing_is_written_where_it_points(tmp_path, linked):
    """Before: a ``bases`` (or ``bases/<key>``) link in a run folder had the base built where it pointed."""
    from searchgym.fileio import LINKED

    key = base_key(QA, 0, "hash", sft_config(SFT))
    outside = tmp_path / "outside"
    outside.mkdir()
    link = tmp_path / linked.replace("KEY", key)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside, target_is_directory=True)
    with pytest.raises(DamagedFile, match=re.escape(f"{link}: {LINKED}")):
        ensure_base(_ctx(tmp_path), sft_config(SFT))
    assert list(outside.iterdir()) == []
