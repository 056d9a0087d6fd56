"""Suites: definitions, deterministic task selection, and content hashes stable across processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from searchgym.cli import main
from searchgym.suites import MULTI_HOP_FAMILIES, RETIRED_SUITES, SUITES, Suite, env_kind, get_suite, make_env, register_suite, tasks

TINY = register_suite(Suite("test-suites-tiny-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 5},
                            world_size="tiny", dev_size=4, test_size=7, families=("bridge", "lookup")))


def test_the_published_suites_exist():
    expected = {"quick-v2"} | {f"{k}{d}-v2" for k in ("searchqa", "team", "group") for d in ("", "-easy", "-hard")}
    assert expected <= set(SUITES)
    quick = get_suite("quick-v2")
    assert (quick.env_id, quick.families, quick.difficulty) == (
        "TeamSearch-Generalists-Candidates-v0", MULTI_HOP_FAMILIES, None)
    test_tasks = tasks(quick, "test")
    assert len(test_tasks) >= 150 and env_kind(quick) == "parallel"
    # the main suite needs multi-step search: two or more pieces of evidence (facts, or a fact and
    # the clock), and most tasks two or more facts
    assert all(len(t.evidence) >= 2 for t in test_tasks)
    assert sum(t.hops >= 2 for t in test_tasks) >= 0.7 * len(test_tasks)


def test_retired_suites_say_why_and_name_their_replacement():
    for old in ("quick-v0", "searchqa-v0", "team-hard-v0", "quick-v1", "searchqa-v1", "group-easy-v1",
                "searchqa-text-v1", "team-text-v1", "group-text-v1"):
        assert old in RETIRED_SUITES and old not in SUITES
        new = old[: -len("-v0")] + "-v2"
        with pytest.raises(KeyError, match=f"suite {old} was retired: the scoring rules changed") as raised:
            get_suite(old)
        assert str(raised.value).endswith(f". Use {new}") and new in SUITES
    assert "results on it cannot be re-scored" in RETIRED_SUITES["quick-v0"]
    assert "scoring-v3 matches a computed answer only exactly" in RETIRED_SUITES["quick-v1"]
    assert "its successor has the same world, tasks and settings" in RETIRED_SUITES["team-text-v1"]
    assert "searchqa-text-v0" not in RETIRED_SUITES  # the text suites began at v1
    assert get_suite("searchqa-hard-v2").difficulty == "hard" and env_kind(get_suite("searchqa-v2")) == "single"
    assert get_suite("group-v2").kwargs["group_size"] == 4


#: Hashes of the -v1 suites (scoring-v2), as the committed -v1 leaderboard submissions recorded them.
V1_HASHES = {
    "quick-v1": "47e76b2277bc9e72548209793801b75054e1338130760a800f62eb3d54a14119",
    "searchqa-text-v1": "cc71214d27a3c4ef4d12be10540cc16b7baf8f31c7c20b140f747eb35149118f",
}


def test_the_v2_suites_are_the_v1_definitions_under_new_rules(monkeypatch):
    """Hashed with the v1 id, version and rules (scoring-v2), a -v2 suite gives the v1 hash: the
    world, tasks and settings are unchanged, and only the rules' version moves the hash."""
    from dataclasses import replace

    import searchgym.suites as suite_module

    new = {old: get_suite(old.replace("-v1", "-v2")).content_hash for old in V1_HASHES}
    assert all(new[old] != h for old, h in V1_HASHES.items())
    monkeypatch.setattr(suite_module, "SCORING_RULES_VERSION", "scoring-v2")
    monkeypatch.setattr(suite_module, "_HASHES", {})
    for old, pinned in V1_HASHES.items():
        assert replace(get_suite(old.replace("-v1", "-v2")), id=old, version=1).content_hash == pinned


def test_unknown_suite_lists_the_known_ones():
    with pytest.raises(KeyError, match="unknown suite 'nope'; known suites: quick-v2, searchqa-v2"):
        get_suite("nope")


@pytest.mark.parametrize("given", [["quick-v2"], {"id": "quick-v2"}, None, 5, b"quick-v2"])
def test_a_suite_id_that_is_not_a_string_is_an_unknown_suite(given):
    """Before: get_suite(["quick-v2"]) was "TypeError: unhashable type: 'list'"; every caller catches KeyError."""
    with pytest.raises(KeyError, match=r"^a suite id is a string \(or a Suite\), got .*; known suites: quick-v2, "):
        get_suite(given)


