"""``leaderboard verify`` rejects a cheap hostile file fast, with one line saying why.

Before: a valid submission whose predictions were 2.6M items of ``1`` (5 MB) took 85 s and 470 MB to
reject: jsonschema's best_match walked every item's error. Every list and object is now bounded before
the schema, and only the schema's first errors are looked at."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from searchgym import leaderboard_checks
from searchgym.leaderboard_checks import MAX_ITEMS, check_schema, load_schema, verify_file

pytestmark = pytest.mark.timeout(60)  # before the fix, the first test took 85 s
BOARD = Path(__file__).resolve().parents[1] / "leaderboard" / "submissions"


def _submission() -> dict:
    return json.loads((BOARD / "quick-v2__random__seed0.json").read_text())


def test_millions_of_tiny_items_are_refused_by_their_count(tmp_path):
    submission = _submission()
    submission["predictions"] = [1] * 2_600_000
    path = tmp_path / "items.json"
    path.write_text(json.dumps(submission, separators=(",", ":")))
    verdict = verify_file(path)
    assert not verdict.ok
    assert verdict.reason == ("predictions: 2600000 items, where at most 100000 are accepted in any object or list")


@pytest.mark.parametrize("where", ["packages", "run/options/policy_kwargs"])
def test_an_object_of_too_many_keys_is_refused_by_its_count(tmp_path, where):
    submission = _submission()
    target = submission
    for key in where.split("/")[:-1]:
        target = target[key]
    target[where.split("/")[-1]] = {f"k{i}": 1 for i in range(MAX_ITEMS + 1)}
    path = tmp_path / "keys.json"
    path.write_text(json.dumps(submission))
    assert verify_file(path).reason == (f"{where}: {MAX_ITEMS + 1} keys, where at most {MAX_ITEMS} are accepted in "
                                        "any object or list")


def test_the_count_bound_is_the_schemas_largest():
    sizes, pending = [], [load_schema()]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            sizes += [v for k, v in node.items() if k in ("maxItems", "maxProperties")]
            pending += list(node.values())
        elif isinstance(node, list):
            pending += node
    assert max(sizes) == MAX_ITEMS  # the bound refuses nothing the schema accepts


def test_only_the_first_schema_errors_are_looked_at(monkeypatch):
    """A list within the bound whose every item is wrong: the schema's walk stops after the first errors."""
    submission = _submission()
    submission["predictions"] = [1] * MAX_ITEMS
    made = []
    validator_class = leaderboard_checks._validator_class()

    class Counting(validator_class):
        def iter_errors(self, instance, *args, **kwargs):
            for error in super().iter_errors(instance, *args, **kwargs):
                made.append(error)
                yield error

    monkeypatch.setattr(leaderboard_checks, "_validator_class", lambda: Counting)
    with pytest.raises(leaderboard_checks.SubmissionRejected, match=r"^schema violation at predictions/\d+: a JSON "
                                                                     r"integer where object is accepted$"):
        check_schema(submission)
    assert len(made) <= 2 * leaderboard_checks.MAX_SCHEMA_ERRORS  # nested walks count too; before: every item's
