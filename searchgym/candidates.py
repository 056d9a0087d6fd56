"""Admissible candidate actions, built only from what an agent has observed (as TextWorld lists
admissible commands): look-ups of names it has seen, calculations over numbers it has seen, the
clock, a clarification request, and answers from spans it has seen, each answer with its
provenance (fact, tool, "in 2019" for outdated figures). Ranked by a fixed priority, cut at
``max_candidates`` and shuffled by the env's generator, so position carries no signal; each
tool's candidate rule is its registration's ``ToolSpec.candidates``.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import islice

from searchgym.action_types import Action
from searchgym.candidate_actions import (
    calculation_argument,
    call_of,
    fact_provenance,
    fact_value,
    list_answer,
    noted,
    tool_of,
    tool_rules,
)
from searchgym.candidate_calculations import (  # noqa: F401 (the limits are re-exported)
    MAX_CALCULATIONS,
    MAX_NUMBERS_PER_QUANTITY,
    CalculationTier,
)
from searchgym.candidate_history import (
    MEMO_LIMIT,
    HistoryNode,
    HistoryTrie,
    RankedCandidates,
    extra_key,
    find_list,
)
from searchgym.candidate_names import NameTier
from searchgym.candidate_rounds import OlderRounds, Round, add_members
from searchgym.per_world import PerWorld
from searchgym.tools.base import ToolResult
from searchgym.tools.clock import CLOCK_EVIDENCE_ID
from searchgym.tools.tool_registry import TOOL_REGISTRY, FixedCall, special_evidence
from searchgym.world.model import Fact
from searchgym.world.world import World

MAX_LATEST_ANSWERS = 10
MAX_QUESTION_ANSWERS = 6
#: Entries a memo keeps before it starts over (bounds memory on very large worlds): memos keyed
#: by names and ids (``MEMO_LIMIT``), and memos keyed by whole result texts (a few KB each).
TEXT_MEMO_LIMIT = 8192
#: world -> text -> the names it mentions (``names_in``)
_MENTIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def names_in(world: World, text: str) -> tuple[str, ...]:
    """The entity names ``text`` mentions, in order (memoised per world: results recur)."""
    memo = _MENTIONS.get(world)
    if memo is None or len(memo) > TEXT_MEMO_LIMIT:
        memo = _MENTIONS[world] = {}
    names = memo.get(text)
    if names is None:
        names = memo[text] = tuple(surface for surface, _ in world.mentions.find(text))
    return names


def clear_memos() -> None:
    """Forget mention look-ups and the shared generators' memos (benchmarks timing cold caches)."""
    _MENTIONS.clear()
    call_of.cache_clear()
    for generator in _SHARED_GENERATORS.values():
        generator.clear()


#: (world, max_candidates) -> the generator every env of that world shares (searchgym.per_world).
_SHARED_GENERATORS: PerWorld[CandidateGenerator] = PerWorld(lambda key: CandidateGenerator(*key))


def shared_generator(world: World, max_candidates: int) -> CandidateGenerator:
    """One generator per world and list length for every env of the process. Why: its memos depend
    only on the world, and a trainer runs dozens of envs on one world, each cold on a memo of its own."""
    return _SHARED_GENERATORS.get((world, max_candidates))


@dataclass
class Observed:
    """Everything an agent has seen so far in an episode (the input of candidate generation)."""

    question_names: tuple[str, ...]
    rounds: list[Round] = field(default_factory=list)
    #: Candidate generation's memo of this record (see ``CandidateGenerator.generate``).
    derived: dict = field(default_factory=dict, repr=False, compare=False)

    def record(self, world: World, action: Action | None, result: ToolResult | None) -> Round:
        """Digest a round's result: which facts, names, numbers it showed."""
        special, facts = special_evidence(), world.facts
        fact_ids = tuple([e for e in (result.evidence_ids if result else ()) if e not in special and e in facts])
        names = names_in(world, result.text) if result and result.ok else ()
        calc = result.text.strip() if (result and result.ok and action and calculation_argument(action.tool)) else None
        clock = world.now.year if (result and CLOCK_EVIDENCE_ID in result.evidence_ids) else None
        rnd = Round(action, result, fact_ids, names, calc, clock)
        self.rounds.append(rnd)
        return rnd


