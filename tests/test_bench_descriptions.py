"""Every benchmark's ``--help`` description is whole sentences (before: several were the docstring's
first line, cut mid-sentence: "... (with and without its facts-about")."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from suite_arg import describe

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SCRIPTS = sorted(p.name for p in BENCHMARKS.glob("*.py") if "ArgumentParser(" in p.read_text())
SECTIONS = ("options:", "optional arguments:", "positional arguments:")


def help_description(text: str) -> str:
    """The description in argparse's help: the paragraphs between the usage and the first section."""
    paragraphs = re.split(r"\n\s*\n", text.strip())
    kept = []
    for paragraph in paragraphs[1:]:
        if paragraph.startswith(SECTIONS):
            break
        kept.append(paragraph)
    return " ".join(" ".join(kept).split())


def test_describe_joins_the_first_paragraph():
    doc = "Cost per step of one policy against another (with and without its\ncontext), side by side.\n\n" \
          "    python x.py --n 2\n"
    assert describe(doc) == "Cost per step of one policy against another (with and without its context), side by side."
    assert describe("One line.") == "One line."


def test_every_script_with_a_parser_is_checked():
    assert len(SCRIPTS) >= 20 and "bench_policy.py" in SCRIPTS and "suite_arg.py" not in SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_description_is_whole_sentences(tmp_path, script):
    result = subprocess.run([sys.executable, str(BENCHMARKS / script), "--help"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    description = help_description(result.stdout)
    assert len(description) > 20, result.stdout
    assert re.search(r"[.?!][\"')]*$", description), f"{script}: description stops mid-sentence: {description!r}"
