"""benchmarks/learn_quick.py's docstring says what a bare run trains (before: "all methods", while the
default --methods left out several of the harness's learning methods)."""

from __future__ import annotations

import re

import learn_quick

from searchgym.harness.methods import METHODS

#: The harness methods that learn nothing: the bounds and the scripted reader.
NOT_LEARNERS = ("random", "oracle", "reader")


def test_the_docstring_names_the_default_methods_and_the_others():
    doc = learn_quick.__doc__
    bare = next(line for line in doc.splitlines() if line.strip().startswith(".venv/") and " --" not in line)
    assert bare.partition("#")[2].split(";")[0].strip() == ", ".join(learn_quick.LEARNERS)
    assert "all methods" not in doc
    others = [name for name in METHODS if name not in learn_quick.LEARNERS and name not in NOT_LEARNERS]
    assert others and all(re.search(rf"\b{name}\b", doc) for name in others), others
