"""Shortcuts: pages that state a task's focus entity together with its answer.

A two-hop bridge ("Where was the founder of Vexa Corp born?") is only a two-hop question if
no single page names Vexa Corp *and* gives the answer. When the founder's page carries the
reverse sentence "Mara Quell is the founder of Vexa Corp." next to "Mara Quell was born in
Tarsk.", one search answers it: a shortcut. Generation rejects bridges with a shortcut unless
the world's ``bridge_shortcut_rate`` allows some, and ``searchgym world stats`` reports the
rate per family.

"Names an entity" is read from the page's structure (its subject, the subjects and objects of
its fact sentences) and, for news pages without facts, from their text; "gives the answer" is
textual: a normalised answer alias occurs in the normalised page text.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from searchgym.world.mentions import MentionFinder
from searchgym.world.model import Entity, Fact, Page


def normalised(text: str) -> str:
    """Lower-case words separated by single spaces, padded: " a b c " (for whole-word search)."""
    return " " + re.sub(r"\s+", " ", re.sub(r"[^a-z0-9 ]", " ", text.lower())).strip() + " "


class ShortcutDetector:
    """Answers "does some page name entity ``e`` and contain ``answer``?" in time linear in the
    pages that name ``e`` (the index is built once, from the pages' structure)."""

    def __init__(self, entities: Mapping[str, Entity], facts: Mapping[str, Fact], pages: Sequence[Page]) -> None:
        self.pages = pages
        self._naming: dict[str, list[int]] | None = None
        self._entities = entities
        self._facts = facts
        self._texts: dict[int, str] = {}

    def _index(self) -> dict[str, list[int]]:
        if self._naming is None:
            naming: dict[str, set[int]] = defaultdict(set)
            finder: MentionFinder | None = None
            for i, page in enumerate(self.pages):
                if page.entity_id is not None:
                    naming[page.entity_id].add(i)
                fact_ids = page.fact_ids
                for fid in fact_ids:
                    fact = self._facts[fid]
                    naming[fact.subject_id].add(i)
                    if fact.object_id is not None:
                        naming[fact.object_id].add(i)
                if not fact_ids and page.entity_id is None:  # news pages: names only in the text
                    if finder is None:
                        finder = MentionFinder([(e.display_name, e.id) for e in self._entities.values()]
                                               + [(e.name, e.id) for e in self._entities.values()],
                                               within_sentences=False)  # as worlds were generated
                    for _, ids in finder.find(page.text):
                        for eid in ids:
                            naming[eid].add(i)
            self._naming = {eid: sorted(found) for eid, found in naming.items()}
        return self._naming

    def _text(self, i: int) -> str:
        if i not in self._texts:
            self._texts[i] = normalised(self.pages[i].title + " " + self.pages[i].text)
        return self._texts[i]

    def pages_naming(self, entity_id: str) -> list[int]:
        return self._index().get(entity_id, [])

    def has_shortcut(self, entity_ids: Iterable[str], answers: Iterable[str]) -> bool:
        """True when one page names any of ``entity_ids`` and contains any of ``answers``."""
        needles = [normalised(a) for a in answers if normalised(a).strip()]
        return any(needle in self._text(i) for eid in entity_ids for i in self.pages_naming(eid)
                   for needle in needles)
