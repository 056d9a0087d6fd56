"""A finished run's predictions.jsonl that scores a task twice (rows repeated over others, as many rows
as result.json counts) is one line naming the file. Before: it was scored as it stood, e.g. success
0.098 for a run that scored 0.051, with no word."""

from __future__ import annotations

import json
import shutil

import pytest
from harness_helpers import compare_args, compared_folder

from searchgym.cli import main
from searchgym.damaged import DamagedFile
from searchgym.harness.finished_files import finished_predictions

pytestmark = pytest.mark.timeout(300)
ARGS = compare_args("random")


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    return compared_folder(tmp_path_factory, ARGS)


def test_a_task_scored_twice_is_damage(finished, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    run = out / "runs" / "random" / "seed0"
    path = run / "predictions.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    assert len(finished_predictions(run, len(lines))) == len(lines)  # the intact file reads
    path.write_text(lines[0] + "".join(lines[:-1]))  # the first row again, the last one gone
    with pytest.raises(DamagedFile, match=f"prediction 2 scores task {json.loads(lines[0])['task_id']!r} again "
                                          r"\(prediction 1 scored it\)"):
        finished_predictions(run, len(lines))
    capsys.readouterr()
    assert main(["report", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"searchgym report: damaged file: {path}: prediction 2 scores task") and "\n" not in err
    assert err.endswith(f"delete {run / 'DONE'} and re-run the command that made the run (compare, train or "
                        "evaluate) to evaluate it again")
