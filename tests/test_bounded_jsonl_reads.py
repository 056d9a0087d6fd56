"""One bounded JSONL reader (searchgym.damaged.JsonlRows) for a run's files and the tiny-LM recipe's rows,
and a checkpoint read only up to the size a run of its policy writes."""

from __future__ import annotations

import io
import json
import re

import pytest
import torch
from searchgym.agents import tiny_lm_records
from searchgym.agents.train import TrainConfig, Trainer
from searchgym.agents.trainer_base import CHECKPOINT, max_checkpoint_bytes, read_checkpoint

from searchgym.damaged import LINKED_READ, DamagedFile, DamagedFileWarning, JsonlRows
from searchgym.harness import run_reads
from searchgym.torch_archive import MAX_ARCHIVE_BYTES

pytestmark = pytest.mark.timeout(300)
HOSTILE = (b'{"iteration": 1, "train_success": 0.5}\n' + b"\n   \n" + b"not json\n" + b"[1, 2]\n"
           + b'{"pad": "' + b"x" * 200 + b'"}\n' + b"\xff\xfe\n" + b'{"iteration": 2, "train_success": 1.0}\n'
           + b'{"iteration": 3, "tr')


def test_the_shared_reader_skips_what_no_row_is_and_counts_overlong_lines(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(HOSTILE)
    lines = JsonlRows(path, 100)
    assert [row["iteration"] for row in lines] == [1, 2] and lines.overlong == 1 and not lines.past_values
    assert list(JsonlRows(tmp_path / "missing.jsonl", 100)) == []
    (tmp_path / "link.jsonl").symlink_to(path)
    with pytest.raises(DamagedFile, match=re.escape(f"link.jsonl: {LINKED_READ}; fix it")):
        list(JsonlRows(tmp_path / "link.jsonl", 100, "fix it"))
    with pytest.raises(DamagedFile, match=f"is {len(HOSTILE)} bytes, more than the 100 such a file may hold"):
        list(JsonlRows(path, 1000, max_bytes=100))


def test_both_readers_read_the_same_rows_through_it(tmp_path, monkeypatch):
    """Before: run_reads.read_rows and tiny_lm_records._bounded_rows were two copies of this loop."""
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(HOSTILE)
    made = []
    real = JsonlRows.__init__
    monkeypatch.setattr(JsonlRows, "__init__", lambda self, *a, **k: made.append(a[:2]) or real(self, *a, **k))
    found = run_reads.read_rows(path, 100, "fix it")
    assert [r["iteration"] for r in found.rows] == [1, 2] and found.overlong == 1 and found.stopped == ""
    rows, missing, damaged = tiny_lm_records.logged_rows(path, 3)
    assert [r["iteration"] for r in rows] == [1, 2] and missing == [3] and damaged == ""
    assert made == [(path, 100), (path, tiny_lm_records.MAX_ROW_LINE)]


def test_a_file_of_blank_lines_is_bounded_as_its_values(tmp_path, monkeypatch):
    """Blank lines count as a value each in both readers (the recipe's rule). Before: a run's metrics.jsonl
    of newlines was read to its end (a GiB of them: 2**30 lines), whatever ``max_values``."""
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(b"\n" * 20 + b'{"step": 1}\n')
    found = run_reads.read_rows(path, 100, "fix it", max_values=10)
    assert found.rows == [] and found.stopped == "holds more than 10 JSON values"
    monkeypatch.setattr(tiny_lm_records, "MAX_ROWS_VALUES", 10)
    with pytest.raises(DamagedFile, match=r"metrics.jsonl: holds more than 10 JSON values, more than the rows of"):
        tiny_lm_records.logged_rows(path, 1)


def test_the_row_and_value_caps_keep_their_messages(tmp_path):
    path = tmp_path / "predictions.jsonl"
    path.write_text("".join(json.dumps({"i": i}) + "\n" for i in range(5)))
    assert run_reads.read_rows(path, 100, "fix it", max_rows=3).stopped == "holds more than 3 rows"
    assert len(run_reads.read_rows(path, 100, "fix it", max_rows=3).rows) == 3
    assert run_reads.read_rows(path, 100, "fix it", max_values=7).stopped == "holds more than 7 JSON values"
    path.write_text(json.dumps({"a": list(range(10))}) + "\n")
    with pytest.raises(DamagedFile, match="row 1 holds more than 5 JSON values, which no row a run writes holds"):
        run_reads.read_rows(path, 1000, "fix it", row_values=5)


# ---------------------------------------------------------------------------- checkpoints
def small_config(**overrides) -> TrainConfig:
    base = {"env_id": "SearchQA-Candidates-Easy-v0", "env_kwargs": {"world_size": "tiny", "max_steps": 4},
            "estimator": "cw_value", "value_head": True, "group_size": 3, "tasks_per_iteration": 2, "budget": 10_000,
            "eval_every": 100, "eval_tasks": 4, "device": "cpu", "seed": 3}
    return TrainConfig(**{**base, **overrides})


@pytest.fixture(scope="module")
def legacy(tmp_path_factory):
    """A good checkpoint after one iteration, saved in torch's legacy (non-zip) format, and its trainer."""
    folder = tmp_path_factory.mktemp("good")
    trainer = Trainer(small_config(), out_dir=folder, log=lambda row: None)
    trainer.iterate()
    blob = torch.load(folder / CHECKPOINT, weights_only=True)
    buffer = io.BytesIO()
    torch.save(blob, buffer, _use_new_zipfile_serialization=False)
    return buffer.getvalue(), trainer


def test_a_normal_legacy_checkpoint_still_resumes(legacy, tmp_path):
    data, trainer = legacy
    (tmp_path / CHECKPOINT).write_bytes(data)
    resumed = Trainer(small_config(), out_dir=tmp_path, log=lambda row: None)
    assert resumed.state.iteration == trainer.state.iteration == 1


def test_a_legacy_checkpoint_past_the_cap_is_refused_unread(legacy, tmp_path):
    """Before: a checkpoint in torch's legacy format went to torch.load whatever its size (this one, a good
    checkpoint followed by 16 GiB of zeros, resumed)."""
    data, _ = legacy
    path = tmp_path / CHECKPOINT
    with open(path, "wb") as handle:  # sparse: no disk taken
        handle.write(data)
        handle.truncate(16 * 2**30 + len(data))
    size, cap = path.stat().st_size, 16 * 2**30
    with pytest.warns(DamagedFileWarning) as caught:
        resumed = Trainer(small_config(), out_dir=tmp_path, log=lambda row: None)
    message = next(str(w.message) for w in caught if w.category is DamagedFileWarning)
    assert message == (f"{path}: is {size} bytes, more than the {cap} such a file may hold; starting the run "
                       "again from its beginning")
    assert resumed.state.iteration == 0
    with pytest.raises(DamagedFile, match=f"{CHECKPOINT}: is {size} bytes, more than the {size - 1} such a file"):
        read_checkpoint(path, max_bytes=size - 1)


def test_the_cap_follows_the_policy_as_the_base_cap_does():
    from searchgym.agents.sft_base import MAX_BOUNDED_BASE_BYTES

    assert max_checkpoint_bytes("hash") == 4 * MAX_BOUNDED_BASE_BYTES  # weights, two Adam moments, a reference
    assert max_checkpoint_bytes("attn", members=3) == 12 * MAX_BOUNDED_BASE_BYTES  # a separate population's
    assert max_checkpoint_bytes("hf") == max_checkpoint_bytes(None) == MAX_ARCHIVE_BYTES  # an LLM's: generous
    assert max_checkpoint_bytes("hash", members=1000) == MAX_ARCHIVE_BYTES
