"""Policy features computed once per observation equal the per-candidate definitions, bit for bit.

For HopFeatures the reference below is the definition written candidate by candidate (each one
rescanning the steps and its provenance), as it was before the per-observation rewrite; for
LexicalOverlap it is its own per-candidate ``features``. The rewrites may only change speed."""

from __future__ import annotations

import numpy as np

from searchgym.agents.hop_features import LOOKUPS, HopFeatures, Transcript, _operands, _subjects, split_candidate
from searchgym.agents.lexical_overlap import LexicalOverlap
from searchgym.baselines.team_random import TeamRandom
from searchgym.envs.team import TeamSearchEnv


def reference_features(text: str, candidates: list[str]) -> np.ndarray:
    seen = Transcript(text)
    out = np.zeros((len(candidates), HopFeatures.n_features), dtype=np.float64)
    parts = [split_candidate(c) if c else ("", "", "") for c in candidates]
    question = seen.question
    positions = sorted({question.find(arg) for _, arg, _ in parts if arg and arg in question})
    subjects: dict[str, int] = {}
    for _, _, provenance in parts:
        for subject in _subjects(provenance):
            subjects[subject] = subjects.get(subject, 0) + 1
    looked: dict[str, set[str]] = {}
    for tool, arg in seen.steps:
        if tool in LOOKUPS:
            looked.setdefault(arg, set()).add(tool)
    looked_values = set()
    for kind, arg, provenance in parts:
        if kind == "answer" and provenance.split(" | ", 1)[0].strip() in looked:
            looked_values.update(_operands(arg))
    for j, (kind, arg, provenance) in enumerate(parts):
        if not candidates[j]:
            continue
        row = out[j]
        if arg and arg in question:
            first = question.find(arg) == positions[0]
            row[0], row[1] = float(first), float(not first)
        row[2] = float(seen.rank)
        tools = looked.get(arg, set()) if arg else set()
        row[3] = min(1.0, sum(1 for t, a in seen.steps if a == arg and t in LOOKUPS) / 2) if arg else 0.0
        row[4] = float(kind in LOOKUPS and bool(tools) and kind not in tools)
        if arg:
            row[5] = float(arg in seen.results)
            row[6] = float(arg in seen.latest)
            row[7] = float(arg in seen.notes)
            row[8] = float(subjects.get(arg, 0) > (1 if arg in _subjects(provenance) else 0))
        if kind == "answer":
            subject = provenance.split(" | ", 1)[0].strip()
            row[9] = float(bool(subject) and subject in looked)
        row[10] = min(1.0, len(seen.steps) / 8)
        if kind == "calculator":
            numbers = _operands(arg)
            row[11] = float(len(numbers) == 2 and numbers[0] >= numbers[1])
            if numbers:
                row[12] = sum(n in looked_values for n in numbers) / len(numbers)
    return out


def team_observations(episodes: int = 12) -> list[tuple[str, list[str]]]:
    """Every agent's observation of random-team episodes on the tiny world (8 rounds each)."""
    env = TeamSearchEnv(roles="generalists", team_size=2, max_rounds=8, world_size="tiny", action_mode="candidates")
    tasks = [t.id for t in env.tasks.tasks("train")]
    team, seen = TeamRandom(seed=3), []
    for i in range(episodes):
        obs, _ = env.reset(seed=i, options={"task_id": tasks[i % len(tasks)]})
        while env.agents:
            seen += [(obs[a]["text"], [str(c) for c in obs[a]["candidates"]]) for a in env.agents]
            obs = env.step(team.choose_actions(env))[0]
    return seen


def test_features_equal_the_per_candidate_definition_on_real_observations():
    observations = team_observations()
    assert len(observations) > 50 and any(len(Transcript(t).steps) >= 3 for t, _ in observations)
    features = HopFeatures()
    for text, candidates in observations:
        got, want = features.observation_features(text, candidates), reference_features(text, candidates)
        assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


def test_features_of_an_observation_with_repeated_lookups_and_shared_names_equal_the_definition():
    text = ("You are generalist_0 in a team of 2: ...\n"
            "Question: Which is older: Alpha Corp or Beta Works?\n"
            'Step 1: knowledge_base(entity="Alpha Corp")\nAlpha Corp (company)\n- founded: 1990\n'
            'Step 2: web_search(query="Alpha Corp")\n[1] Alpha Corp was founded in 1990 by Beta Works.\n'
            'Step 3: knowledge_base(entity="Alpha Corp")\nAlpha Corp (company)\n'
            "[round 2] generalist_1: Beta Works | founded | 1985\n")
    candidates = ['knowledge_base(entity="Alpha Corp")  <- name from the question',
                  'web_search(query="Alpha Corp")  <- name from the question',
                  'knowledge_base(entity="Beta Works")  <- name from the question | founder of Alpha Corp',
                  'web_search(query="Beta Works")  <- name from the latest result',
                  'answer("1990")  <- Alpha Corp | founded | a number | via knowledge_base',
                  'answer("1985")  <- Beta Works | founded | a number | via a note',
                  'calculator(expression="1990 - 1985")  <- difference of founded',
                  'calculator(expression="1985 - 1990")  <- difference of founded', "", ""]
    got = HopFeatures().observation_features(text, candidates)
    assert got.tobytes() == reference_features(text, candidates).tobytes()
    assert got[0, 3] == 1.0 and got[2, 7] == 1.0 and got[6, 12] == 0.5  # looked up twice; in the notes; 1990 listed


def test_lexical_overlap_per_observation_equals_its_per_candidate_features_on_real_observations():
    observations = team_observations()
    batched, single = LexicalOverlap(), LexicalOverlap()
    for text, candidates in observations:
        got = batched.observation_features(text, candidates)
        want = np.array([single.features(text, c) for c in candidates], dtype=np.float64)
        assert got.shape == want.shape and got.tobytes() == want.tobytes()
    assert any(row[6] == 1.0 for text, cands in observations for row in batched.observation_features(text, cands))


def reference_facts_about(candidates: list[str]) -> np.ndarray:
    """[j, k]: candidate k (k != j) states a fact about candidate j's name, pair by pair."""
    parts = [split_candidate(c) if c else ("", "", "") for c in candidates]
    out = np.zeros((len(candidates), len(candidates)), dtype=bool)
    for j, (_, arg, _) in enumerate(parts):
        for k, (_, _, provenance) in enumerate(parts):
            out[j, k] = bool(arg) and k != j and arg in _subjects(provenance)
    return out


def test_facts_about_equals_the_pairwise_definition_on_real_observations():
    observations = team_observations()
    features = HopFeatures()
    stated = 0
    for _, candidates in observations:
        got, want = features.facts_about(candidates), reference_facts_about(candidates)
        assert got.dtype == want.dtype and np.array_equal(got, want)
        stated += int(want.sum())
    assert stated > 20  # the episodes list facts about names that are also look-up candidates


def test_facts_about_never_counts_a_candidate_stating_a_fact_about_its_own_name():
    candidates = ['knowledge_base(entity="Alpha Corp")  <- name from the latest result | founder of Alpha Corp',
                  'answer("1990")  <- Alpha Corp | founded | a number | via knowledge_base',
                  'web_search(query="Alpha Corp")  <- name from the question', ""]
    got = HopFeatures().facts_about(candidates)
    assert np.array_equal(got, reference_facts_about(candidates))
    assert got[0].tolist() == [False, True, False, False] and got[2].tolist() == [True, True, False, False]
