"""A finished `searchgym train` run whose result.json is missing or damaged names the way back."""

from __future__ import annotations

import pytest

from searchgym.cli import main

TRAIN = ["train", "--env", "SearchQA-Candidates-v0", "--world-size", "tiny", "--method", "random", "--budget", "0",
         "--test-size", "2", "--no-progress"]


@pytest.mark.parametrize("damage", ["delete", "tear"])
def test_a_finished_runs_result_json_gone_or_torn_says_to_delete_done(tmp_path, capsys, damage) -> None:
    """Before: a missing one was "[Errno 2] No such file or directory", and a torn one said "delete it
    and re-run", which led to the same error (DONE still marked the run finished)."""
    out = tmp_path / "run"
    assert main([*TRAIN, "--out", str(out)]) == 0
    result = next(out.rglob("result.json"))
    if damage == "delete":
        result.unlink()
    else:
        result.write_text('{"test": ')
    capsys.readouterr()
    assert main([*TRAIN, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(result) in err and "DONE and re-run the command that made the run" in err and len(err.strip().splitlines()) == 1
    (result.parent / "DONE").unlink()
    assert main([*TRAIN, "--out", str(out)]) == 0  # the remedy works
    assert "test success" in capsys.readouterr().out