def test_capped_splits_interleave_families_in_world_order():
    world = TINY.world()
    bridges = [t.id for t in world.tasks_in("test", ["bridge"])]
    lookups = [t.id for t in world.tasks_in("test", ["lookup"])]
    assert len(bridges) >= 4 and len(lookups) >= 3
    chosen = [t.id for t in tasks(TINY, "test")]
    assert chosen == [bridges[0], lookups[0], bridges[1], lookups[1], bridges[2], lookups[2], bridges[3]]
    assert [t.id for t in tasks(TINY, "train")] == [t.id for t in world.tasks_in("train", ["bridge", "lookup"])]
    assert chosen == [t.id for t in tasks(TINY, "test")]  # deterministic


def test_hash_covers_the_definition_but_not_the_description():
    same = Suite(TINY.id, 0, TINY.env_id, {"max_steps": 5}, world_size="tiny", dev_size=4, test_size=7,
                 families=("bridge", "lookup"), description="other words")
    assert same.content_hash == TINY.content_hash and len(TINY.content_hash) == 64
    for change in ({"test_size": 6}, {"world_seed": 1}, {"env_kwargs": {"max_steps": 6}}, {"version": 1}):
        fields = {"id": TINY.id, "version": 0, "env_id": TINY.env_id, "env_kwargs": {"max_steps": 5}, "world_size": "tiny",
                      "dev_size": 4, "test_size": 7, "families": ("bridge", "lookup")}
        assert Suite(**{**fields, **change}).content_hash != TINY.content_hash, change


def test_hashes_are_stable_across_processes():
    code = (f"import json, sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import test_suites; from searchgym.suites import SUITES; "
            "print(json.dumps({k: s.content_hash for k, s in SUITES.items()}))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120,
                            cwd=Path(__file__).parents[1], env={"PYTHONHASHSEED": "12345", "PATH": ""})
    other = json.loads(result.stdout.strip().splitlines()[-1])
    here = {k: s.content_hash for k, s in SUITES.items() if k in other}
    assert here == {k: other[k] for k in here} and "quick-v2" in here and TINY.id in here


def test_bad_definitions_are_clear_errors():
    with pytest.raises(ValueError, match=r"\['world_size'\] are suite fields, not env_kwargs"):
        Suite("x-v0", 0, "SearchQA-Candidates-v0", {"world_size": "tiny"})
    with pytest.raises(ValueError, match="test_size must be None or a positive int"):
        Suite("x-v0", 0, "SearchQA-Candidates-v0", test_size=0)
    with pytest.raises(ValueError, match="taken by a different definition"):
        register_suite(Suite("quick-v2", 1, "SearchQA-Candidates-v0"))
    with pytest.raises(ValueError, match="unknown split 'val'"):
        tasks(TINY, "val")


def test_make_env_plays_a_suite_task():
    env = make_env(TINY, "test")
    task = tasks(TINY, "test")[0]
    _obs, info = env.reset(seed=0, options={"task_id": task.id})
    assert info["task_id"] == task.id and env.unwrapped.world is TINY.world()
    assert env.unwrapped.config.max_steps == 5 and env.unwrapped.tasks.families == ["bridge", "lookup"]


def test_the_suites_command_prints_every_hash(capsys):
    assert main(["suites"]) == 0
    out = capsys.readouterr().out
    for suite in SUITES.values():
        assert f"{suite.id}" in out and suite.content_hash[:16] in out
    assert main(["suites", "quick-v2", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["hash"] == get_suite("quick-v2").content_hash and rows[0]["tasks"]["test"] == 160


def test_observation_kind_reads_the_registry_and_the_suites_kwargs():
    """The one reading of what a suite's env observes (the recipe, serve, evaluate --agent run, the LLM
    method and the benchmarks each combined the kwargs themselves, and read a numeric id as text)."""
    from searchgym.suites import observation_kind

    assert observation_kind(get_suite("searchqa-text-v2")) == "text"
    assert observation_kind(get_suite("quick-v2")) == "candidates"
    numeric = Suite("test-numeric-kind-v0", 0, "SearchQA-Numeric-v0", {}, world_size="tiny")
    assert observation_kind(numeric) == "numeric"
    text_override = Suite("test-text-kind-v0", 0, "SearchQA-Candidates-v0", {"action_mode": "text"}, world_size="tiny")
    assert observation_kind(text_override) == "text"


def test_the_recipe_refuses_a_numeric_suite():
    """Before: its check read a numeric id (no action_mode in its kwargs) as text, and the recipe ran on it."""
    pytest.importorskip("torch")
    from searchgym.agents.tiny_lm_recipe import Recipe, RecipeConfig

    register_suite(Suite("test-numeric-recipe-v0", 0, "SearchQA-Numeric-v0", {}, world_size="tiny"), replace=True)
    with pytest.raises(ValueError, match="the recipe trains on a single-agent text suite"):
        Recipe(RecipeConfig(suite="test-numeric-recipe-v0"), "unused")
