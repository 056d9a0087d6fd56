"""Candidate lists memoised per observed history: a trie whose nodes are what an agent has seen,
round by round, so a list built once is found again at the cost of a dict look-up.

Why: a candidate list depends only on the question's names and on what each round showed (the
tool, its facts, names, calculator value and expression, and the clock year), never on which
episode or seed showed it. Trainers replay the same tasks, and every episode of a task starts
from the same history, so ~40% of the lists an agent needs with new seeds (all of them when an
episode is replayed) were already built. A node keys its lists by what else the list depends on:
the allowed tools, whether the agent may answer, and the extra candidates (a team's posts and
``wait``, compared with their provenance, which Action equality ignores).
"""

from __future__ import annotations

from collections.abc import Sequence

from searchgym.action_types import Action

#: Entries a generator's memo keyed by names and ids keeps before it starts over (bounds memory
#: on very large worlds).
MEMO_LIMIT = 50_000

#: Nodes a trie holds before it starts over (each keeps a list of at most ``max_candidates``
#: actions and their texts: ~20k nodes are a few tens of MB).
HISTORY_LIMIT = 20_000

#: A node is one plain dict (few objects for the garbage collector to walk): a child under a
#: round's key ``(content, clock year)``, a list under ``(allowed tools, can_answer, extra)``.
HistoryNode = dict


class RankedCandidates:
    """One ranked list (never mutated: callers copy it), the provenances of the extra candidates
    it was built with, and its candidates' texts for one cut (a plain tuple: few objects for the
    garbage collector per stored list)."""

    __slots__ = ("_text_chars", "_texts", "actions", "provenances")

    def __init__(self, actions: Sequence[Action], provenances: tuple[str, ...]) -> None:
        self.actions: tuple[Action, ...] = tuple(actions)
        self.provenances = provenances
        self._text_chars = 0
        self._texts: tuple[str, ...] = ()

    def texts(self, max_chars: int, text_of, texts_of=None) -> tuple[str, ...]:
        """``text_of(action, max_chars)`` for every action, computed once per cut (by
        ``texts_of(actions, max_chars)`` in one call when given)."""
        if self._text_chars != max_chars or len(self._texts) != len(self.actions):
            if texts_of is not None:
                self._texts = texts_of(self.actions, max_chars)
            else:
                self._texts = tuple([text_of(a, max_chars) for a in self.actions])
            self._text_chars = max_chars
        return self._texts


class HistoryTrie:
    """The root of a generator's histories (children keyed by the question's names), and how
    many nodes hang from it."""

    def __init__(self) -> None:
        self.root: HistoryNode = {}
        self.nodes = 0

    def child(self, node: HistoryNode, key: tuple) -> HistoryNode:
        found = node.get(key)
        if found is None:
            found = node[key] = {}
            self.nodes += 1
        return found

    @property
    def full(self) -> bool:
        return self.nodes > HISTORY_LIMIT


class ExtraActions(tuple):
    """Extra candidates (a team's posts and ``wait``) that hash once: equal, and hashing equal, to
    the plain tuple. Why: ``Action.__hash__`` is Python code, and a key holding a plain tuple of a
    dozen extras hashed each of them on every list look-up (team envs keep one per post options)."""

    def __hash__(self) -> int:
        found = self.__dict__.get("hash")
        if found is None:
            found = self.__dict__["hash"] = tuple.__hash__(self)
        return found


def extra_key(extra: Sequence[Action]) -> tuple[tuple[Action, ...], tuple[str, ...]]:
    """(the extra actions, their provenances): equal keys give equal lists (an ``ExtraActions``
    is its own first part, and keeps the pair)."""
    if not extra:
        return (), ()
    if type(extra) is ExtraActions:
        found = extra.__dict__.get("key")
        if found is None:
            found = extra.__dict__["key"] = (extra, tuple([a.provenance for a in extra]))
        return found
    actions = tuple(extra)
    return actions, tuple(a.provenance for a in actions)


def find_list(node: HistoryNode, key: tuple, provenances: tuple[str, ...]) -> RankedCandidates | None:
    found = node.get(key)
    return found if found is not None and found.provenances == provenances else None
