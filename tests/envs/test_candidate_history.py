"""Candidate lists found again by history (searchgym.candidate_history) equal lists built afresh:
for the records the env played, for records that differ from them in one thing a list depends
on (so a key that forgot it would hand back the other record's list), and for extra candidates
that differ only in provenance."""

from __future__ import annotations

from dataclasses import replace

import pytest
from searchgym.baselines.team_random import TeamRandom

from searchgym import candidate_history
from searchgym.action_types import Action
from searchgym.candidates import CandidateGenerator, Observed
from searchgym.envs.search import SearchEnv
from searchgym.envs.session import candidate_text
from searchgym.envs.team import TeamSearchEnv
from envs_helpers import memo_free_copy, team_four_rounds_in


def described(actions) -> list[str]:
    return [a.describe() for a in actions]


def variants(observed: Observed) -> list[Observed]:
    """Records one thing away from ``observed``: each field a list depends on, changed."""
    last = len(observed.rounds) - 1
    if last < 0:
        return [Observed(observed.question_names[::-1] or ("Nobody",), [])]
    return [
        memo_free_copy(observed, lambda i, r: replace(r, clock_year=None if r.clock_year else 2011)),
        memo_free_copy(observed, lambda i, r: replace(r, names=r.names[1:] or ("Vexa Corp",)) if i == last else r),
        memo_free_copy(observed, lambda i, r: replace(r, fact_ids=r.fact_ids[:-1]) if i == last else r),
        memo_free_copy(observed, lambda i, r: replace(r, calculator_value="7") if i == last else r),
        memo_free_copy(observed, lambda i, r: replace(r, action=Action.call("knowledge_base", entity="x")) if i == last else r),
        Observed(observed.question_names[1:] + ("Vexa Corp",), memo_free_copy(observed).rounds),
    ]


@pytest.mark.parametrize("make", [
    lambda: SearchEnv(action_mode="candidates", world_size="small"),
    lambda: TeamSearchEnv(roles="generalists", team_size=2, max_rounds=8, action_mode="candidates", world_size="small"),
])
def test_lists_found_again_equal_fresh_ones_also_one_change_away(make):
    env = make()
    team = TeamRandom(seed=3)
    generator = env.generator
    compared, differing = 0, 0
    for episode in range(8):
        env.reset(seed=episode % 4)  # each seed twice: the second time every history recurs
        sessions = [env.session] if isinstance(env, SearchEnv) else None
        done = False
        while not done:
            for session in sessions or list(env.sessions.values()):
                extra = env.post_candidates(next(a for a, s in env.sessions.items() if s is session)) \
                    if sessions is None else []
                shared = generator.generate(session.observed, session.allowed, session.can_answer, extra)
                fresh = CandidateGenerator(env.world, env.config.max_candidates).generate(
                    memo_free_copy(session.observed), session.allowed, session.can_answer, extra)
                assert described(shared) == described(fresh)
                for other in variants(session.observed):
                    alone = CandidateGenerator(env.world, env.config.max_candidates).generate(
                        memo_free_copy(other), session.allowed, session.can_answer, extra)
                    assert described(generator.generate(other, session.allowed, session.can_answer, extra)) \
                        == described(alone)
                    differing += described(alone) != described(fresh)
                    compared += 1
            if sessions:
                _, _, terminated, truncated, _ = env.step(int(team.rng.choice(len(env.session.candidates))))
                done = terminated or truncated
            else:
                env.step(team.choose_actions(env))
                done = not env.agents
    assert compared > 150 and differing > compared // 3  # the variants would expose a key that forgot a field


def test_a_list_keeps_the_provenance_of_its_extra_candidates():
    env = TeamSearchEnv(roles="generalists", team_size=2, action_mode="candidates", world_size="small")
    env.reset(seed=0)
    session = env.sessions["generalist_0"]
    first = Action.post("Vexa Corp makes Zorbs.", "share a line of your web_search result")
    second = first.with_provenance("share a line of your knowledge_base result")
    for extra in ([first], [second], [first]):
        listed = env.generator.generate(session.observed, session.allowed, session.can_answer, extra)
        assert listed[0].describe() == extra[0].describe()
    as_list = env.generator.generate(session.observed, list(session.allowed), session.can_answer, [second])
    assert described(as_list) == described(env.generator.generate(session.observed, session.allowed,
                                                                  session.can_answer, [second]))


def test_a_history_memo_follows_a_record_cut_replaced_or_of_another_question():
    env = team_four_rounds_in()
    session = env.sessions["generalist_0"]
    fresh = CandidateGenerator(env.world, env.config.max_candidates)
    last = len(session.observed.rounds) - 1
    cut = memo_free_copy(session.observed)
    cut.rounds = cut.rounds[:-1]
    replaced = memo_free_copy(session.observed, lambda i, r: replace(r, names=r.names[1:] or ("Vexa Corp",)) if i == last else r)
    asked = Observed(("Vexa Corp",), list(session.observed.rounds))  # the same rounds, another question
    for other in (cut, replaced, asked):
        env.generator.generate(session.observed, session.allowed)  # the memo now holds this record's list
        other.derived = session.observed.derived  # another record with that memo: detected, rebuilt
        assert described(env.generator.generate(other, session.allowed)) == \
            described(fresh.generate(memo_free_copy(other), session.allowed))
        session.observed.derived = {}


