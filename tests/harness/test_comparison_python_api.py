"""``Comparison`` and ``run_comparison`` from Python take what the CLI takes and check it as the CLI
does. Before: ``suite="quick-v2"`` failed after the runs ("'str' object has no attribute 'id'"),
``methods="random"`` was read letter by letter ("unknown method 'r'"), ``options=[1]`` was "not a
mapping" inside a run, ``logger="nope"`` failed in each run, and ``run_comparison`` skipped the
preflight: ``random`` with ``{"foo": 1}`` ran, the option taken silently."""

from __future__ import annotations

import numpy as np
import pytest
from harness_helpers import TINY_QA

from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import METHODS, MethodRef


def test_a_suite_id_a_methods_string_and_numpy_seeds_are_read_as_the_cli_reads_them(tmp_path):
    comparison = Comparison(TINY_QA.id, "random,oracle", [np.int64(0)], 0, tmp_path / "c")
    assert comparison.suite is TINY_QA
    assert comparison.methods == [MethodRef("random", METHODS["random"]), MethodRef("oracle", METHODS["oracle"])]
    assert comparison.seeds == [0] and type(comparison.seeds[0]) is int
    listed = Comparison(TINY_QA, ["random", MethodRef("oracle", METHODS["oracle"])], [0], 0, tmp_path / "d")
    assert [m.label for m in listed.methods] == ["random", "oracle"]
    result = run_comparison(Comparison(TINY_QA.id, "random", [0], 0, tmp_path / "e", progress=False))
    assert [o.status for o in result.outcomes] == ["done"]


@pytest.mark.parametrize(("changes", "error", "says"), [
    ({"suite": 3}, TypeError, "suite must be a Suite or a suite id, got int"),
    ({"suite": "no-such-suite"}, KeyError, "unknown suite .no-such-suite."),  # UnknownSuite, as get_suite
    ({"methods": []}, TypeError, "methods must be a non-empty list of method entries"),
    ({"methods": [1]}, TypeError, "methods must be a non-empty list of method entries"),
    ({"methods": "nope"}, ValueError, "unknown method 'nope'"),
    ({"options": [1]}, TypeError, "options must be a dict of method options, got list"),
    ({"out": None}, TypeError, "out must be the comparison's folder (a str or a path), got NoneType"),
    ({"logger": "nope"}, ValueError, "unknown logger 'nope'; accepted: none, tensorboard, wandb"),
])
def test_a_wrong_argument_is_one_error_naming_it(tmp_path, changes, error, says):
    arguments = {"suite": TINY_QA, "methods": "random", "seeds": [0], "budget": 0, "out": tmp_path / "c", **changes}
    with pytest.raises(error, match=says.replace("(", r"\(").replace(")", r"\)")):
        Comparison(**arguments)


def test_run_comparison_checks_the_options_before_any_run(tmp_path):
    comparison = Comparison(TINY_QA, "random", [0], 0, tmp_path / "c", options={"foo": 1}, progress=False)
    with pytest.raises(ValueError, match="unknown option 'foo' for random; random takes no options"):
        run_comparison(comparison)
    assert not (tmp_path / "c" / "runs").exists()