class CandidateGenerator(NameTier, CalculationTier):
    """Builds the ranked candidate list for one agent; shared by every env of a world. It memoises a
    round's answers, names and numbers (kept on the ``Round``), the actions built from names, facts
    and calculations, and whole lists per history (``ranked``): the output equals building afresh."""

    def __init__(self, world: World, max_candidates: int = 48) -> None:
        self.world = world
        self.max_candidates = max_candidates
        self._memo: dict[tuple, object] = {}
        self._lookups: dict[tuple, dict[tuple[str, str], dict[Action, None]]] = {}  # see _name_tier
        self._histories = HistoryTrie()
        self._allowed: dict[tuple[str, ...], frozenset[str]] = {}
        self._keys: dict[tuple, tuple] = {}

    def clear(self) -> None:  # every memo, the lists by history too
        self._memo.clear()
        self._lookups.clear()
        self._keys.clear()
        self._histories = HistoryTrie()

    def _memoised(self, key: tuple, build: Callable, *args: object):
        """``build(*args)``, once per ``key``."""
        found = self._memo.get(key)
        if found is None:
            if len(self._memo) > MEMO_LIMIT:
                self._memo.clear()
            found = self._memo[key] = build(*args)
        return found

    def generate(self, observed: Observed, allowed_tools: Sequence[str], can_answer: bool = True,
                 extra: Sequence[Action] = ()) -> list[Action]:
        """Ranked, de-duplicated candidates (at most ``max_candidates``; the env shuffles them)."""
        return list(self.ranked(observed, allowed_tools, can_answer, extra).actions)

    def ranked(self, observed: Observed, allowed_tools: Sequence[str], can_answer: bool = True,
               extra: Sequence[Action] = ()) -> RankedCandidates:
        """``generate``'s list, shared, never to be changed: built once per history (candidate_history)."""
        allowed = self._allowed.get(allowed_tools) if isinstance(allowed_tools, tuple) else None
        if allowed is None:  # one frozenset per tool set, held by every stored list's key
            allowed = self._allowed.setdefault(tuple(allowed_tools), frozenset(allowed_tools))
        node, (actions, provenances) = self._history(observed), extra_key(extra)
        key = (allowed, can_answer, actions)
        found = find_list(node, key, provenances)
        if found is None:
            if len(self._keys) > MEMO_LIMIT:
                self._keys.clear()
            key = self._keys.setdefault(key, key)  # one key object for every node that stores it
            found = node[key] = RankedCandidates(self._build(observed, allowed, can_answer, actions), provenances)
        return found

    def _history(self, observed: Observed) -> HistoryNode:
        """The trie node of ``observed``'s history, kept on the record and extended by new rounds."""
        if self._histories.full:
            self._histories = HistoryTrie()
        trie, rounds, question = self._histories, observed.rounds, observed.question_names
        seen, last, asked, node, owner = observed.derived.get("history", (0, None, None, None, None))
        if owner is not trie or asked != question or seen > len(rounds) or (seen and rounds[seen - 1] is not last):
            seen, node = 0, trie.child(trie.root, question)
        for rnd in rounds[seen:]:
            node = trie.child(node, (self._derived(rnd)["content"], rnd.clock_year))
        observed.derived["history"] = (len(rounds), rounds[-1] if rounds else None, question, node, trie)
        return node

    def _build(self, observed: Observed, allowed: frozenset[str], can_answer: bool, extra: Sequence[Action]) -> list:
        """The tiers in rank order, each action's first occurrence kept, cut at ``max_candidates``.
        Memoised tiers are dicts (a merge reuses their stored hashes: no ``Action.__hash__``);
        later tiers are built only while the list is not full."""
        latest = observed.rounds[-1:]
        lookups, calculators, _ = tool_rules(allowed)
        older = self._older(observed)
        memo = observed.derived
        if memo.get("question", (None,))[0] != (lookups, observed.question_names):
            memo["question"] = ((lookups, observed.question_names),
                                self._name_tier(observed.question_names, allowed, "question"))
        unique = dict.fromkeys(extra)
        unique.update(memo["question"][1])
        listed, about = self._older_answers(observed, older) if can_answer else ({}, {})
        if can_answer:
            unique.update(self._latest_answers(latest))
            unique.update(about)
        unique.update(self._latest_names(latest, allowed, lookups))
        full = self.max_candidates
        if len(unique) < full:
            for tool, argument in calculators:
                unique.update(self._calculations(observed, tool, argument))
        if len(unique) < full:
            unique.update(self._fixed(observed, allowed))
        if len(unique) < full and can_answer:
            unique.update(listed)
            unique.update(older.answers)
        if len(unique) < full:
            unique.update(self._older_names(observed, older, allowed, lookups))
        return list(islice(unique, full))

    # ------------------------------------------------------------------------------ tiers
    def _derived(self, rnd: Round) -> dict:
        """The round's memo, shared by every round of the same content (the same result recurs
        across agents and episodes): what is derived from it depends on nothing else."""
        derived = rnd.derived
        if "content" not in derived:
            expression = rnd.action.args.get(calculation_argument(rnd.action.tool) or "") \
                if rnd.calculator_value is not None and rnd.action else None
            content = (tool_of(rnd), rnd.fact_ids, rnd.names, rnd.calculator_value, expression)
            derived = self._memoised(("round", content), dict, (("content", content),))
            rnd.derived = derived
        return derived

    def _latest_answers(self, latest: Sequence[Round]) -> dict[Action, None]:
        if not latest:
            return {}
        derived = self._derived(latest[0])
        if "latest_answers" not in derived:
            derived["latest_answers"] = dict.fromkeys(self._answers(latest)[:MAX_LATEST_ANSWERS])
        return derived["latest_answers"]

    def _round_answers(self, rnd: Round) -> tuple[list[Action], list[tuple[tuple[str, str], str]]]:
        """(answer actions, ((predicate, value), subject) list memberships) of one round."""
        derived = self._derived(rnd)
        found = derived.get("answers")
        if found is None:
            tool = tool_of(rnd)
            actions: list[Action] = []
            members: list[tuple[tuple[str, str], str]] = []
            if rnd.calculator_value is not None:
                expr = rnd.action.args.get(calculation_argument(rnd.action.tool) or "", "") if rnd.action else ""
                actions.append(Action.answer(rnd.calculator_value, f"{tool}: {expr}"))
            for fid in rnd.fact_ids:
                fact = self.world.facts[fid]
                actions.append(self._memoised(("answer", fid, tool), self._fact_answer, fact, tool))
                if fact.object_id is not None:
                    subject = self.world.entities[fact.subject_id].display_name
                    members.append(((fact.predicate, str(fact.value)), subject))
            found = derived["answers"] = (actions, members)
        return found

    def _answer_keys(self, rnd: Round) -> tuple[dict[Action, None], tuple[str, ...]]:
        """(the round's answers as a dict, each one's subject), for ``OlderRounds.prepend``; once per content."""
        derived = self._derived(rnd)
        found = derived.get("answer_keys")
        if found is None:
            actions = self._round_answers(rnd)[0]
            found = derived["answer_keys"] = (dict.fromkeys(actions),
                                              tuple(a.provenance.partition(" | ")[0] for a in actions))
        return found

    def _answers(self, rounds: Sequence[Round]) -> list[Action]:
        actions: list[Action] = []
        groups: dict[tuple[str, str], list[str]] = {}
        for rnd in rounds:
            answers, members = self._round_answers(rnd)
            actions.extend(answers)
            add_members(groups, members)
        return self._list_answers(groups) + actions

    def _list_answers(self, groups: dict[tuple[str, str], list[str]]) -> list[Action]:
        """One answer listing every subject of a (predicate, value) seen with two or more."""
        return [self._memoised(("list", predicate, obj, *subjects), list_answer, predicate, obj, tuple(subjects))
                for (predicate, obj), subjects in groups.items() if len(subjects) >= 2]

    def _older_answers(self, observed: Observed, older: OlderRounds) -> tuple[dict, dict]:
        """(the older rounds' list answers, the tier of answers about the question's names) as
        dicts, kept on the record while the older rounds' groups and answers about the question are
        the same objects (``OlderRounds.prepend`` shares them when a round adds none)."""
        kept = observed.derived.get("older_answers")
        if kept is not None and kept[0] is older.groups and kept[1] is older.about and kept[2] == older.question:
            return kept[3], kept[4]
        listed = self._list_answers(older.groups)
        question = set(observed.question_names)
        about = [a for a in listed if a.provenance.partition(" | ")[0] in question]
        if not about and kept is not None and kept[1] is older.about and kept[2] == older.question and not kept[5]:
            about_tier = kept[4]  # the same answers about the question as last time: the same tier
        else:
            about_tier = dict.fromkeys((about + older.about)[:MAX_QUESTION_ANSWERS])
        tiers = dict.fromkeys(listed), about_tier
        observed.derived["older_answers"] = (older.groups, older.about, older.question, *tiers, bool(about))
        return tiers

    def _older(self, observed: Observed) -> OlderRounds:
        """What the rounds before the latest give, newest first, kept on the record and extended by
        the rounds that became older (the same as reading them all again: ``OlderRounds.prepend``)."""
        rounds, derived = observed.rounds, observed.derived
        older = derived.get("older")
        count = max(len(rounds) - 1, 0)
        asked = derived.get("older_question")  # (the question's names, as a set): older.about depends on it
        if asked is None or asked[0] is not observed.question_names:
            asked = derived["older_question"] = (observed.question_names, frozenset(observed.question_names))
        question = asked[1]
        if older is None or older.count > count or (older.count and rounds[older.count - 1] is not older.last) \
                or (older.question is not question and older.question != question):
            older = OlderRounds(question=question)
        for rnd in rounds[older.count:count]:
            parent, older = older, older.prepend(rnd, self._round_answers(rnd), self._round_roles(rnd),
                                                 *self._answer_keys(rnd))
            derived["older_parent"] = (older, parent)  # for the name tier (``_older_names``)
        derived["older"] = older
        return older

    def _fact_answer(self, fact: Fact, tool: str) -> Action:
        return Action.answer(fact_value(fact), fact_provenance(self.world, fact, tool))

    def _fixed(self, observed: Observed, allowed: frozenset[str]) -> dict[Action, None]:
        """Keyed by the tool set and registry version (the rules as a key hashed each ``FixedCall``)."""
        name = observed.question_names[0] if observed.question_names else "the question"
        key = ("fixed", name, allowed, TOOL_REGISTRY.version)
        found = self._memo.get(key)
        if found is None:
            rules = tool_rules(allowed)[2]
            found = self._memoised(key, lambda: dict.fromkeys(self._fixed_actions(name, rules)))
        return found

    @staticmethod
    def _fixed_actions(name: str, rules: tuple[tuple[str, FixedCall], ...]) -> tuple[Action, ...]:
        """One call per allowed tool with a :class:`FixedCall` rule ("{name}": the question's name)."""
        return tuple(noted(Action.call(tool, **{k: t.format(name=name) for k, t in rule.arguments}), rule.note)
                     for tool, rule in rules)
