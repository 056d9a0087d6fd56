"""Every benchmark's ``--help`` description is whole sentences (before: several were the docstring's
first line, cut mid-sentence: "... (with and without its facts-about"), and every option says what it
is (before: bench_ray's four options, bench_dense's --vectors, fuzz_step's --actions and others were
bare names)."""

from __future__ import annotations

import functools
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


@functools.cache
def help_of(script: str) -> str:
    """The script's ``--help`` (one process per script, shared by the tests below)."""
    result = subprocess.run([sys.executable, str(BENCHMARKS / script), "--help"], cwd=BENCHMARKS.parent,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout


def undocumented_options(text: str) -> list[str]:
    """Options in argparse's help with no help text (on their own line, or on the next one)."""
    lines = re.split(r"\n(?:options|optional arguments):\n", text, maxsplit=1)[-1].splitlines()
    bare = []
    for i, line in enumerate(lines):
        match = re.match(r"^  (-\S.*?)(?:\s{2,}\S.*)?$", line)
        if match and not re.search(r"\s{2,}\S", line[2:]) and not re.match(r"^\s{20,}\S", "".join(lines[i + 1:i + 2])):
            bare.append(match.group(1))
    return bare


def test_undocumented_options_are_found():
    text = "usage: x\n\noptions:\n  -h, --help  show this\n  --bare BARE\n  --long-option LONG_OPTION\n" \
           "                        explained below\n  --told TOLD  explained\n"
    assert undocumented_options(text) == ["--bare BARE"]


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_option_is_explained(script):
    assert undocumented_options(help_of(script)) == [], f"{script}: options without help"


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_description_is_whole_sentences(script):
    description = help_description(help_of(script))
    assert len(description) > 20, help_of(script)
    assert re.search(r"[.?!][\"')]*$", description), f"{script}: description stops mid-sentence: {description!r}"
