"""The candidate list built from tiers kept as dicts and from older rounds extended one round at a
time equals the list built the way it was before: every tier read again from every round,
concatenated in rank order, de-duplicated and cut (``reference_list`` below, the code as it was,
calculations worded in full). Played records of the three env kinds are compared, in the order
the generator sees them, and again from a generator whose memos are warm."""

from __future__ import annotations

from itertools import chain, islice

import pytest
from searchgym.baselines import RandomAgent
from searchgym.baselines.team_random import TeamRandom

from searchgym.candidate_actions import calculation_argument, name_lookups, tool_rules
from searchgym.candidate_rounds import MAX_NAMES_PER_ROUND, OlderRounds, Round
from searchgym.candidates import (
    MAX_CALCULATIONS,
    MAX_LATEST_ANSWERS,
    MAX_NUMBERS_PER_QUANTITY,
    MAX_QUESTION_ANSWERS,
    CandidateGenerator,
    Observed,
)
from searchgym.envs.search import SearchEnv
from searchgym.envs.team import WAIT, TeamSearchEnv
from envs_helpers import memo_free_copy


def reference_calculations(gen: CandidateGenerator, observed: Observed, tool: str, argument: str) -> list:
    clock = next((r.clock_year for r in reversed(observed.rounds) if r.clock_year), None)
    question = set(observed.question_names)
    ranked = []
    for age, rnd in enumerate(reversed(observed.rounds)):
        for fact in gen._round_numbers(rnd):
            named = gen.world.entities[fact.subject_id].display_name in question
            ranked.append((not named, age, not fact.current, fact))
    by_quantity: dict = {}
    for rank, (*_, fact) in enumerate(sorted(ranked, key=lambda r: r[:3])):
        values = by_quantity.setdefault(fact.predicate, [])
        if len(values) < MAX_NUMBERS_PER_QUANTITY and all(fact.value != v for _, v in values):
            values.append((rank, fact.value))
    scored = []
    for predicate, values in by_quantity.items():
        what = predicate.replace("_", " ")
        if predicate.endswith("year"):
            if clock is not None:
                scored += [(rank, gen._calculation(tool, argument, f"{clock} - {v}", f"current year minus {what}"))
                           for rank, v in values]
            continue
        for i, (rank_a, a) in enumerate(values):
            for rank_b, b in values[i + 1:]:
                rank = max(rank_a, rank_b)
                scored.append((rank, gen._calculation(tool, argument, f"{a} + {b}", f"sum of {what}")))
                scored.append((rank, gen._calculation(tool, argument, f"{max(a, b)} - {min(a, b)}",
                                                      f"difference of {what}")))
    return [action for _, action in sorted(scored, key=lambda pair: pair[0])]


def reference_older(gen: CandidateGenerator, observed: Observed):
    """(answers, groups, names, roles, about) of the rounds before the latest, read newest first."""
    answers, groups, names, roles, about = [], {}, [], {}, []
    question = set(observed.question_names)
    for rnd in reversed(observed.rounds[:-1]):
        actions, members = gen._round_answers(rnd)
        answers += actions
        about += [a for a in actions if a.provenance.partition(" | ")[0] in question]
        for key, subject in members:
            if subject not in groups.setdefault(key, []):
                groups[key].append(subject)
        names += [n for n in rnd.names[:MAX_NAMES_PER_ROUND] if n not in names]
        for value, role in gen._round_roles(rnd):
            roles.setdefault(value, role)
    return answers, groups, names, roles, about


def name_actions(names, allowed, where: str, roles=None) -> list:
    """Every name's look-ups in turn, built afresh (the generator merges memoised dicts)."""
    lookups, plain = tool_rules(frozenset(allowed))[0], f"name from the {where}"
    return [action for name in names
            for action in name_lookups(name, f"{plain} | {roles[name]}" if roles and name in roles else plain, lookups)]


def reference_list(gen: CandidateGenerator, observed: Observed, allowed, can_answer: bool, extra) -> list:
    allowed = frozenset(allowed)
    latest = observed.rounds[-1:]
    question = set(observed.question_names)
    answers, groups, names, roles, about = reference_older(gen, observed)
    listed = gen._list_answers(groups) if can_answer else []
    lookups, calculators, rules = tool_rules(allowed)
    latest_names = name_actions(gen._names(latest), allowed, "latest result", gen._name_roles(latest)) \
        if latest else []
    ranked = chain(
        extra, name_actions(observed.question_names, allowed, "question"),
        gen._answers(latest)[:MAX_LATEST_ANSWERS] if can_answer and latest else [],
        ([a for a in listed if a.provenance.partition(" | ")[0] in question] + about)[:MAX_QUESTION_ANSWERS]
        if can_answer else [],
        latest_names)
    name = observed.question_names[0] if observed.question_names else "the question"
    later = [
        lambda: [a for tool, argument in calculators
                 for a in reference_calculations(gen, observed, tool, argument)[:MAX_CALCULATIONS]],
        lambda: gen._fixed_actions(name, rules),
        lambda: listed + answers if can_answer else [],
        lambda: name_actions(names, allowed, "earlier result", roles),
    ]
    unique = dict.fromkeys(ranked)
    for tier in later:
        if len(unique) >= gen.max_candidates:
            break
        unique.update(dict.fromkeys(tier()))
    return list(islice(unique, gen.max_candidates))


