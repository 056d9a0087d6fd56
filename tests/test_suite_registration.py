"""``register_suite`` refuses, in one line, a suite that could only fail when played; and ``searchgym
suites`` lists every other suite when one cannot be built, and names it.

Before: an unknown env id, an unknown family and ``version="0"`` were registered, and the first bad
suite failed ``searchgym suites`` for every suite.
"""

from __future__ import annotations

import re

import pytest

from searchgym.cli import main
from searchgym.suites import SUITES, Suite, register_suite
from searchgym.world.families import FAMILY_REGISTRY, task_family

TINY = {"world_size": "tiny", "dev_size": 2, "test_size": 2}


@pytest.mark.parametrize(("suite", "error", "message"), [
    (Suite("test-reg-env-v0", 0, "SearchQA-Nope-v0", **TINY), ValueError,
     r"^suite 'test-reg-env-v0': unknown env id 'SearchQA-Nope-v0'; accepted: GroupSearch-Candidates-v0, "),
    (Suite("test-reg-family-v0", 0, "SearchQA-Candidates-v0", families=("lookup", "nope"), **TINY), ValueError,
     r"^suite 'test-reg-family-v0': unknown task family 'nope'; registered: lookup, bridge, "),
    (Suite("test-reg-train-v0", 0, "SearchQA-Candidates-v0", train_families=("lookups",), **TINY), ValueError,
     r"^suite 'test-reg-train-v0': unknown task family 'lookups'"),
    (Suite("test-reg-kwarg-v0", 0, "SearchQA-Candidates-v0", {"max_stepz": 4}, **TINY), TypeError,
     r"^suite 'test-reg-kwarg-v0' got unknown keyword argument\(s\) 'max_stepz'; accepted: config, action_mode, "),
    (Suite("test-reg-size-v0", 0, "SearchQA-Candidates-v0", world_size="huge"), ValueError,
     r"^suite 'test-reg-size-v0': world_size must be one of tiny, "),
    (Suite("test-reg-level-v0", 0, "SearchQA-Candidates-v0", difficulty="medium", **TINY), ValueError,
     r"^suite 'test-reg-level-v0': difficulty must be None or one of easy, hard, got 'medium'$"),
])
def test_a_suite_that_could_only_fail_when_played_is_refused(suite, error, message):
    with SUITES.scoped(), pytest.raises(error, match=message):
        register_suite(suite)
    assert suite.id not in SUITES


@pytest.mark.parametrize("version", ["0", -1, True, 1.0])
def test_a_version_is_an_int_of_zero_or_more(version):
    expected = f"suite 'x-v0': version must be an int >= 0 (2 for an id ending -v2), got {version!r}"
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        Suite("x-v0", version, "SearchQA-Candidates-v0")


def test_a_good_users_suite_is_registered():
    with SUITES.scoped():
        suite = register_suite(Suite("test-reg-good-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4},
                                     families=("lookup",), **TINY))
        assert SUITES["test-reg-good-v0"] is suite and len(suite.tasks("test")) == 2


def test_the_suites_command_lists_the_others_and_names_the_one_that_cannot_be_built(capsys):
    with SUITES.scoped(), FAMILY_REGISTRY.scoped():
        task_family("never_made")(lambda maker, split: None)  # registered, but it makes no task
        register_suite(Suite("test-reg-broken-v0", 0, "SearchQA-Candidates-v0", families=("never_made",), **TINY))
        register_suite(Suite("test-reg-fine-v0", 0, "SearchQA-Candidates-v0", families=("lookup",), **TINY))
        code = main(["suites", "test-reg-broken-v0", "test-reg-fine-v0"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "test-reg-fine-v0" in out and "test-reg-broken-v0" not in out
    assert err.strip().splitlines() == [
        "searchgym suites: suite test-reg-broken-v0 cannot be built: ValueError: suite 'test-reg-broken-v0' has "
        "no train tasks (families=('never_made',), difficulty=None)"]