def test_the_trie_starts_over_past_its_limit_and_lists_stay_the_same(monkeypatch):
    monkeypatch.setattr(candidate_history, "HISTORY_LIMIT", 5)
    env = SearchEnv(action_mode="candidates", world_size="small")
    tries, seen = set(), 0
    for seed in range(6):
        env.reset(seed=seed)
        done = False
        while not done:
            tries.add(id(env.generator._histories))
            assert env.generator._histories.nodes <= 5 + 1 + len(env.session.observed.rounds)
            fresh = CandidateGenerator(env.world, env.config.max_candidates).generate(
                memo_free_copy(env.session.observed), env.session.allowed)
            assert described(sorted(env.session.candidates, key=fresh.index)) == described(fresh)
            _, _, terminated, truncated, _ = env.step(0)
            done, seen = terminated or truncated, seen + 1
    assert len(tries) > 1 and seen > 10


def test_candidate_texts_come_from_the_ranked_list_or_from_candidates_set_by_hand():
    env = SearchEnv(action_mode="candidates", world_size="small")
    obs, _ = env.reset(seed=2)
    session = env.session
    limit = session.config.max_candidate_chars
    assert list(obs["candidates"][:len(session.candidates)]) == [candidate_text(a, limit) for a in session.candidates]
    session.candidates = [Action.answer("Mara Quell", "set by hand")]
    shown = session.candidate_observation()["candidates"]
    assert shown[0] == candidate_text(session.candidates[0], limit) and set(shown[1:]) == {""}


def test_envs_of_one_world_share_a_generator_and_post_memos_that_clear_memos_empties():
    from searchgym.candidates import clear_memos
    from searchgym.envs.team_posts import clear_post_memos

    single = SearchEnv(action_mode="candidates", world_size="small")
    team = TeamSearchEnv(roles="roles", action_mode="candidates", world_size="small")
    other = SearchEnv(action_mode="candidates", world_size="small", max_candidates=12)
    assert single.generator is team.generator and other.generator is not single.generator
    assert team._lines_memo is TeamSearchEnv(roles="generalists", action_mode="candidates", world_size="small")._lines_memo
    team.reset(seed=0)
    team.step(TeamRandom(seed=0).choose_actions(team))
    assert team.generator._memo and team.generator._histories.nodes and team._lines_memo
    clear_memos()
    clear_post_memos()
    assert not team.generator._memo and not team.generator._histories.nodes and not team._lines_memo


def test_two_team_envs_stepped_in_turn_on_a_shared_generator_play_as_each_alone():
    def make():
        return TeamSearchEnv(roles="generalists", team_size=2, max_rounds=8, action_mode="candidates",
                             world_size="small")

    def trajectories(envs, seeds):
        teams = [TeamRandom(seed=s) for s in seeds]
        seen = [[] for _ in envs]
        for env, seed in zip(envs, seeds):
            observations, _ = env.reset(seed=seed)
        while any(env.agents for env in envs):
            for i, (env, team) in enumerate(zip(envs, teams)):
                if env.agents:
                    observations, rewards, *_ = env.step(team.choose_actions(env))
                    seen[i].append(([o["candidates"] for o in observations.values()], rewards))
        return seen

    from searchgym.candidates import clear_memos

    clear_memos()
    alone = [trajectories([make()], [seed])[0] for seed in (4, 9)]
    clear_memos()
    together = trajectories([make(), make()], [4, 9])
    assert together == alone and sum(map(len, alone)) > 6


def test_answers_about_the_question_from_older_rounds_rank_as_built_afresh():
    """Answers whose subject the question names come early even from rounds long past (kept on
    the record's older rounds), and a record of another question is not given them."""
    env = SearchEnv(action_mode="candidates", world_size="small")
    env.reset(seed=0)
    session = env.session
    fact = next(f for f in env.world.facts.values() if f.object_id is not None)
    subject = env.world.entities[fact.subject_id].display_name
    other = env.world.entities[fact.object_id].display_name
    calls = [Action.call("knowledge_base", entity=subject), Action.call("web_search", query=other),
             Action.call("knowledge_base", entity=other), Action.call("current_time")]
    for asked in ((subject,), (other,), (subject, other)):
        observed, fresh = Observed(asked), CandidateGenerator(env.world, env.config.max_candidates)
        for action in calls:
            result, _ = session.execute(action)
            observed.record(env.world, action, result)
            shared = env.generator.generate(observed, session.allowed)
            assert described(shared) == described(fresh.generate(memo_free_copy(observed), session.allowed))
        about = [a for a in shared[:12] if a.kind == "answer" and a.provenance.startswith(f"{asked[0]} |")]
        assert about, asked  # answers about the question from three rounds back are near the top
        renamed = Observed(asked[::-1] if len(asked) > 1 else (other if asked == (subject,) else subject,),
                           observed.rounds)
        renamed.derived = observed.derived
        assert described(env.generator.generate(renamed, session.allowed)) == \
            described(fresh.generate(memo_free_copy(renamed), session.allowed))
