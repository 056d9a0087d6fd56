"""A policy kwarg of another type than its constructor declares is refused, naming it. Before:
``operand_sources="false"`` (a non-empty string) turned the feature ON, and the attn policy's
``hop_features="no"`` left its features on: the run used the opposite of the setting asked for."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np
import pytest

from searchgym.agents.policy import make_policy, policy_builders
from searchgym.agents.policy_kwarg_types import accepted_type, check_kwarg_types
from searchgym.agents.population import Population

REFUSED = [
    # (policy, kwargs, the line's start)
    ("hash", {"operand_sources": "false"}, "operand_sources of the hash policy must be a bool (true or false); "
                                           "got 'false' (str)"),
    ("hash", {"comparison_facts": 1}, "comparison_facts of the hash policy must be a bool (true or false); got 1 (int)"),
    ("hash", {"overlap_features": 0}, "overlap_features of the hash policy must be a bool"),
    ("hash", {"fact_context": None}, "fact_context of the hash policy must be a bool (true or false); got None"),
    ("hash", {"drop_names": "no"}, "drop_names of the hash policy must be a bool"),
    ("attn", {"hop_features": "no"}, "hop_features of the attn policy must be a bool (true or false); got 'no' (str)"),
    ("attn", {"comparison_facts": "true"}, "comparison_facts of the attn policy must be a bool"),
    ("hf", {"freeze": "false", "model_name_or_path": "unused"}, "freeze of the hf policy must be a bool"),
    ("hf", {"auto_class": 3, "model_name_or_path": "unused"}, "auto_class of the hf policy must be a string; got 3"),
    ("hf", {"model_name_or_path": 7}, "model_name_or_path of the hf policy must be a string or None (null); got 7"),
    ("hf", {"tokenizer_path": ["a"], "model_name_or_path": "unused"}, "tokenizer_path of the hf policy must be a "
                                                                      "string or None (null)"),
    ("minilm", {"model_path": 5}, "model_path of the minilm policy must be a string or None (null); got 5 (int)"),
]


@pytest.mark.parametrize(("policy", "kwargs", "expected"), REFUSED)
def test_a_kwarg_of_the_wrong_type_is_refused_before_anything_is_built(policy, kwargs, expected):
    """hf and minilm are refused before any model is looked for (no model folder is named here)."""
    with pytest.raises(TypeError) as caught:
        make_policy(policy, seed=0, **kwargs)
    assert str(caught.value).startswith(expected), caught.value
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("value", [True, "8", 8.0])
@pytest.mark.parametrize("policy", ["hash", "attn"])
def test_a_size_takes_an_integer_only(policy, value):
    with pytest.raises(TypeError, match=r"^dim must be an integer >= 1 \(a size\); got "):
        make_policy(policy, seed=0, dim=value)


def test_the_asked_setting_is_the_one_built():
    assert make_policy("hash", seed=0, operand_sources=True).operands is not None
    assert make_policy("hash", seed=0, operand_sources=False).operands is None
    assert make_policy("attn", seed=0, hop_features=False).n_features == 0
    assert make_policy("hash", seed=0, dim=np.int64(8)).encoder.dim == 8  # a numpy int is an int


def test_a_shared_trunk_checks_the_trunks_kwargs_too():
    """Its trunk's kwargs go to the encoder past make_policy."""
    with pytest.raises(TypeError, match="^drop_names of the hash policy must be a bool"):
        Population.build("shared_trunk", 2, "hash", seed=0, drop_names="false")
    with pytest.raises(TypeError, match="^operand_sources of the hash policy must be a bool"):
        Population.build("shared_trunk", 2, "hash", seed=0, operand_sources="false")


def test_a_misspelt_kwarg_is_still_the_builders_own_error():
    with pytest.raises(ValueError, match="unknown option.*hop_feature.*accepted: dim, heads"):
        make_policy("attn", seed=0, hop_feature="no")
    with pytest.raises(TypeError, match="bad arguments for encoder 'hash'.*it accepts"):
        make_policy("hash", seed=0, operand_source="false")


def _builder(device="cpu", seed=None, *, width: int = 4, rate: float = 0.5, mode="a", flag=False,
             label: str | None = None, extra: object = None, untyped=None):
    raise AssertionError("never built: the check comes first")


def test_the_types_come_from_a_builders_own_signature():
    """Nothing is listed by hand: a builder's parameters are read (the annotation, else the default's type)."""
    for kwargs, expected in [({"flag": "false"}, "flag of the mine policy must be a bool"),
                             ({"width": 2.5}, "width of the mine policy must be an integer"),
                             ({"rate": True}, "rate of the mine policy must be a number"),
                             ({"mode": 1}, "mode of the mine policy must be a string"),
                             ({"label": 3}, "label of the mine policy must be a string or None (null)")]:
        with pytest.raises(TypeError, match=f"^{re.escape(expected)}"):
            check_kwarg_types("mine", kwargs, [_builder])
    check_kwarg_types("mine", {"width": 2, "rate": 1, "mode": "b", "flag": True, "label": None,
                               "extra": [1], "untyped": "anything", "unknown": "left to the builder"}, [_builder])


def test_none_is_taken_only_where_it_is_the_default_or_annotated():
    parameters = inspect.signature(_builder).parameters
    assert accepted_type(parameters["flag"]) == ("bool", False)
    assert accepted_type(parameters["label"]) == ("str", True)
    assert accepted_type(parameters["extra"]) is None  # not a plain annotation: anything
    assert accepted_type(parameters["untyped"]) is None


def test_a_model_folder_may_be_given_as_a_path():
    check_kwarg_types("hf", {"model_name_or_path": Path("folder")}, policy_builders("hf"))
