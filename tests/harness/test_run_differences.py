"""A "holds a different run" refusal always names what differs, and why a suite hash alone differs.

Before: an option given as ``null`` (``--option lookup_order=null``, which the reader takes as not
given) against a folder without it was refused as "holds a different run ()"; a suite recorded by an
older searchgym before one of its fields (None now) existed, or one whose definition is the same but
whose tasks, world or scoring rules another searchgym made, showed two hashes and nothing else. A key
absent on one side was shown as None ("options.lr: None there, 0.01 now" for a run never given lr),
and a folder made before policy layouts were recorded as "policy_format: None there, 2 now", with no
word of the older searchgym that made it.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from harness_helpers import TINY_QA

from searchgym.harness.methods import resolve_method
from searchgym.harness.run_differences import NO_DEFINITION, OLDER, SAME_DEFINITION, changes, what_differs
from searchgym.harness.runner import DifferentRun, RunSpec, check_identity


def _folder(tmp_path, method: str = "reader", **recorded) -> RunSpec:
    """A run folder of ``method`` whose config.json is this code's record with ``recorded`` over it."""
    spec = RunSpec(TINY_QA, resolve_method(method), 0, 0, tmp_path, "cpu")
    spec.run_dir.mkdir(parents=True)
    config = {**spec.identity(), "suite": TINY_QA.definition(), "trains": False, **recorded}
    (spec.run_dir / "config.json").write_text(json.dumps({k: v for k, v in config.items() if v is not ...}))
    return spec


def _refusal(spec: RunSpec) -> str:
    with pytest.raises(DifferentRun) as caught:
        check_identity(spec)
    return str(caught.value)


def test_an_option_none_on_one_side_and_missing_on_the_other_is_named(tmp_path):
    spec = _folder(tmp_path / "a", options={"lookup_order": None})
    assert "(options.lookup_order: None there, absent now); use another" in _refusal(spec)  # before: "()"
    spec = _folder(tmp_path / "b")
    refused = _refusal(replace(spec, options={"lookup_order": None}))
    assert "(options.lookup_order: absent there, None now)" in refused


def test_a_suite_field_an_older_searchgym_did_not_record_is_named(tmp_path):
    assert TINY_QA.definition()["train_families"] is None
    older = {k: v for k, v in TINY_QA.definition().items() if k != "train_families"}
    refused = _refusal(_folder(tmp_path, suite=older, suite_hash="0" * 64))
    assert "(suite.train_families: absent there, None now)" in refused  # before: only the two hashes
    assert "suite_hash" not in refused


def test_a_suite_of_the_same_definition_and_another_hash_says_why(tmp_path):
    refused = _refusal(_folder(tmp_path, suite_hash="0" * 64))
    assert f"(suite_hash: '{'0' * 64}' there, '{TINY_QA.content_hash}' now ({SAME_DEFINITION})); " in refused


def test_a_folder_without_a_suite_definition_says_so(tmp_path):
    refused = _refusal(_folder(tmp_path, suite=..., suite_hash="0" * 64))
    assert f"now ({NO_DEFINITION}))" in refused


def test_a_changed_field_is_named_as_before():
    assert changes({"a": 1, "b": {"c": 2}}, {"a": 1, "b": {"c": 3}}, "x") == ["x.b.c: 2 there, 3 now"]
    assert changes({"a": None}, {"a": None}, "x") == []


def test_at_most_eight_lines():
    there, now = {"options": {f"k{i}": i for i in range(10)}}, {"options": {}}
    lines = what_differs(there, now, ["options"], {}, there, now)
    assert len(lines) == 9 and lines[-1] == "and 2 more"


def test_every_difference_names_something():
    # options as compared (defaults left out) and as given: never nothing, whichever side holds what
    cases = [({"x": None}, {}), ({}, {"x": None}), ({"x": {"y": None}}, {"x": {}}), ({"x": 1}, {"x": 1.5})]
    for there, now in cases:
        lines = what_differs({"options": there}, {"options": now}, ["options"], {}, {"options": there},
                             {"options": now})
        assert lines and all(line.startswith("options.x") for line in lines), (there, now, lines)


def test_a_key_absent_on_one_side_is_shown_absent_and_a_null_one_none():
    assert changes({"a": 1}, {}, "x") == ["x.a: 1 there, absent now"]  # before: "1 there, None now"
    assert changes({}, {"a": 3}, "x") == ["x.a: absent there, 3 now"]  # before: "None there, 3 now"
    assert changes({"a": None}, {"a": 3}, "x") == ["x.a: None there, 3 now"]  # recorded as null: None
    assert changes({"a": {"b": 1}}, {"a": {}}, "x") == ["x.a.b: 1 there, absent now"]


def test_an_option_the_folders_run_was_not_given_is_absent_there(tmp_path):
    refused = _refusal(replace(_folder(tmp_path), options={"rotate_in_team": False}))
    assert "(options.rotate_in_team: absent there, False now); use another" in refused  # before: None there


def test_a_folder_made_before_policy_layouts_were_recorded_says_an_older_searchgym_made_it(tmp_path):
    learner = "fast=harness_helpers:fast_learner"  # a baseline plays no policy: its policy_format is not compared
    spec = _folder(tmp_path / "older", learner, policy_format=...)
    refused = _refusal(spec)
    # before: "(policy_format: None there, 2 now)"
    assert f"(policy_format: absent there ({OLDER}), 2 now); use another" in refused
    assert OLDER == "a folder made by an older searchgym"
    # recorded as null: None, and no word of an older searchgym
    refused = _refusal(_folder(tmp_path / "null", learner, policy_format=None))
    assert "(policy_format: None there, 2 now); use another" in refused


def test_a_key_only_some_runs_record_is_absent_without_an_older_searchgym(tmp_path):
    refused = _refusal(replace(_folder(tmp_path), limit=3))
    assert "(limit: absent there, 3 now); use another" in refused  # a run without --limit records none
