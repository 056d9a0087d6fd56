"""Files from someone else holding numbers JSON reads but a float cannot hold, or CSV the csv module
refuses: one line naming the file, never a traceback."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from harness_helpers import compare_args, compared_folder

from searchgym.cli import main
from searchgym.damaged import DamagedFile, DamagedFileWarning
from searchgym.harness.loggers import scalars
from searchgym.json_fields import NUMBER, field_problem, is_number

pytestmark = pytest.mark.timeout(300)
HUGE = 10**400  # 401 digits: under Python's 4,300-digit limit, past a float's range
ARGS = compare_args("random,fast=harness_helpers:fast_learner", budget=8)


def test_an_int_past_a_floats_range_is_no_number():
    """Before: math.isfinite(10**400) raised OverflowError inside every field check."""
    assert not is_number(HUGE) and not is_number(-HUGE) and is_number(10**300)
    assert field_problem({"f1": HUGE}, present={"f1": NUMBER}) == (
        "its 'f1' is a number too large to be a float where a finite number belongs")
    assert scalars({"step": HUGE, "loss": 0.5}) == {"loss": 0.5}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    return compared_folder(tmp_path_factory, ARGS)


def _first_row_with(path, key, value):
    lines = path.read_text().splitlines(keepends=True)
    row = json.loads(lines[0])
    row[key] = value
    path.write_text(json.dumps(row) + "\n" + "".join(lines[1:]))


@pytest.mark.parametrize(("name", "key"), [("result.json", "train_seconds"), ("predictions.jsonl", "steps"),
                                           ("metrics.jsonl", "step")])
def test_report_on_a_huge_integer_is_one_line(finished, tmp_path, capsys, name, key):
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    path = out / "runs" / "fast" / "seed0" / name
    if name == "result.json":
        path.write_text(json.dumps({**json.loads(path.read_text()), key: HUGE}))
    else:
        _first_row_with(path, key, HUGE)
    capsys.readouterr()
    if name == "metrics.jsonl":  # a metrics row is warned about and its value left out of the curves
        with pytest.warns(DamagedFileWarning, match=f"^{re.escape(str(path))}: row 1: its 'step' is a number too "
                                                    "large to be a float"):
            assert main(["report", "--out", str(out)]) == 0
        return
    assert main(["report", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "OverflowError" not in err and len(err.strip().splitlines()) == 1
    assert f"{path}: " in err and "a number too large to be a float" in err


def test_load_summary_with_an_overlong_field_names_the_file(finished, tmp_path):
    """Before: "_csv.Error: field larger than field limit (131072)"."""
    from searchgym.harness.results import load_summary

    out = tmp_path / "out"
    shutil.copytree(finished, out)
    path = out / "summary.csv"
    header = path.read_text().splitlines()[0]
    path.write_text(path.read_text() + "x" * 200_000 + "," * header.count(",") + "\n")
    with pytest.raises(DamagedFile, match=r"summary\.csv: is not a CSV file `searchgym compare` writes \(field "
                                          r"larger than field limit"):
        load_summary(out)


def test_load_results_with_a_seed_past_int64_names_the_file(finished, tmp_path):
    """Before: "OverflowError: Python int too large to convert to C long" from pandas."""
    from searchgym.harness.results import load_results

    out = tmp_path / "out"
    shutil.copytree(finished, out)
    path = out / "runs" / "fast" / "seed0" / "config.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "seed": 10**30}))
    with pytest.raises(DamagedFile, match=r"config\.json: holds seed 10+, not an integer in 0\.\.9223372036854775807"):
        load_results(out)
