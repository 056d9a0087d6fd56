"""With ``--policy llm`` an unknown method's error lists only the methods the LLM trainer trains.
Before: it listed every learning method (mappo, coma, gigpo ...), each of which the LLM trainer then
refused ("cannot train method 'mappo': it fits a value head ...")."""

from __future__ import annotations

import argparse

import pytest

from searchgym.cli import main
from searchgym.harness.method_specs import llm_method_spec, llm_methods
from searchgym.method_table import METHOD_SPECS

LLM = "cw_grpo, grpo, dr_grpo, grpo_role, cw_grpo_role"


def test_the_accepted_methods_are_those_the_llm_trainer_takes() -> None:
    assert ", ".join(llm_methods()) == LLM
    assert all(not METHOD_SPECS[name].llm_unsupported for name in llm_methods())
    assert llm_method_spec("grpo") is METHOD_SPECS["grpo"]


@pytest.mark.parametrize("method", ["nope", "random", "oracle", "pkg.mod:method"])
def test_train_lists_only_what_policy_llm_accepts(method, tmp_path, capsys) -> None:
    assert main(["train", "--policy", "llm", "--method", method, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"searchgym train: error: unknown method {method!r} for --policy llm; accepted: {LLM}"
    assert not (tmp_path / "run").exists()


def test_a_refused_method_still_says_why() -> None:
    with pytest.raises(ValueError, match=f"cannot train method 'coma': .*; it trains {LLM}"):
        llm_method_spec("coma")


def test_the_llm_harness_method_says_the_same() -> None:
    pytest.importorskip("transformers")
    from searchgym.harness.llm_method import config_from_args

    with pytest.raises(ValueError) as raised:
        config_from_args(argparse.Namespace(method="ppo", env="SearchQA-v0"))
    assert str(raised.value) == f"unknown method 'ppo' for --policy llm; accepted: {LLM}"
    assert "mappo" not in str(raised.value)
