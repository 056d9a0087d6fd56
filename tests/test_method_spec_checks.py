"""register_spec checks what a spec names when it is registered (not when a comparison first runs
it), one line each, and takes replace=True as the other registries do."""

from __future__ import annotations

import pytest

from searchgym.agents.advantages import ADVANTAGE_ESTIMATORS
from searchgym.harness.methods import BASELINE_METHODS
from searchgym.method_table import METHOD_SPECS, TRAINER, MethodSpec, check_learning_parts, register_spec

AGGREGATION = "seq-mean-token-mean"

BAD_SPECS = [
    (lambda: MethodSpec("mine", TRAINER, "grpoo", AGGREGATION, False), ValueError,
     "method 'mine': unknown estimator 'grpoo'; registered: gae, grpo, "),
    (lambda: MethodSpec("mine", TRAINER, "grpo", "token-meen", False), ValueError,
     "method 'mine': unknown aggregation 'token-meen'; accepted: token-mean, seq-mean-token-mean"),
    (lambda: MethodSpec("mine", object, "grpo", AGGREGATION, False), TypeError,
     "method 'mine': trainer must be an import path 'package.module:Class' (a str), got <class 'object'>"),
    (lambda: MethodSpec("mine", "searchgym.agents.train.Trainer", "grpo", AGGREGATION, False), ValueError,
     "method 'mine': trainer must be an import path 'package.module:Class' (a str), got 'searchgym.agents"),
    (lambda: MethodSpec("mine", "no_such_package.mod:Trainer", "grpo", AGGREGATION, False), ValueError,
     "method 'mine': the trainer's module 'no_such_package.mod' is not found"),
    (lambda: MethodSpec("mine", TRAINER, "grpo", AGGREGATION, "no"), TypeError,
     "method 'mine': value_head must be True or False, got 'no'"),
    (lambda: MethodSpec("mine", TRAINER, "gae", "token-mean", False), ValueError,
     "method 'mine': estimator 'gae' reads values, so value_head must be True"),
    (lambda: MethodSpec("mine", TRAINER, "grpo", AGGREGATION, False, defaults=[("lr", 1)]), TypeError,
     "method 'mine': defaults must be a dict"),
    (lambda: MethodSpec("random", TRAINER, "grpo", AGGREGATION, False), ValueError,
     "method 'random' is the name of a baseline (random, reader, oracle, sft), which --methods would run instead"),
]


@pytest.mark.parametrize(("make", "error", "message"), BAD_SPECS, ids=[m for _, _, m in BAD_SPECS])
def test_a_spec_naming_what_is_not_there_is_refused_in_one_line(make, error, message):
    before = METHOD_SPECS.keys()
    with pytest.raises(error) as raised:
        register_spec(make())
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)
    assert METHOD_SPECS.keys() == before


def test_a_baseline_name_is_refused_with_replace_too():
    with pytest.raises(ValueError, match="is the name of a baseline"):
        register_spec(MethodSpec("oracle", TRAINER, "grpo", AGGREGATION, False), replace=True)
    assert "oracle" not in METHOD_SPECS and "oracle" in BASELINE_METHODS


def test_replace_true_replaces_a_spec_as_the_duplicate_error_says():
    with METHOD_SPECS.scoped():
        mine = register_spec(MethodSpec("mine", TRAINER, "grpo", AGGREGATION, False))
        with pytest.raises(ValueError, match="method 'mine' is already registered; pass replace=True to replace it"):
            register_spec(MethodSpec("mine", TRAINER, "dr_grpo", AGGREGATION, False))
        assert METHOD_SPECS["mine"] is mine
        again = register_spec(MethodSpec("mine", TRAINER, "dr_grpo", AGGREGATION, False), replace=True)
        assert METHOD_SPECS["mine"] is again and again.estimator == "dr_grpo"
    assert "mine" not in METHOD_SPECS


def test_a_users_estimator_is_accepted_once_registered():
    with METHOD_SPECS.scoped(), ADVANTAGE_ESTIMATORS.scoped():
        ADVANTAGE_ESTIMATORS.add("halved", ADVANTAGE_ESTIMATORS["grpo"])
        register_spec(MethodSpec("halved_grpo", TRAINER, "halved", AGGREGATION, False))
        assert METHOD_SPECS["halved_grpo"].estimator == "halved"


@pytest.mark.parametrize("name", METHOD_SPECS.keys())
def test_every_built_in_spec_passes_the_checks_a_users_spec_gets(name):
    check_learning_parts(METHOD_SPECS[name])
