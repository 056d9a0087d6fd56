"""A kept SFT world file is decompressed no further than its settings' tasks need, and a row no longer than a
transcript within their ``max_episode_tokens`` is read.

Before: only the 256 MiB cap of any world file bounded it, so a 233 KB file in the recipe's ``sft_data/``
decompressed to a row of 60,000,000 token ids, accepted after 14 s at 1.65 GB."""

from __future__ import annotations

import gzip
import json
import zlib

import pytest

pytest.importorskip("torch")

from searchgym.agents import lm_sft_data
from searchgym.agents.llm_rollout import RolloutConfig
from searchgym.agents.lm_sft_data import read_world, world_file, world_settings

from searchgym.damaged import DamagedFile

TASKS = 3


def settings(cap=4096):
    return world_settings("searchqa-text-v2", 7, TASKS, 0, 0, True, RolloutConfig(max_episode_tokens=cap), "f" * 16)


def row(ids=(5, 6, 7), **extra):
    return {"task_id": "t1", "token_ids": list(ids), "loss_mask": [0] * len(ids), "success": True, "allowed": [],
            **extra}


def write(tmp_path, world, rows):
    """A world file of ``world``'s header and ``rows``, as write_world writes one."""
    path = world_file(tmp_path, world["world_seed"])
    gz = zlib.compressobj(6, zlib.DEFLATED, 31)
    parts = [gz.compress(json.dumps({"format": lm_sft_data.FORMAT, "version": lm_sft_data.VERSION,
                                     "settings": world}).encode() + b"\n")]
    parts += [gz.compress(json.dumps(r).encode() + b"\n") for r in rows]
    path.write_bytes(b"".join(parts) + gz.flush())
    return path


def test_a_world_within_the_bounds_is_read(tmp_path):
    world = settings()
    cap_long = 2 * 4096  # the reader's last turn is added whole: a row may pass the cap by a turn
    path = write(tmp_path, world, [row(), row(range(cap_long)), row()])
    assert [len(t.token_ids) for t in read_world(path, world)] == [3, cap_long, 3]


def test_a_small_file_that_inflates_to_a_huge_row_is_refused_early(tmp_path):
    world = settings()
    path = world_file(tmp_path, world["world_seed"])
    gz = zlib.compressobj(6, zlib.DEFLATED, 31)
    head = json.dumps({"format": lm_sft_data.FORMAT, "version": lm_sft_data.VERSION, "settings": world}).encode()
    chunk = b"0," * 500_000
    body = [gz.compress(head + b'\n{"task_id":"t","success":true,"allowed":[],"token_ids":[')]
    body += [gz.compress(chunk) for _ in range(4)] + [gz.compress(b'0],"loss_mask":[')]
    body += [gz.compress(chunk) for _ in range(4)] + [gz.compress(b"0]}\n"), gz.flush()]
    path.write_bytes(b"".join(body))  # ~20 KB packed, 8 MB of text: 2,000,001 ids
    limit = len(head) + 1 + TASKS * 4096 * lm_sft_data.BYTES_PER_TOKEN
    with pytest.raises(DamagedFile, match=f"decompresses to more than {limit} bytes, more than a world of 3 tasks "
                                          "within max_episode_tokens 4096 writes") as error:
        read_world(path, world)
    assert str(path) in str(error.value) and "\n" not in str(error.value)


def test_a_row_longer_than_a_transcript_within_the_cap_is_refused(tmp_path):
    world = settings(cap=1000)
    path = write(tmp_path, world, [row(), row([0] * 2001)])  # 8 KB of text, within the file's bound
    with pytest.raises(DamagedFile, match="line 3: holds 2001 token ids, more than the 2000 of a transcript"):
        read_world(path, world)


def test_a_line_longer_than_a_transcript_writes_is_refused_unparsed(tmp_path):
    world = settings(cap=1000)
    longest = 2000 * lm_sft_data.BYTES_PER_TOKEN + lm_sft_data.ROW_FIXED_BYTES
    path = write(tmp_path, world, [row(task_id="t" * longest)])
    with pytest.raises(DamagedFile, match=r"line 2 is \d+ characters long, more than a transcript of at most 2000 "
                                          rf"tokens writes \({longest}\)"):
        read_world(path, world)


def test_more_rows_than_tasks_are_refused(tmp_path):
    world = settings()
    path = write(tmp_path, world, [row()] * (TASKS + 1))
    with pytest.raises(DamagedFile, match=f"holds {TASKS + 1} transcripts, more than its {TASKS} tasks"):
        read_world(path, world)


def test_a_header_too_long_for_these_settings_is_another_world_s_file(tmp_path):
    world = settings()
    other = dict(world, rollout=dict(world["rollout"], system_prompt="x" * 100_000))
    path = write(tmp_path, other, [row()])
    assert read_world(path, world) is None
    path.write_bytes(gzip.compress(b"y" * 100_000 + b"\n"))  # as long, and no header
    with pytest.raises(DamagedFile, match="does not start with a searchgym-sft-transcripts header"):
        read_world(path, world)
