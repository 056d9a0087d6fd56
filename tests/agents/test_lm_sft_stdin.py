"""``sft_workers > 1`` from a program fed on stdin (``python - <<EOF``): spawned workers cannot load
``<stdin>`` as their main module, so the worlds are played in this process with a one-line warning,
giving the files the in-turn run gives (before: every worker died and the run ended in
BrokenProcessPool)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import types

import pytest

pytest.importorskip("torch")

SCRIPT = textwrap.dedent("""
    from pathlib import Path

    from searchgym.agents.lm_sft_data import sft_transcripts, tokenizer_fingerprint, world_file, world_settings
    from searchgym.agents.tiny_lm_recipe import Recipe, RecipeConfig

    config = RecipeConfig()
    recipe = Recipe(config, Path("recipe"), log=lambda line: None)
    tokenizer = recipe.tokenizer()
    worlds = [world_settings(config.suite, recipe.suite.world_seed + w, 1, w, 0, True, config.rollout_config(),
                             tokenizer_fingerprint(tokenizer)) for w in range(2)]
    parallel = sft_transcripts(worlds, tokenizer, Path("two"), workers=2, log=print)
    in_turn = sft_transcripts(worlds, tokenizer, Path("one"), workers=1, log=lambda line: None)
    assert parallel == in_turn and parallel
    for w in worlds:
        assert world_file(Path("two"), w["world_seed"]).read_bytes() == world_file(Path("one"), w["world_seed"]).read_bytes()
    print("same files")
""")


def test_workers_from_a_script_on_stdin_play_in_this_process_with_a_warning(tmp_path):
    result = subprocess.run([sys.executable, "-"], input=SCRIPT, cwd=tmp_path, capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    warning = [line for line in lines if "warning" in line]
    assert len(warning) == 1 and "<stdin>" in warning[0] and "in this process" in warning[0], lines
    assert "1 process(es)" in result.stdout and lines[-1] == "same files"
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("attrs, expected", [
    ({"__file__": "<stdin>"}, "<stdin>"),                       # python - <<EOF
    ({"__file__": "/no/such/script.py"}, "/no/such/script.py"),  # a main file since removed
    ({}, None),                                                 # python -c, a notebook: main left alone
    ({"__file__": __file__}, None),                             # a real script
    ({"__file__": "<stdin>", "__spec__": types.SimpleNamespace(name="pkg.tool")}, None),  # python -m
])
def test_spawn_cannot_import_main_mirrors_what_spawn_loads(monkeypatch, attrs, expected):
    from searchgym.agents.lm_sft_data import spawn_cannot_import_main

    main = types.ModuleType("__main__")
    main.__spec__ = None
    for name, value in attrs.items():
        setattr(main, name, value)
    monkeypatch.setitem(sys.modules, "__main__", main)
    assert spawn_cannot_import_main() == expected
