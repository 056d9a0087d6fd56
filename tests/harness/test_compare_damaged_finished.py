"""A finished run of a comparison whose result.json or config.json is damaged or gone: the line's
remedy works. Before: a damaged result.json said "delete it and re-run the same command", and the
re-run then stopped at "error: [Errno 2] No such file or directory: '.../result.json'" (DONE still
marked the run finished)."""

from __future__ import annotations

import shutil

import pytest
from harness_helpers import TINY_QA

from searchgym.cli import main

ARGS = ["compare", "--suite", TINY_QA.id, "--methods", "random,oracle", "--seeds", "1", "--budget", "0",
        "--device", "cpu", "--no-progress"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("cmp") / "out"
    assert main([*ARGS, "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize(("name", "damage", "what"), [
    ("result.json", b'{"cut', "is not valid JSON"),
    ("result.json", None, "is missing from a finished run"),
    ("config.json", None, "is missing from a finished run"),
])
def test_the_remedy_of_a_damaged_finished_file_redoes_the_run(finished, tmp_path, capsys, name, damage, what):
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    run = out / "runs" / "random" / "seed0"
    if damage is None:
        (run / name).unlink()
    else:
        (run / name).write_bytes(damage)
    capsys.readouterr()
    assert main([*ARGS, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"searchgym compare: damaged file: {run / name}: {what}"
                   + (err.split(what, 1)[1].split(";")[0] if damage else "")
                   + f"; delete {run / 'DONE'} and re-run the same command to evaluate the run again")
    (run / "DONE").unlink()  # what the line says to do
    assert main([*ARGS, "--out", str(out)]) == 0
    assert "runs: 1 done now, 1 already finished, 0 failed" in capsys.readouterr().out
    assert (run / name).is_file()
