"""``sft_*`` options that no method receiving them uses are refused before any folder is made.

Before: ``compare --methods grpo --option sft_tasks=5`` ran with rc 0, recorded the option and trained
GRPO from scratch (base None)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from harness_helpers import TINY_QA, compare_args

from searchgym.cli import main
from searchgym.harness.methods import parse_methods
from searchgym.harness.preflight import check_sft_used


@pytest.mark.parametrize("methods, options, said", [
    ("grpo", ["--option", "sft_tasks=5"], "option 'sft_tasks' sets the supervised base, and no method"),
    ("random,grpo", ["--option", "sft.sft_epochs=2"], "option 'sft.sft_epochs' sets the supervised base"),
    ("g=grpo[sft_tasks=5]", [], "method 'g': option 'sft_tasks' sets the supervised base, which this method"),
    ("random,g=grpo[sft_tasks=5]", ["--option", "lr=0.01"], "method 'g': option 'sft_tasks'"),
])
def test_an_unused_sft_option_is_one_line_and_no_folder(tmp_path, capsys, methods, options, said):
    out = tmp_path / "out"
    assert main([*compare_args(methods, budget=8), *options, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert said in err and "needs init=sft" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize("methods, options", [
    ("sft,grpo", {"sft_tasks": 5}),  # the base itself reads it
    ("sg=sft[decoding=greedy],grpo", {"sft_tasks": 5}),  # under another label too
    ("grpo", {"init": "sft", "sft_tasks": 5}),
    ("random,g=grpo[init=sft]", {"sft_tasks": 5}),
    ("g=grpo[init=sft;sft_tasks=5],random", {}),
    ("sft,sft_greedy=sft[decoding=greedy],grpo,random,oracle", {"init": "sft", "lr": 0.001, "sft_tasks": 5}),
    ("grpo,random", {"lr": 0.001}),  # no sft option at all
])
def test_an_sft_option_a_method_uses_passes(methods, options):
    check_sft_used(SimpleNamespace(methods=parse_methods(methods), suite=TINY_QA, options=options))
