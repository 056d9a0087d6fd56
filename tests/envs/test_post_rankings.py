"""Post options found again in the world's shared memo (episodes that replay a round, other envs
of the world) equal the ranking built afresh by the code before the memo (kept below): the memo
key holds everything the ranking reads."""

from __future__ import annotations

from searchgym.baselines.team_random import TeamRandom

from searchgym.envs.blackboard import MAX_POST_CANDIDATES, padded
from searchgym.envs.team import TeamSearchEnv


def ranked_before(env: TeamSearchEnv, agent: str) -> list[tuple[str, object]]:
    rnd = env.latest_tool_round(agent)
    lines = env._lines(agent) if rnd is not None else []
    if not lines:
        return []
    on_board = env.blackboard.evidence_ids | env.blackboard.calculator_values
    known = {*env.sessions[agent].observed.question_names, *(n for note in env.blackboard.notes for n in note.names),
             *(str(v) for v in rnd.action.args.values())}
    known_padded = [p for p in map(padded, known) if p.strip()]
    scored, offered = [], set()
    for order, (line, ev, carried, haystack, words) in enumerate(lines):
        if not carried - on_board or carried in offered:
            continue
        offered.add(carried)
        topical = any(n in haystack for n in known_padded)
        scored.append((not topical, -len(words & env._question_words), order, line, ev))
    provenance = f"share a line of your {rnd.action.tool} result"
    return [(f'post("{line}")  <- {provenance}', ev)
            for *_, line, ev in sorted(scored, key=lambda s: s[:3])[:MAX_POST_CANDIDATES]]


def test_post_options_from_the_shared_memo_equal_the_ranking_before():
    envs = [TeamSearchEnv(roles="generalists", team_size=2, max_rounds=8, action_mode="candidates", world_size="small")
            for _ in range(2)]
    assert envs[0]._post_memo is envs[1]._post_memo
    compared, replayed = 0, 0
    for episode in range(16):
        env = envs[episode % 2]
        env.reset(seed=episode // 2)  # each seed on both envs: the second meets the first's rankings
        team = TeamRandom(seed=episode // 2)
        while env.agents:
            for agent in env.agents:
                got = [(a.describe(), ev) for a, ev in env.post_options(agent)]
                assert got == ranked_before(env, agent)
                compared += len(got)
                replayed += bool(got) and episode % 2 == 1
            env.step(team.choose_actions(env))
    assert compared > 50 and replayed > 5


def test_a_note_that_names_a_line_but_carries_nothing_reorders_the_options():
    """The same lines and board evidence, told apart only by the names the notes give."""
    from searchgym.envs.blackboard import Note

    env = TeamSearchEnv(roles="generalists", team_size=2, max_rounds=8, action_mode="candidates", world_size="small")
    team, changed = TeamRandom(seed=1), 0
    for seed in range(12):
        env.reset(seed=seed)
        while env.agents and not changed:
            for agent in env.agents:
                lines = env._lines(agent) if env.latest_tool_round(agent) is not None else []
                if len(env.post_options(agent)) < 2:
                    continue
                before = [a.describe() for a, _ in env.post_options(agent)]
                words = [w for line, *_ in lines for w in line.split() if w[:1].isupper() and len(w) > 3]
                for name in dict.fromkeys(w.strip(".,;:") for w in reversed(words)):
                    env.blackboard.notes.append(Note(env.round, "someone", name, names=(name,)))
                    env._options_cache.clear()
                    got = [(a.describe(), ev) for a, ev in env.post_options(agent)]
                    assert got == ranked_before(env, agent)
                    changed += [text for text, _ in got] != before
            env.step(team.choose_actions(env))
        if changed:
            break
    assert changed
