"""The harness's public functions that take a folder say what they take when given something else.

Before: ``load_results(None)`` (and ``load_summary``, ``run_folders``, ``load_runs``, ``write_report``
with a non-path) ended in pathlib's "expected str, bytes or os.PathLike object, not NoneType", naming
neither the argument nor what it takes, and ``load_results("")`` read the working folder."""

from __future__ import annotations

import pytest
from harness_helpers import TINY_QA

from searchgym.harness import load_results, load_summary
from searchgym.harness.report import load_runs, write_report
from searchgym.harness.results import run_folders

CALLS = {
    "load_results": lambda value: load_results(value),
    "load_summary": lambda value: load_summary(value),
    "run_folders": lambda value: run_folders(value),
    "load_runs": lambda value: load_runs(value, ["random"], [0]),
    "write_report": lambda value: write_report(value, TINY_QA, ["random"], [0]),
}


@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize(("value", "shown"), [(None, "got None (NoneType)"), (3, "got 3 (int)"),
                                              (b"runs", "got b'runs' (bytes)"), (["runs"], "(list)")])
def test_a_value_that_is_no_path_is_a_type_error_naming_the_argument(name, value, shown):
    with pytest.raises(TypeError) as caught:
        CALLS[name](value)
    said = str(caught.value)
    assert said.startswith(f"{name}: ") and "must be a folder path (a str or an os.PathLike" in said
    assert "searchgym compare --out" in said and shown in said and "\n" not in said


@pytest.mark.parametrize("name", CALLS)
def test_an_empty_path_names_no_folder(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # before: "" was the working folder
    with pytest.raises(ValueError, match=rf"^{name}: .* is empty, which names no folder"):
        CALLS[name]("  ")


def test_a_path_is_still_taken(tmp_path):
    with pytest.raises(FileNotFoundError, match="is not a folder"):
        load_results(tmp_path / "missing")
    assert run_folders(str(tmp_path)) == []
