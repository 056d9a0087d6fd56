"""A tool and a task family added by one registration each, inside registries restored afterwards.

The toy tool ``first_fact(entity)`` tells an entity's first relation; the toy family asks for
it. Registering them must reach the prompt, both action formats, candidate mode, the judge,
the team roles and world generation, and leave every existing task, suite hash and world
fingerprint as it was.
"""

from __future__ import annotations

import dataclasses

import pytest

from searchgym import suites as suite_module
from searchgym.actions import TAG_TOOLS, accepted_forms, format_action, parse_action
from searchgym.envs.roles import resolve_roles
from searchgym.envs.search import SearchEnv
from searchgym.tools import TOOL_NAMES, LookupNames, TagForm, Tool, ToolResult, ToolSpec, register_tool, scoped_tools
from searchgym.world import FAMILIES, World
from searchgym.world.families import FAMILY_REGISTRY, task_family

BUILT_IN_TOOLS = ("web_search", "knowledge_base", "calculator", "current_time", "ask_for_clarification")
BUILT_IN_FAMILIES = ("lookup", "bridge", "comparison", "aggregate", "temporal", "ambiguous", "list")
#: tests/world/test_scale.py pins these for the built-in families.
TINY_FINGERPRINT = "4f2635950f663132a9dc3a1432cabb09a04a6e1034d2542a88b859f9effb0e64"


def first_relation(world_facts, subject_id):
    return next((f for f in world_facts if f.subject_id == subject_id and f.current and f.object_id is not None),
                None)


class FirstFact(Tool):
    name = "first_fact"
    description = "Tell the first relation of an entity."
    parameters = {"type": "object", "properties": {"entity": {"type": "string"}}, "required": ["entity"]}

    def __init__(self, world):
        self.world = world

    def run(self, entity: str) -> ToolResult:
        ids = self.world.entities_by_name.get(entity.strip().lower(), ())
        fact = first_relation(self.world.facts.values(), ids[0]) if len(ids) == 1 else None
        if fact is None:
            return ToolResult.failure(f"no single entity named {entity!r} with a relation")
        shown = self.world.entities[fact.object_id].display_name
        return ToolResult(text=f"{entity}: {fact.predicate.replace('_', ' ')} {shown}.", evidence_ids=(fact.id,))


def toy_family(maker, split):
    eid = maker.entity_in(split)
    fact = first_relation(maker.forward[eid], eid) if eid else None
    if fact is None:
        return None
    question = f"Toy question: what does the first fact about {maker.entities[eid].name} name?"
    return maker.make("toy", split, question, maker.aliases(fact), "entity", [maker.hop(fact)], ["first_fact"], [eid])


@pytest.fixture
def toy():
    before = (tuple(TOOL_NAMES), tuple(FAMILIES))
    with scoped_tools(), FAMILY_REGISTRY.scoped():
        register_tool(ToolSpec("first_fact", FirstFact, build=lambda world, options: FirstFact(world),
                               tag=TagForm("first", "entity", "entity name"), candidates=LookupNames("entity", rank=2),
                               roles=("searcher",)))
        task_family("toy")(toy_family)
        yield
    assert (tuple(TOOL_NAMES), tuple(FAMILIES)) == before == (BUILT_IN_TOOLS, BUILT_IN_FAMILIES)


def toy_env(**kwargs) -> tuple[SearchEnv, object]:
    env = SearchEnv(world_size="tiny", split="train", families=["toy"], **kwargs)
    task = env.tasks.tasks("train")[0]
    return env, task


def test_the_toy_tool_reaches_every_list_that_derives_from_the_registry(toy):
    assert TOOL_NAMES == (*BUILT_IN_TOOLS, "first_fact")
    assert TAG_TOOLS["first"] == ("first_fact", "entity")
    assert "<first>entity name</first>   (first_fact)" in accepted_forms("tags", TOOL_NAMES)
    assert parse_action("<first>Vexa Corp</first>", "tags", TOOL_NAMES).args == {"entity": "Vexa Corp"}
    action = parse_action('<tool_call>{"name": "first_fact", "arguments": {"entity": "Vexa"}}</tool_call>',
                          "hermes", TOOL_NAMES)
    assert format_action(action, "tags") == "<first>Vexa</first>"
    searcher = next(r for r in resolve_roles("roles") if r.name == "searcher")
    assert searcher.tools == ("web_search", "knowledge_base", "first_fact")
    assert "first_fact" in resolve_roles("generalists", team_size=1)[0].tools


