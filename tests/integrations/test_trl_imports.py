"""Importing searchgym's integrations imports no framework: each module loads its framework only
when used (TRL, transformers' trainer stack) or, for verifiers, only when that module is imported."""

from __future__ import annotations

import subprocess
import sys

import pytest

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


MISSING = """
import sys
sys.modules[{framework!r}] = None  # as if it were not installed
try:
    import searchgym.integrations.{module}
except ImportError as exc:
    print(type(exc).__name__, exc)
"""


@pytest.mark.parametrize("module, framework, hint", [
    ("gem", "gem", "needs gem-llm: pip install 'searchgym[gem]'"),
    ("openenv", "openenv", "needs openenv-core: pip install 'searchgym[openenv]'"),
    ("verifiers", "verifiers", "needs verifiers: pip install 'searchgym[verifiers]'"),
])
def test_an_adapter_without_its_framework_says_which_extra_installs_it(module, framework, hint):
    code = MISSING.format(framework=framework, module=module)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    line = result.stdout.strip()
    assert result.returncode == 0 and line.startswith(f"MissingExtra searchgym.integrations.{module}"), \
        (line, result.stderr[-2000:])
    assert line.endswith(hint) and "\n" not in line
