"""A handed-over torch file cannot make its reader inflate or re-read bytes it does not hold.

Before: a checkpoint.pt rewritten with every record deflated (6.8 MB holding a 1.6 GB tensor) loaded in
4.65 GB and 92 s, as did base.pt and partial.pt; ``torch.save`` never compresses, so such a record, or
records declaring more bytes than the file holds, are refused before anything is inflated, naming the file."""

from __future__ import annotations

import io
import zipfile

import pytest
import torch
from searchgym.agents.sft_base import read_base, save_base
from searchgym.agents.trainer_base import read_checkpoint

from searchgym import torch_archive
from searchgym.damaged import DamagedFile, DamagedFileWarning
from searchgym.fileio import atomic_torch_save
from searchgym.torch_archive import archive_problem


def saved(obj) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def deflated(data: bytes) -> bytes:
    """``data`` (a torch.save archive) with every record rewritten ZIP_DEFLATED: it loads as before."""
    source, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            target.writestr(info.filename, source.read(info), compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def nested(inner_size: int = 10_000) -> bytes:
    """A stored archive whose record ``outer`` holds the whole record ``inner`` (header and bytes): every
    checksum holds and every name matches, but ``inner``'s bytes are counted twice."""
    first = io.BytesIO()
    with zipfile.ZipFile(first, "w") as archive:
        archive.writestr("inner", b"x" * inner_size)
        inner = archive.getinfo("inner")
        end = archive.start_dir
    held = first.getvalue()[:end]
    out = io.BytesIO()
    archive = zipfile.ZipFile(out, "w")
    archive.writestr("outer", held)
    outer = archive.getinfo("outer")
    inner.header_offset = outer.header_offset + len(outer.FileHeader())
    archive.filelist.append(inner)
    archive.NameToInfo["inner"] = inner
    archive.close()
    return out.getvalue()


BLOB = {"state": {"iteration": 1}, "weights": torch.ones(16), "padding": torch.zeros(200_000)}


def test_every_file_searchgym_writes_is_stored_and_passes(tmp_path):
    """The premise of the check, with the torch installed: torch.save stores every record as it is."""
    from searchgym.agents.imitation import Examples
    from searchgym.agents.train import TrainConfig, Trainer

    config = TrainConfig(env_id="SearchQA-Candidates-Easy-v0", env_kwargs={"world_size": "tiny", "max_steps": 4},
                         group_size=2, tasks_per_iteration=2, budget=100, eval_every=100, eval_tasks=2, device="cpu")
    trainer = Trainer(config, out_dir=tmp_path / "run", log=lambda row: None)
    trainer.iterate()
    trainer.save()
    weights = trainer.population.policy_for(0).state_dict()
    save_base(tmp_path / "base.pt", "k", "hash", weights, {"sft_epochs": 1})
    examples = Examples.empty()
    examples.add({"text": "q", "candidates": ["a", "b"], "action_mask": [1, 1]}, 1, "bridge")
    optimizer = torch.optim.Adam(trainer.population.policy_for(0).parameters())
    atomic_torch_save(tmp_path / "partial.pt", {  # what harness.sft.build_base's checkpoint() writes
        "examples": examples.as_dict(), "demo_success": 0.5, "round": 0, "epoch": 1, "losses": [1.0],
        "dagger_success": [], "weights": weights, "optimizer": optimizer.state_dict(),
        "generator": torch.Generator().get_state(), "build_seconds": [1.0, 1.0]})
    for path in (tmp_path / "run" / "checkpoint.pt", tmp_path / "base.pt", tmp_path / "partial.pt"):
        with zipfile.ZipFile(path) as archive:
            assert {info.compress_type for info in archive.infolist()} == {zipfile.ZIP_STORED}, path
        assert archive_problem(path) is None, path


def test_a_deflated_checkpoint_is_refused_naming_the_file_before_loading(tmp_path):
    path = tmp_path / "checkpoint.pt"
    path.write_bytes(deflated(saved(BLOB)))
    assert torch.load(path, weights_only=True)["padding"].numel() == 200_000  # what the check is for
    with pytest.raises(DamagedFile) as caught:
        read_checkpoint(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: its record 'archive/data.pkl' is compressed (deflate), where torch.save "
                              "stores every record as it is") and "\n" not in message
    assert message.endswith("delete it to start the run again")


def test_a_deflated_base_is_refused_and_a_deflated_build_progress_is_built_again(tmp_path):
    base = tmp_path / "key" / "base.pt"
    base.parent.mkdir()
    base.write_bytes(deflated(saved({"format": "x", "policy": "hash", "state_dict": {"w": torch.zeros(1000)}})))
    with pytest.raises(DamagedFile, match=r"base.pt: its record .* is compressed \(deflate\).*; delete .*key"):
        read_base(base)
    from searchgym.harness.sft import _read_partial

    partial = tmp_path / "partial.pt"
    partial.write_bytes(deflated(saved(BLOB)))
    with pytest.warns(DamagedFileWarning, match=r"partial.pt: its record .* is compressed \(deflate\)"):
        assert _read_partial(partial) is None


def test_records_that_hold_one_another_are_refused():
    data = nested()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.testzip() is None  # every checksum and name holds
    problem = archive_problem(io.BytesIO(data))
    assert problem is not None and problem.startswith("its records declare ") and f"file's {len(data)}" in problem


def test_the_total_and_the_record_count_are_capped(tmp_path, monkeypatch):
    path = tmp_path / "checkpoint.pt"
    path.write_bytes(saved(BLOB))
    assert archive_problem(path) is None
    monkeypatch.setattr(torch_archive, "MAX_ARCHIVE_BYTES", 100_000)
    with pytest.raises(DamagedFile, match=rf"^{path}: its records hold \d+ bytes in all; at most 100000 are read"):
        read_checkpoint(path)
    monkeypatch.setattr(torch_archive, "MAX_ARCHIVE_BYTES", 2**40)
    monkeypatch.setattr(torch_archive, "MAX_RECORDS", 3)
    with open(path, "rb") as handle:
        assert archive_problem(handle).startswith("its archive has ") and handle.tell() == 0


def test_a_stored_record_whose_sizes_differ_is_refused():
    data = bytearray(saved({"w": torch.ones(4)}))
    central = data.index(b"PK\x01\x02")  # the first central directory record
    size = int.from_bytes(data[central + 24:central + 28], "little")  # its uncompressed size
    data[central + 24:central + 28] = (size + 1).to_bytes(4, "little")
    problem = archive_problem(io.BytesIO(bytes(data)))
    assert problem is not None and f"declares {size + 1} bytes but stores {size}" in problem
