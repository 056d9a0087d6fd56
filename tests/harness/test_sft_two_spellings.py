"""Two spellings of one base setting (``sft.sft_tasks`` and ``sft_tasks``) are refused together.

Before: ``--option sft.sft_tasks=20 --option sft_tasks=30`` built with 30 and config.json recorded both."""

from __future__ import annotations

import pytest
from harness_helpers import compare_args

from searchgym.cli import main
from searchgym.harness.sft import sft_config


def test_sft_config_refuses_both_spellings():
    with pytest.raises(ValueError, match="options 'sft.sft_tasks' and 'sft_tasks' both set sft_tasks .* give it once, or in one spelling"):
        sft_config({"sft.sft_tasks": 20, "sft_tasks": 30})
    assert sft_config({"sft.sft_tasks": 20, "sft_epochs": 3}).sft_tasks == 20  # one spelling each: fine


def test_compare_refuses_both_spellings_before_any_folder(tmp_path, capsys):
    out = tmp_path / "out"
    args = [*compare_args("sft,random"), "--option", "sft.sft_tasks=20", "--option", "sft_tasks=30"]
    assert main([*args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "'sft.sft_tasks' and 'sft_tasks' both set sft_tasks" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
