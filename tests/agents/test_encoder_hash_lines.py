"""HashEncoder hashes a new text line by line from memoised lines (LineHasher): the ids, their
order and so every embedding are bit for bit those of ``hashed_ngrams`` on the whole text."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from searchgym.agents.encoder_hash import HashEncoder, LineHasher, hashed_ngrams

TRICKY = [
    "", "\n", "\n\n\n", "   \n\t\n", "Vexa Corp", "Vexa Corp\nMara Quell founded it in 1962.",
    "Who founded\n\nVexa-Corp?\nIn 2019, ΟΔΟΣ\nΣ was 3,400.", "ΑΣ\nΑ", "word\r\nWord\rWORD",
    "İstanbul\nKelvin \u212a and long \u017fs\nIn\nin-house In-house", "a\n\nb", "\nStep 1: x\n- revenue: 1110\n",
    "tail line without newline\nhead", "ǅemal ǆ\nß STRASSE", "x_y __init__ 2_000\n_lead_",
]


def random_texts(count: int, seed: int) -> list[str]:
    """Texts from an alphabet of line breaks, spaces, cased and uncased letters, digits and
    characters whose lower-casing is context-sensitive or changes length."""
    rng = np.random.default_rng(seed)
    alphabet = list("aAbBzZ019 \n\n-_.,ΣσςΑİıſ\u212a\u0301'\r\t") + ["In ", "The ", "Who ", "Vexa ", "\n\n"]
    return ["".join(rng.choice(alphabet, size=int(rng.integers(0, 60)))) for _ in range(count)]


@pytest.mark.parametrize("drop_names", [True, False])
def test_line_hasher_gives_the_whole_texts_ids_in_order(drop_names):
    hasher = LineHasher(2**14, drop_names)
    texts = TRICKY + random_texts(400, seed=7)
    for text in texts + texts[::-1]:  # the second pass reads every line from the memo
        assert hasher.ids(text) == hashed_ngrams(text, 2**14, drop_names), repr(text)


def test_line_hasher_on_real_observations_and_candidates():
    from searchgym.baselines.team_random import TeamRandom

    from searchgym.envs.team import TeamSearchEnv

    env = TeamSearchEnv(roles="generalists", team_size=2, action_mode="candidates", world_size="small")
    team, hasher, seen = TeamRandom(seed=0), LineHasher(1000, True, cache_size=50), 0
    for seed in range(4):
        observations, _ = env.reset(seed=seed)
        while env.agents:
            for obs in observations.values():
                for text in (obs["text"], *obs["candidates"]):
                    assert hasher.ids(text) == hashed_ngrams(text, 1000, True)
                    seen += text.count("\n")
            observations, *_ = env.step(team.choose_actions(env))
    assert seen > 200  # multi-line transcripts, through a memo small enough to evict


def test_an_encoder_embeds_exactly_as_from_whole_text_ids():
    encoder = HashEncoder(dim=8, n_buckets=512)
    texts = TRICKY + random_texts(50, seed=3)
    flat, offsets = [], []
    for text in texts:
        offsets.append(len(flat))
        flat.extend(hashed_ngrams(text, 512, True))
    expected = encoder.bag(torch.tensor(flat, dtype=torch.long), torch.tensor(offsets, dtype=torch.long))
    assert torch.equal(encoder(texts), expected)
    assert torch.equal(encoder(texts), expected)  # from the per-text cache too
