"""torch.save files we read back (a run's checkpoint, a supervised base, a base build's progress)
whose tensor bytes changed after they were written are refused by their zip records' checksums.
Before: torch.load does not check them, and a checkpoint with one flipped byte loaded other weights."""

from __future__ import annotations

import io
import struct
import zipfile

import pytest
import torch
from searchgym.agents.trainer_base import read_checkpoint

from searchgym.damaged import DamagedFile, DamagedFileWarning
from searchgym.torch_archive import archive_problem


def flip_tensor_byte(data: bytes) -> bytes:
    """``data`` (a torch.save archive) with one byte of its first tensor record inverted."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    record = next(i for i in archive.infolist() if "/data/" in i.filename and i.file_size > 8)
    offset = record.header_offset
    name_length, extra_length = struct.unpack("<HH", data[offset + 26:offset + 30])
    at = offset + 30 + name_length + extra_length + record.file_size // 2
    changed = bytearray(data)
    changed[at] ^= 0xFF
    return bytes(changed)


def saved(obj) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def test_torch_load_alone_reads_a_flipped_byte_and_the_check_names_the_record():
    data = flip_tensor_byte(saved({"w": torch.arange(1000, dtype=torch.float32)}))
    loaded = torch.load(io.BytesIO(data), weights_only=True)["w"]  # what the check is for: no error here
    assert not torch.equal(loaded, torch.arange(1000, dtype=torch.float32))
    problem = archive_problem(io.BytesIO(data))
    assert problem is not None and "fails its checksum" in problem and "/data/0" in problem


def test_an_intact_archive_passes_and_a_handle_is_left_at_its_start(tmp_path):
    path = tmp_path / "w.pt"
    path.write_bytes(saved({"w": torch.ones(3)}))
    assert archive_problem(path) is None
    with open(path, "rb") as handle:
        handle.read(7)
        assert archive_problem(handle) is None and handle.tell() == 0
    # not a zip at all (cut short, or another format): torch.load's to refuse, in its own words
    assert archive_problem(io.BytesIO(b"not a zip archive")) is None


def test_a_checkpoint_with_a_flipped_tensor_byte_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "checkpoint.pt"
    path.write_bytes(flip_tensor_byte(saved({"state": {"iteration": 1}, "weights": torch.arange(64.0)})))
    with pytest.raises(DamagedFile) as caught:
        read_checkpoint(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: its record ") and "fails its checksum" in message and "\n" not in message
    assert message.endswith("delete it to start the run again")


def test_a_supervised_base_with_a_flipped_tensor_byte_is_refused(tmp_path):
    from searchgym.agents.sft_base import read_base

    path = tmp_path / "key" / "base.pt"
    path.parent.mkdir()
    path.write_bytes(flip_tensor_byte(saved({"policy": "hash", "state_dict": {"w": torch.arange(64.0)}})))
    with pytest.raises(DamagedFile, match=r"base.pt: its record .* fails its checksum .*; delete .*key and re-run"):
        read_base(path)


def test_a_base_builds_progress_with_a_flipped_tensor_byte_is_built_again(tmp_path):
    from searchgym.harness.sft import _read_partial

    path = tmp_path / "partial.pt"
    path.write_bytes(flip_tensor_byte(saved({"weights": {"w": torch.arange(64.0)}})))
    with pytest.warns(DamagedFileWarning, match=r"partial.pt: its record .* fails its checksum.*building the base again"):
        assert _read_partial(path) is None
