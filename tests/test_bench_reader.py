"""benchmarks/bench_reader.py: both variants of the reader choose the same actions (the memo keeps
behaviour), and the script says so through its exit status."""

from __future__ import annotations

import bench_reader


def test_memoised_and_parsed_reader_choose_the_same_actions(capsys):
    assert bench_reader.main(["--tasks", "6", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "same actions: True" in out and "CPU-ms per decision" in out


def test_a_zero_count_is_one_usage_line(capsys):
    """Before: --repeats 0 ended in an IndexError, and --tasks 0 played every train task."""
    import pytest

    for bad in (["--repeats", "0"], ["--tasks", "0"], ["--tasks", "-3"]):
        with pytest.raises(SystemExit) as exit_:
            bench_reader.main(bad)
        assert exit_.value.code == 2
        assert "is not a whole number >= 1" in capsys.readouterr().err