@pytest.mark.parametrize("tool_format", ["tags", "hermes"])
def test_a_text_episode_uses_the_toy_tool_and_answers_a_toy_task(toy, tool_format):
    env, task = toy_env(action_mode="text", tool_format=tool_format)
    obs, info = env.reset(seed=0, options={"task_id": task.id})
    assert task.family == "toy" and '"name": "first_fact"' in obs
    name = env.world.entities[task.focus_entity_ids[0]].name
    call = f"<first>{name}</first>" if tool_format == "tags" else \
        f'<tool_call>{{"name": "first_fact", "arguments": {{"entity": "{name}"}}}}</tool_call>'
    obs, reward, terminated, _, info = env.step(call)
    assert task.answers[0] in obs and info["evidence_found"] == [task.evidence[0].fact_id]
    assert info["signals"]["new_gold"] and info["signals"]["consistent"]
    _, reward, terminated, _, info = env.step(f"<answer>{task.answers[0]}</answer>")
    assert terminated and info["success"] and reward > 0


def test_a_candidate_episode_is_offered_the_toy_tool_and_its_answer(toy):
    env, task = toy_env(action_mode="candidates")
    obs, info = env.reset(seed=0, options={"task_id": task.id})
    name = env.world.entities[task.focus_entity_ids[0]].name
    texts = list(obs["candidates"])
    wanted = next(i for i, t in enumerate(texts) if t.startswith(f'first_fact(entity="{name}")'))
    obs, _, _, _, info = env.step(wanted)
    assert info["signals"]["new_gold"] and info["signals"]["consistent"]
    answer = next(i for i, t in enumerate(obs["candidates"]) if t.startswith(f'answer("{task.answers[0]}")')
                  and "via first_fact" in t)
    _, reward, terminated, _, info = env.step(answer)
    assert terminated and info["success"] and reward > 0


def test_the_toy_family_leaves_every_other_task_and_the_corpus_unchanged(toy):
    world = World.generate(0, "tiny")
    toy_tasks = [t for t in world.tasks if t.family == "toy"]
    assert toy_tasks and all(t.id.startswith("toy-") for t in toy_tasks)
    others = dataclasses.replace(world, tasks=tuple(t for t in world.tasks if t.family != "toy"))
    assert others.fingerprint == TINY_FINGERPRINT  # the world without the toy tasks is the pinned world
    assert world.fingerprint != TINY_FINGERPRINT  # a world with more tasks is another world


def test_existing_suite_hashes_do_not_move_when_a_family_is_registered(monkeypatch):
    monkeypatch.setenv("SEARCHGYM_WORLD_CACHE", "off")  # the toy world is generated, never stored
    names = ("quick-v2", "searchqa-v2", "team-hard-v2")
    before = {n: suite_module.get_suite(n).content_hash for n in names}
    with FAMILY_REGISTRY.scoped():
        task_family("toy")(toy_family)
        monkeypatch.setattr(suite_module, "_HASHES", {})  # hash again, on a world generated with the toy family
        world = suite_module.get_suite("quick-v2").world()
        assert any(t.family == "toy" for t in world.tasks)
        assert {n: suite_module.get_suite(n).content_hash for n in names} == before


def test_the_suites_over_every_family_use_the_built_in_families():
    """A family added to world/tasks.py joins these suites and changes their hashes: version them."""
    assert suite_module.ALL_FAMILIES == BUILT_IN_FAMILIES
    assert suite_module.get_suite("searchqa-v2").families == BUILT_IN_FAMILIES


def test_registration_refuses_what_would_break_the_formats():
    with scoped_tools():
        spec = ToolSpec("first_fact", FirstFact, build=lambda world, options: FirstFact(world),
                        tag=TagForm("first", "entity"))
        register_tool(spec)
        with pytest.raises(ValueError, match="already registered"):
            register_tool(spec)
        with pytest.raises(ValueError, match="belongs to 'web_search'"):
            register_tool(dataclasses.replace(spec, name="other", tool_class=type(
                "Other", (FirstFact,), {"name": "other"}), tag=TagForm("search", "entity")))
    with pytest.raises(ValueError, match="not arguments of FirstFact"):
        ToolSpec("first_fact", FirstFact, build=FirstFact, tag=TagForm("first", "query"))
    with pytest.raises(ValueError, match="lower-case Python identifier other than answer"):
        ToolSpec("first_fact", FirstFact, build=FirstFact, tag=TagForm("answer", "entity"))
    with pytest.raises(ValueError, match="grounding must be one of"):
        ToolSpec("first_fact", FirstFact, build=FirstFact, grounding="vibes")
    with pytest.raises(ValueError, match="unknown task family 'nope'; accepted: lookup, bridge"):
        FAMILY_REGISTRY.get("nope")
    assert TOOL_NAMES == BUILT_IN_TOOLS
