"""The look-up tiers of the candidate list: look-ups of the names the question, the latest result
and the earlier results mention, each noted with where the name came from and, for a name that
was the value of a fact, the relation that pointed at it.

Why a file of its own: the name tiers are rebuilt from memoised pieces on every list the
generator has not seen, and each piece is a dict (``dict.fromkeys`` of a name's look-ups), so a
tier is a run of dict merges that reuse the stored hashes instead of hashing every Action again
(``Action.__hash__`` is Python code). :class:`searchgym.candidates.CandidateGenerator` mixes it in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from searchgym.action_types import Action
from searchgym.candidate_actions import name_lookups, tool_rules
from searchgym.candidate_history import MEMO_LIMIT
from searchgym.candidate_rounds import MAX_NAMES_PER_ROUND, OlderRounds, Round

if TYPE_CHECKING:
    from searchgym.candidates import Observed


class NameTier:
    """Look-up candidates; a mixin of the candidate generator, which provides ``world``,
    ``_lookups`` (allowed look-up rules -> (name, note) -> its look-ups as a dict) and
    ``_derived(round)``."""

    def _name_tier(self, names: Sequence[str], allowed: frozenset[str], where: str,
                   roles: dict[str, str] | None = None) -> dict[Action, None]:
        """Look-ups of names as a tier (a new dict: callers may add to it); the provenance says
        where the name came from and, for a name that was the value of a fact, which relation
        pointed at it ("Vexa Corp | made by"). Equal to ``dict.fromkeys`` of every name's
        look-ups in turn: each action's first occurrence, in order."""
        lookups = tool_rules(allowed)[0]
        memo = self._lookups.get(lookups)  # (name, note) -> look-ups: the rules hashed once per call, not per name
        if memo is None or len(memo) > MEMO_LIMIT:
            memo = self._lookups[lookups] = {}
        tier: dict[Action, None] = {}
        plain = f"name from the {where}"
        for name in names:
            note = f"{plain} | {roles[name]}" if roles and name in roles else plain
            found = memo.get((name, note))
            if found is None:
                found = memo[(name, note)] = dict.fromkeys(name_lookups(name, note, lookups))
            tier.update(found)
        return tier

    def _latest_names(self, latest: Sequence[Round], allowed: frozenset[str], lookups: tuple) -> dict[Action, None]:
        if not latest:
            return {}
        derived = self._derived(latest[0])
        found = derived.get("latest_names")
        if found is None or found[0] != lookups:
            tier = self._name_tier(self._names(latest), allowed, "latest result", self._name_roles(latest))
            found = derived["latest_names"] = (lookups, tier)
        return found[1]

    @staticmethod
    def _names(rounds: Sequence[Round]) -> list[str]:
        names: list[str] = []
        for rnd in rounds:
            names.extend(n for n in rnd.names[:MAX_NAMES_PER_ROUND] if n not in names)
        return names

    def _name_roles(self, rounds: Sequence[Round]) -> dict[str, str]:
        """name -> "subject | predicate" of the (most recent) seen fact whose value is that name."""
        roles: dict[str, str] = {}
        for rnd in rounds:
            for value, role in self._round_roles(rnd):
                roles.setdefault(value, role)
        return roles

    def _round_roles(self, rnd: Round) -> list[tuple[str, str]]:
        derived = self._derived(rnd)
        found = derived.get("roles")
        if found is None:
            found = []
            for fid in rnd.fact_ids:
                fact = self.world.facts[fid]
                if fact.object_id is not None:
                    subject = self.world.entities[fact.subject_id].display_name
                    found.append((str(fact.value), f"{fact.predicate.replace('_', ' ')} of {subject}"))
            derived["roles"] = found
        return found

    def _older_names(self, observed: Observed, older: OlderRounds, allowed: frozenset[str],
                     lookups: tuple) -> dict[Action, None]:
        """The look-ups of the older rounds' names as a tier, kept on the record: when ``older`` is
        the last step's with one round prepended and that round changes no older name's relation,
        the round's look-ups go first and the last step's tier follows (a dict merge that keeps
        each action's first occurrence: what building it afresh gives)."""
        memo = observed.derived
        kept = memo.get("older_names")
        if kept is not None and kept[1] == lookups:
            if kept[0] is older:
                return kept[2]
            parent = memo.get("older_parent", (None, None))
            if parent[0] is older and parent[1] is kept[0] and older.last is not None:
                tier = self._prepended_names(older, kept[0], kept[2], allowed)
                if tier is not None:
                    memo["older_names"] = (older, lookups, tier)
                    return tier
        tier = self._name_tier(older.names, allowed, "earlier result", older.roles)
        memo["older_names"] = (older, lookups, tier)
        return tier

    def _prepended_names(self, older: OlderRounds, previous: OlderRounds, previous_tier: dict,
                         allowed: frozenset[str]) -> dict[Action, None] | None:
        """``older``'s name tier from ``previous``'s (``older`` is ``previous`` with ``older.last``
        prepended), or None when the new round changed the relation noted on an older name."""
        fresh = list(dict.fromkeys(older.last.names[:MAX_NAMES_PER_ROUND]))
        for value, _ in self._round_roles(older.last):
            changed = older.roles.get(value) != previous.roles.get(value)
            if changed and value in previous.names and value not in fresh:
                return None
        tier = self._name_tier(fresh, allowed, "earlier result", older.roles)
        tier.update(previous_tier)
        return tier
