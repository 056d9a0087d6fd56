"""`searchgym world stats` prints what the README says it describes."""

from __future__ import annotations

import json

from searchgym.cli import main


def test_world_stats_table_gives_the_shortcut_rate_per_family_as_json_does(capsys) -> None:
    """Before: only ``--json`` held the shortcut rates the README promises of ``world stats``."""
    assert main(["world", "stats", "--size", "tiny", "--json"]) == 0
    rates = json.loads(capsys.readouterr().out)["shortcut_rate_by_family"]
    assert main(["world", "stats", "--size", "tiny"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("shortcut rate by family"))
    assert rates and all(f"{family} {rate:.3f}" in line for family, rate in rates.items())


def test_world_stats_takes_the_flag_names_play_demo_and_train_use(capsys) -> None:
    """Before: ``--world-size tiny`` (as play, demo and train name it) was "unrecognized arguments"."""
    assert main(["world", "stats", "--world-size", "tiny", "--world-seed", "1", "--json"]) == 0
    aliased = json.loads(capsys.readouterr().out)
    assert main(["world", "stats", "--size", "tiny", "--seed", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == aliased and aliased["seed"] == 1 and aliased["size"] == "tiny"
