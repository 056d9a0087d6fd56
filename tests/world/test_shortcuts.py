"""Bridges need every hop: no page names the question's entity and states the answer."""

from __future__ import annotations

import pytest

import searchgym.world.tasks as task_module
from searchgym.world import World
from searchgym.world.shortcuts import ShortcutDetector, normalised


def _shortcut_bridges(world: World) -> list[str]:
    detector = ShortcutDetector(world.entities, world.facts, world.pages)
    return [t.id for t in world.tasks if t.family == "bridge" and detector.has_shortcut(t.focus_entity_ids, t.answers)]


def test_default_bridges_have_no_shortcut_and_the_rate_is_a_knob():
    strict = World.generate(0, "small")
    loose = World.generate(0, "small", bridge_shortcut_rate=1.0)
    half = World.generate(0, "small", bridge_shortcut_rate=0.1)
    bridges = [t for t in strict.tasks if t.family == "bridge"]
    assert len(bridges) >= 60 and _shortcut_bridges(strict) == []
    assert strict.stats().shortcut_rate_by_family["bridge"] == 0.0
    natural = loose.stats().shortcut_rate_by_family["bridge"]
    assert natural > 0.15  # what the corpus gives when nothing is rejected
    assert 0.0 < half.stats().shortcut_rate_by_family["bridge"] <= 0.1 + 1e-9
    assert strict.meta["bridge_shortcut_rate"] == 0.0 and strict.fingerprint != loose.fingerprint
    with pytest.raises(ValueError, match=r"bridge_shortcut_rate must be in \[0, 1\]"):
        World.generate(0, "tiny", bridge_shortcut_rate=1.5)


def test_a_shortcut_is_a_page_that_names_the_entity_and_states_the_answer():
    world = World.generate(0, "small", bridge_shortcut_rate=1.0)
    task = next(world.task_by_id[i] for i in _shortcut_bridges(world))
    detector = ShortcutDetector(world.entities, world.facts, world.pages)
    pages = [world.pages[i] for i in detector.pages_naming(task.focus_entity_ids[0])]
    assert any(normalised(task.answers[0]) in normalised(p.text) for p in pages)
    start = world.entities[task.focus_entity_ids[0]]
    assert any(start.display_name in p.text or start.name in p.text for p in pages)


def test_families_draw_from_their_own_generators(monkeypatch):
    """Dropping a family leaves every other family's tasks unchanged (so suites keep their hash)."""
    full = World.generate(0, "tiny")
    monkeypatch.setattr(task_module, "FAMILIES", tuple(f for f in task_module.FAMILIES if f != "lookup"))
    fewer = World.generate(0, "tiny")
    assert not [t for t in fewer.tasks if t.family == "lookup"]
    assert [t for t in fewer.tasks] == [t for t in full.tasks if t.family != "lookup"]
    assert fewer.corpus_fingerprint == full.corpus_fingerprint and fewer.fingerprint != full.fingerprint


@pytest.mark.parametrize(("rate", "error", "shown"), [
    ("x", TypeError, "a number in [0, 1], got str 'x'"), (None, TypeError, "a number in [0, 1], got NoneType"),
    ([0.5], TypeError, "a number in [0, 1], got list"), (True, TypeError, "a number in [0, 1], got bool"),
    (2.0, ValueError, "in [0, 1], got 2.0"), (float("nan"), ValueError, "in [0, 1], got nan")])
def test_a_bad_rate_is_refused_before_the_world_is_built(rate, error, shown, monkeypatch):
    """Before: 'x' was "could not convert string to float: 'x'", None a TypeError from float(), a
    list "unhashable type: 'list'" in shared_world, True a rate of 1.0, and 2.0 was refused only
    after the world's pages were generated."""
    import re

    from searchgym.world import generate, shared_world

    monkeypatch.setattr(generate, "_generate", lambda *args: pytest.fail("the world was built"))
    for build in (World.generate, shared_world, generate.generate_world):
        with pytest.raises(error, match=re.escape(f"bridge_shortcut_rate must be {shown}")):
            build(0, "medium", bridge_shortcut_rate=rate)