def described(actions) -> list[str]:
    return [a.describe() for a in actions]


@pytest.mark.parametrize("make", [
    lambda: SearchEnv(action_mode="candidates", world_size="small", max_steps=10),
    lambda: TeamSearchEnv(roles="generalists", team_size=2, max_rounds=8, action_mode="candidates", world_size="small"),
    lambda: TeamSearchEnv(roles="roles", action_mode="candidates", world_size="small"),
])
def test_lists_equal_the_lists_built_the_way_before(make):
    env = make()
    team, single_agent = TeamRandom(seed=7), RandomAgent(seed=7)
    compared, long_records, filled = 0, 0, 0
    for episode in range(10):
        env.reset(seed=100 + episode)
        single = isinstance(env, SearchEnv)
        while True:
            agents = ["agent"] if single else list(env.agents)
            if not agents:
                break
            for agent in agents:
                session = env.session if single else env.sessions[agent]
                extra = [] if single else [*env.post_candidates(agent), WAIT]
                got = env.generator.generate(session.observed, session.allowed, session.can_answer, extra)
                fresh_gen = CandidateGenerator(env.world, env.config.max_candidates)
                expected = reference_list(fresh_gen, memo_free_copy(session.observed), session.allowed,
                                          session.can_answer, extra)
                assert described(got) == described(expected)
                compared += 1
                long_records += len(session.observed.rounds) >= 3
                filled += len(got) == env.config.max_candidates
            if single:
                _, _, terminated, truncated, _ = env.step(single_agent.choose_action(env.session))
                if terminated or truncated:
                    break
            else:
                env.step(team.choose_actions(env))
    assert compared > 40 and long_records > 10


def test_older_rounds_extended_one_at_a_time_equal_them_read_at_once():
    env = TeamSearchEnv(roles="generalists", team_size=2, max_rounds=8, action_mode="candidates", world_size="small")
    team = TeamRandom(seed=11)
    gen = env.generator
    checked = 0
    for episode in range(6):
        env.reset(seed=episode)
        while env.agents:
            env.step(team.choose_actions(env))
            for session in env.sessions.values():
                observed = session.observed
                older = gen._older(observed)
                answers, groups, names, roles, about = reference_older(gen, observed)
                assert list(older.answers) == list(dict.fromkeys(answers))
                assert older.groups == groups and list(older.groups) == list(groups)
                assert list(older.names) == names and older.roles == roles and older.about == about
                checked += bool(groups) and len(observed.rounds) >= 3
    assert checked > 5
    empty = OlderRounds(question=frozenset({"x"}))
    same = empty.prepend(Round(None, None), ([], []), [])
    assert same.groups is empty.groups and same.names is empty.names and same.answers is empty.answers


def test_calculation_tiers_keep_the_first_eight_of_the_full_ranking():
    env = SearchEnv(action_mode="candidates", world_size="small")
    gen = env.generator
    seen_full = 0
    for seed in range(30):
        env.reset(seed=seed)
        agent = RandomAgent(seed=seed)
        while True:
            observed = env.session.observed
            for tool, argument in tool_rules(frozenset(env.session.allowed))[1]:
                full = reference_calculations(gen, observed, tool, argument)
                tier = gen._calculations(observed, tool, argument)
                assert described(tier) == described(list(dict.fromkeys(full[:MAX_CALCULATIONS])))
                seen_full += len(full) > MAX_CALCULATIONS
                assert calculation_argument(tool) == argument
            _, _, terminated, truncated, _ = env.step(agent.choose_action(env.session))
            if terminated or truncated:
                break
    assert seen_full > 0



def test_a_ranked_list_read_at_two_cuts_gives_each_cut_its_own_texts():
    from searchgym.envs.session import candidate_text

    env = SearchEnv(action_mode="candidates", world_size="small")
    env.reset(seed=1)
    session = env.session
    ranked = env.generator.ranked(session.observed, session.allowed, session.can_answer)
    for limit in (300, 40, 300, 12):
        texts = ranked.texts(limit, candidate_text)
        assert list(texts) == [candidate_text(a, limit) for a in ranked.actions]
        assert max(len(t) for t in texts) <= limit
    assert ranked.texts(12, candidate_text) is ranked.texts(12, candidate_text)  # kept for the cut it was read at
