"""Loop counts are bounded when a run is asked for, in one line, before any folder: ``sft_epochs``,
``update_epochs`` and the like. Before: ``--option sft_epochs=100000000`` on a budget of 100 env steps
was taken and ran for hours, and so did ``update_epochs=100000``."""

from __future__ import annotations

import pytest

from searchgym.cli import main


@pytest.mark.parametrize(("option", "said"), [
    ("sft_epochs=100000000", "sft_epochs must be an integer in 1..1000; got 100000000"),
    ("sft_dagger_rounds=5000", "sft_dagger_rounds must be an integer in 0..1000; got 5000"),
    ("sft_batch_size=1000000000", "sft_batch_size must be an integer in 1..65536; got 1000000000"),
    ("update_epochs=100000", "update_epochs must be an integer in 1..1000; got 100000"),
    ("dynamic_sampling=5000", "dynamic_sampling must be an integer in 0..1000; got 5000"),
])
def test_a_loop_count_past_its_bound_is_one_line_before_any_folder(option, said, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["compare", "--suite", "quick-v2", "--methods", "cw_grpo", "--budget", "100", "--option", "init=sft",
                 "--option", option, "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"searchgym compare: error: method 'cw_grpo': {said}"
    assert not out.exists()


def test_the_bounds_themselves_are_accepted():
    from searchgym.agents.imitation import SFTConfig

    assert SFTConfig(sft_epochs=1000, sft_batch_size=65_536, sft_dagger_rounds=1000).sft_epochs == 1000
