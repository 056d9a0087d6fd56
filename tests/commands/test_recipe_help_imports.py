"""`searchgym recipe tiny-lm --help` lists every --options key with its default without importing torch or
transformers (before: building the listing imported both, about 2 s before the help printed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from searchgym.plugins import PLUGINS_VARIABLE

HELP = """
import json, sys
from searchgym.cli import main
try:
    main(["recipe", "tiny-lm", "--help"])
except SystemExit:
    pass
print(json.dumps(sorted(m for m in ("torch", "transformers", "tokenizers", "searchgym.agents") if m in sys.modules)))
"""


def test_help_lists_the_options_without_importing_torch_or_transformers():
    env = {k: v for k, v in os.environ.items() if k != PLUGINS_VARIABLE}  # a plugin may import torch itself
    done = subprocess.run([sys.executable, "-c", HELP], capture_output=True, text=True, timeout=120,
                          env={**env, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    *text, imported = done.stdout.splitlines()
    assert json.loads(imported) == []
    listing = "\n".join(text).split("--options keys (JSON), with their defaults", 1)[1]
    for line in ('  shape = "l2-w128"', "  seeds = [0, 1, 2]", "  sft_max_seconds = 540.0", "  test_tasks = 100",
                 "  rollout = {}: an object of rollout settings, each with its default:",
                 "    max_turns = 12", '    observation_role = "tool"',
                 '    system_prompt = "You are a search agent. Each ..." (the built-in prompt)'):
        assert line in listing.splitlines(), line
    assert "    guided = " not in listing and "    max_new_tokens = " not in listing  # the recipe's own options
