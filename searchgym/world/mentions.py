"""Finding entity names in text (a question, a search result) by token look-up.

Candidate actions may only be built from what an agent has seen, so the env needs to know which
names a piece of text mentions. Names are indexed by their first token; a scan over the text's
tokens checks only the names that start there, which keeps it linear in the text, not in the
size of the world.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

_TOKEN = re.compile(r"[a-z0-9]+")
#: A text's tokens for a scan: words, and a sentence's end (``.``, ``!`` or ``?`` before a space or the
#: line's end) as the token ``"."``, which no name holds, so no match runs across it.
_SCAN_TOKEN = re.compile(r"[a-z0-9]+|[.!?](?=\s|$)")
#: Lines a finder keeps the tokens of before it starts over (bounds memory: ~1 KB a line, see docs/SCALE.md).
LINE_MEMO_LIMIT = 20_000


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class MentionFinder:
    """Maps surface names (plain and display names) to the ids of entities that carry them."""

    def __init__(self, names: Iterable[tuple[str, str]], within_sentences: bool = True) -> None:
        """``names`` yields (surface name, entity id); one surface may belong to several ids.
        ``within_sentences``: a name never runs across a sentence's end (before, "... is in Neihio.
        University of Prestosh ..." was read as the entity "Neihio University", and the city was not
        offered); False reads as before, for world generation (its shortcut checks, so every world's
        content and fingerprint stay the same)."""
        self._scan = _SCAN_TOKEN if within_sentences else _TOKEN
        self._by_first: dict[str, list[tuple[tuple[str, ...], str]]] = defaultdict(list)
        surfaces: dict[tuple[str, ...], str] = {}
        self._ids: dict[tuple[str, ...], list[str]] = defaultdict(list)
        self._lines: dict[str, tuple[list[str], list[int]]] = {}  # line -> (its tokens, where names may begin)
        for surface, eid in names:
            key = tuple(tokens(surface))
            if not key:
                continue
            if key not in surfaces:
                surfaces[key] = surface
                self._by_first[key[0]].append((key, surface))
            if eid not in self._ids[key]:
                self._ids[key].append(eid)
        for entries in self._by_first.values():
            entries.sort(key=lambda entry: -len(entry[0]))  # longest match first
        # The same entries keyed for the scan: names of 2+ tokens by their first two (longest
        # first), one-token names by their token. Why: a first token such as "the" or "a" begins
        # dozens of names (64 and 17 in the quick-v2 world), and every "the" in a result compared
        # the text with each of them; their second token tells which few can match.
        self._by_two: dict[tuple[str, str], list[tuple[tuple[str, ...], str, tuple[str, ...]]]] = defaultdict(list)
        self._single: dict[str, tuple[tuple[str, ...], str, tuple[str, ...]]] = {}
        for entries in self._by_first.values():
            for key, surface in entries:
                entry = (key, surface, tuple(self._ids[key]))
                if len(key) == 1:
                    self._single[key[0]] = entry
                else:
                    self._by_two[key[:2]].append(entry)

    def find(self, text: str) -> list[tuple[str, tuple[str, ...]]]:
        """(surface, entity ids) for each name in ``text``, in order of first appearance, deduplicated.

        The scan goes left to right, and a match moves it past the name; only tokens that begin
        some name are visited (most tokens begin none)."""
        toks, starts = self._tokens(text)
        by_two, single, last = self._by_two, self._single, len(toks) - 1
        found: dict[str, tuple[str, ...]] = {}
        after = 0  # the first token not inside a name matched so far
        for i in starts:
            if i < after:
                continue
            match = None
            if i < last:  # the longest name of 2+ tokens that starts here, else the one-token name
                for entry in by_two.get((toks[i], toks[i + 1]), ()):
                    key = entry[0]
                    if len(key) == 2 or tuple(toks[i : i + len(key)]) == key:
                        match = entry
                        break
            if match is None:
                match = single.get(toks[i])
            if match is not None:
                key, surface, ids = match
                found.setdefault(surface, ids)
                after = i + len(key)
        return list(found.items())

    def _tokens(self, text: str) -> tuple[list[str], list[int]]:
        """(``tokens(text)``, the positions of the tokens that begin a name), read line by line
        from a memo: no token spans a line break, so a text's tokens are its lines' in order, and
        new texts (search results, notes) are mostly lines seen before. A name may still span
        lines: the scan runs over the whole text's tokens."""
        lines = self._lines
        if len(lines) > LINE_MEMO_LIMIT:
            lines.clear()
        toks: list[str] = []
        starts: list[int] = []
        for line in text.split("\n"):
            read = lines.get(line)
            if read is None:
                line_tokens = self._scan.findall(line.lower())
                read = lines[line] = (line_tokens, [i for i, tok in enumerate(line_tokens) if tok in self._by_first])
            if read[1]:
                offset = len(toks)
                starts.extend([offset + i for i in read[1]])
            toks.extend(read[0])
        return toks, starts
