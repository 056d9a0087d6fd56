"""benchmarks/bench_reader.py: both variants of the reader choose the same actions (the memo keeps
behaviour), and the script says so through its exit status."""

from __future__ import annotations

import bench_reader


def test_memoised_and_parsed_reader_choose_the_same_actions(capsys):
    assert bench_reader.main(["--tasks", "6", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "same actions: True" in out and "CPU-ms per decision" in out
