"""``knowledge_base(entity)``: the structured facts the world's KB holds about one entity.

Name resolution, in order: exact display name ("Mara Quell (chemist)"), exact plain name (one
entity resolves; namesakes give a disambiguation list, because guessing would hand the agent
the wrong person's facts), then fuzzy matching for typos and word order. The KB is deliberately
incomplete, so "no facts" is a normal answer: the agent should then search the web.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from rapidfuzz import fuzz, process, utils

from searchgym.tools.base import Tool, ToolResult
from searchgym.tools.calculator import format_number
from searchgym.tools.tool_registry import LookupNames, TagForm, ToolSpec, register_tool
from searchgym.world.model import Entity, Fact
from searchgym.world.world import World

MAX_ENTITY_CHARS = 200
FUZZY_CUTOFF = 85.0
FUZZY_MARGIN = 3.0  # the best fuzzy match must beat the next entity by this much to be "clear"
CLOSEST_SHOWN = 3
#: Descriptions a KB keeps before it starts over (bounds memory on very large worlds).
DESCRIBED_LIMIT = 8192


def format_value(value: str | int | float) -> str:
    return value if isinstance(value, str) else format_number(value)


def format_fact(fact: Fact) -> str:
    """One KB line: "- founded year: 1987" (dated figures say "as of" their year)."""
    line = f"- {fact.predicate.replace('_', ' ')}: {format_value(fact.value)}"
    return line if fact.as_of is None else f"{line} (as of {fact.as_of})"


class KnowledgeBase(Tool):
    """Look up an entity's facts in the knowledge base by (fuzzy) name."""

    name = "knowledge_base"
    description = (
        "Look up the structured facts the knowledge base holds about an entity (person, company, "
        "city, ...). Give its name; if several entities share it you will be asked to choose. "
        "The knowledge base is incomplete: when it lacks a fact, search the web."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "entity": {
                "type": "string",
                "description": "The entity's name, or its full name with descriptor for namesakes.",
            }
        },
        "required": ["entity"],
        "additionalProperties": False,
    }

    def __init__(self, world: World):
        self.world = world
        self._by_display = dict(world.entity_by_display_name)
        self._by_name = dict(world.entities_by_name)
        owners: dict[str, set[str]] = defaultdict(set)
        for entity in world.entities.values():
            owners[entity.name.lower()].add(entity.id)
            owners[entity.display_name.lower()].add(entity.id)
        self._choices = list(owners)
        self._choice_owners = [tuple(sorted(owners[c])) for c in self._choices]
        #: entity id -> its description (a result depends only on the world, which never changes,
        #: and agents look the same entities up again and again); bounded
        self._described: dict[str, ToolResult] = {}

    def cache_clear(self) -> None:
        """Forget the memoised descriptions (benchmarks timing cold caches)."""
        self._described.clear()

    def run(self, entity: str) -> ToolResult:
        query = " ".join(entity.split())
        if not query:
            return ToolResult.failure("knowledge_base needs a non-empty entity name")
        if len(query) > MAX_ENTITY_CHARS:
            return ToolResult.failure(f"knowledge_base entity name is too long (limit {MAX_ENTITY_CHARS} characters)")
        key = query.lower()
        if key in self._by_display:
            return self._describe(self._by_display[key])
        namesakes = self._by_name.get(key, ())
        if len(namesakes) == 1:
            return self._describe(namesakes[0])
        if namesakes:
            return self._disambiguate(query, namesakes)
        return self._fuzzy(query)

    # ---------------------------------------------------------------------------- answers
    def _entity(self, entity_id: str) -> Entity:
        return self.world.entities[entity_id]

    def _describe(self, entity_id: str, note: str = "") -> ToolResult:
        if note:
            return self._description(entity_id, note)
        found = self._described.get(entity_id)
        if found is None:
            if len(self._described) > DESCRIBED_LIMIT:
                self._described.clear()
            found = self._described[entity_id] = self._description(entity_id, note)
        return found

    def _description(self, entity_id: str, note: str) -> ToolResult:
        entity = self._entity(entity_id)
        lines = [note] if note else []
        lines.append(f"{entity.display_name} ({entity.type})")
        fact_ids = [fid for fid in self.world.kb.get(entity_id, ()) if fid in self.world.facts]
        if not fact_ids:
            lines.append("The knowledge base has no facts about this entity; try web_search.")
            return ToolResult(text="\n".join(lines))
        lines.extend(format_fact(self.world.facts[fid]) for fid in fact_ids)
        return ToolResult(text="\n".join(lines), evidence_ids=tuple(dict.fromkeys(fact_ids)))

    def _disambiguate(self, query: str, entity_ids: tuple[str, ...]) -> ToolResult:
        entities = sorted((self._entity(eid) for eid in entity_ids), key=lambda e: e.display_name)
        options = "\n".join(f"- {e.display_name} ({e.type})" for e in entities)
        return ToolResult(
            text=(
                f"{len(entities)} entities are named {query!r}:\n{options}\n"
                "Call knowledge_base again with the full name of the one you mean."
            )
        )

    def _fuzzy(self, query: str) -> ToolResult:
        scored: dict[str, float] = {}
        for _, score, index in process.extract(
            query, self._choices, scorer=fuzz.token_sort_ratio, processor=utils.default_process, limit=20
        ):
            for entity_id in self._choice_owners[index]:
                scored[entity_id] = max(scored.get(entity_id, 0.0), score)
        ranked = sorted(scored.items(), key=lambda item: (-item[1], self._entity(item[0]).display_name))
        if ranked and ranked[0][1] >= FUZZY_CUTOFF:
            best_id, best = ranked[0]
            runner_up = ranked[1][1] if len(ranked) > 1 else 0.0
            if best - runner_up >= FUZZY_MARGIN:
                shown = self._entity(best_id).display_name
                return self._describe(best_id, note=f"No entity is named {query!r}. Showing results for {shown}.")
            top_names = {self._entity(eid).name.lower() for eid, s in ranked if s >= best - FUZZY_MARGIN}
            if len(top_names) == 1:  # the close matches are all namesakes of one name
                name = top_names.pop()
                return self._disambiguate(self._entity(best_id).name, self._by_name[name])
        closest = ", ".join(self._entity(eid).display_name for eid, _ in ranked[:CLOSEST_SHOWN])
        suffix = f"; closest: {closest}" if closest else ""
        return ToolResult(text=f"No entity matches {query!r}{suffix}.")


register_tool(ToolSpec(
    "knowledge_base", KnowledgeBase, build=lambda world, options: KnowledgeBase(world),
    tag=TagForm("lookup", "entity", "entity name"), candidates=LookupNames("entity", rank=0),
    roles=("searcher",), order=20,
))
