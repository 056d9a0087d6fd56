"""The ray executor's options under the local one: named as given, in the caller's spelling.

Before: ``compare --retries 5`` said "ray_address and retries are options of the ray executor; add
executor='ray' (--executor ray)", naming an option not given, in Python's keyword form."""

from __future__ import annotations

import pytest

from searchgym.cli import main
from searchgym.harness.compare import Comparison
from searchgym.harness.methods import parse_methods
from searchgym.suites import get_suite

COMPARE = ["compare", "--suite", "searchqa-easy-v2", "--methods", "random", "--no-progress"]


@pytest.mark.parametrize(("flags", "said"), [
    (["--retries", "5"], "--retries is an option of the ray executor; add --executor ray"),
    (["--ray-address", "auto"], "--ray-address is an option of the ray executor; add --executor ray"),
    (["--ray-address", "auto", "--retries", "1"],
     "--ray-address and --retries are options of the ray executor; add --executor ray"),
])
def test_the_cli_names_the_flags_given(flags, said, tmp_path, capsys):
    out = tmp_path / "cmp"
    assert main([*COMPARE, *flags, "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"searchgym compare: error: {said}\n"
    assert not out.exists()


def test_python_names_the_keywords_given(tmp_path):
    with pytest.raises(ValueError) as caught:
        Comparison(get_suite("searchqa-easy-v2"), parse_methods("random"), [0], 10, tmp_path / "cmp",
                   retries=2)
    assert str(caught.value) == "retries is an option of the ray executor; add executor='ray'"


@pytest.mark.parametrize(("retries", "said"), [
    ("-1", "--retries must be a non-negative int (extra attempts per failed run), got -1"),
    ("101", "--retries must be at most 100 (0..100: extra attempts per failed run), got 101"),
])
def test_the_cli_names_a_retries_value_out_of_range_by_its_flag(retries, said, tmp_path, capsys):
    """Before: "retries must be a non-negative int ...", the keyword, not the flag given."""
    out = tmp_path / "cmp"
    assert main([*COMPARE, "--executor", "ray", "--retries", retries, "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"searchgym compare: error: {said}\n"
    assert not out.exists()


def test_python_names_the_retries_keyword():
    from searchgym.harness.ray_executor import check_retries

    with pytest.raises(ValueError, match=r"^retries must be a non-negative int \(extra attempts per failed run\)"):
        check_retries(-1)
    with pytest.raises(ValueError, match=r"^--retries must be a non-negative int"):
        check_retries(-1, cli=True)
