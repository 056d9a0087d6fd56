"""Hot-path shortcuts that must not change a draw or a verdict: the candidate shuffle draws what
``rng.permutation`` draws, masks are fresh arrays, and the judge's memoised readings of answers and
expressions give the plain helpers' values."""

from __future__ import annotations

import numpy as np

from searchgym.envs.session import prefix_mask
from searchgym.judge import _numbers_of, _phrases
from searchgym.scoring import find_numbers, normalize_answer, split_list


def test_shuffling_a_list_of_indices_draws_what_permutation_draws():
    for seed in range(50):
        by_permutation, by_shuffle = np.random.default_rng(seed), np.random.default_rng(seed)
        for n in (0, 1, 2, 7, 30, 48, 0, 48):
            order = list(range(n))
            by_shuffle.shuffle(order)
            assert order == by_permutation.permutation(n).tolist()
        assert by_shuffle.random() == by_permutation.random()  # the generators stay in step


def test_prefix_masks_are_fresh_arrays():
    mask = prefix_mask(48, 5)
    assert mask.dtype == np.int8 and mask.tolist() == [1] * 5 + [0] * 43
    mask[:] = 0
    assert prefix_mask(48, 5).sum() == 5 and prefix_mask(48, 5) is not prefix_mask(48, 5)


def test_memoised_answer_readings_equal_the_plain_helpers():
    for text in ("3.4 million", "about 1,200 people", "Mara Quell, Ode Vance and  ", "The Vexa; -", "12%"):
        assert _numbers_of(text, True) == tuple(find_numbers(text))
        assert _numbers_of(text, False) == tuple(find_numbers(text, scaled=False))
        for is_list in (False, True):
            parts, needles = _phrases(text, is_list)
            assert list(parts) == (split_list(text) if is_list else [text])
            expected = (f" {normalize_answer(p)} " if normalize_answer(p) else None for p in parts)
            assert needles == tuple(expected)
