"""The method registry: names, import paths, labels, and errors that say what is accepted."""

from __future__ import annotations

import pytest
from harness_helpers import TINY_QA

from searchgym.baselines.harness_actors import SessionActor, baseline_actor
from searchgym.harness.methods import (
    METHODS,
    MethodRef,
    RunContext,
    load_method,
    parse_methods,
    resolve_method,
)


def test_names_paths_and_labels():
    assert resolve_method("oracle") == MethodRef("oracle", "searchgym.harness.methods:oracle_method")
    assert resolve_method("cw_grpo") == MethodRef("cw_grpo", "searchgym.harness.method_specs:cw_grpo")
    assert resolve_method("ippo").path == "searchgym.harness.method_specs:ippo"
    assert resolve_method("pkg.mod:make") == MethodRef("pkg.mod.make", "pkg.mod:make")
    assert resolve_method("mine=pkg.mod:make") == MethodRef("mine", "pkg.mod:make")
    assert resolve_method("o2=oracle") == MethodRef("o2", METHODS["oracle"])
    assert [r.label for r in parse_methods("random, oracle,")] == ["random", "oracle"]
    assert set(METHODS) >= {"random", "oracle", "cw_grpo", "grpo", "dr_grpo", "mappo", "ippo", "coma"}


@pytest.mark.parametrize("entry, message", [
    ("nope", "unknown method 'nope'; built-in methods: random, reader, oracle"),
    ("../../etc=pkg.mod:f", "method label '../../etc' is not accepted"),
    ("a/b=pkg.mod:f", "is not accepted"),
    ("pkg.mod:f()", "unknown method"),
])
def test_bad_entries(entry, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        resolve_method(entry)


def test_duplicate_labels_and_empty_lists():
    with pytest.raises(ValueError, match="repeated: random"):
        parse_methods("random,random")
    with pytest.raises(ValueError, match="no methods given"):
        parse_methods(" , ")


def test_loading_errors_name_the_method():
    with pytest.raises(ValueError, match=r"method 'x' -> 'no_such_pkg_xyz:f' cannot be imported"):
        load_method(MethodRef("x", "no_such_pkg_xyz:f"))
    with pytest.raises(ValueError, match="has no callable 'absent'"):
        load_method("harness_helpers:absent")


def test_builtin_baselines_and_the_context(tmp_path):
    assert isinstance(baseline_actor("oracle", TINY_QA, 0), SessionActor)
    ctx = RunContext(TINY_QA, seed=1, budget=0, device="cpu", run_dir=tmp_path)
    assert ctx.env_kind == "single" and len(ctx.tasks("dev")) == 6
    assert ctx.evaluate(load_method("oracle")(ctx), "dev")["success"] == 1.0
    assert ctx.rng().integers(1000) == ctx.rng().integers(1000)
    assert ctx.checkpoint_dir == tmp_path / "checkpoint" and ctx.checkpoint_dir.is_dir()
    with pytest.raises(ValueError, match="unknown baseline 'best'"):
        baseline_actor("best", TINY_QA, 0)
