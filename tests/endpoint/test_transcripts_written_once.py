"""An endpoint run writes its transcripts when its evaluation ends, never later: before, the last
write was a finalizer run at garbage collection, which could come during a later run in the same
process and put the whole file back over one that had since been cut, replaced or redone."""

from __future__ import annotations

import gc

from searchgym.cli import main
from searchgym.endpoint.scripted_endpoint import ScriptedEndpoint
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-transcripts-once-v0", 0, "SearchQA-v0", {"max_steps": 6}, world_size="tiny",
                             test_size=3, dev_size=1))


def test_a_finished_runs_transcripts_are_not_written_again_at_garbage_collection(tmp_path):
    out = tmp_path / "run"
    with ScriptedEndpoint(SUITE, "oracle") as endpoint:
        assert main(["evaluate", "--suite", SUITE.id, "--agent", "openai", "--model", "m", "--base-url",
                     endpoint.base_url, "--out", str(out), "--no-progress", "--concurrency", "2"]) == 0
    written = (out / "transcripts.jsonl").read_bytes()
    assert written.count(b"\n") >= 3
    (out / "transcripts.jsonl").write_bytes(b"replaced\n")  # a user cut, moved or redid it
    gc.collect()  # before: the first run's actor was collected here and its finalizer wrote the file again
    assert (out / "transcripts.jsonl").read_bytes() == b"replaced\n"
