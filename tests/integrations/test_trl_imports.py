"""Importing searchgym's integrations imports no framework: each module loads its framework only
when used (TRL, transformers' trainer stack) or, for verifiers, only when that module is imported."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import searchgym.integrations
import searchgym.integrations.trl
heavy = [m for m in ("trl", "verifiers", "accelerate", "datasets") if m in sys.modules]
assert not heavy, heavy
print("ok")
"""


def test_importing_the_integrations_imports_no_framework():
    result = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]
