"""Bootstrap intervals and the paired sign-flip test, against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

from searchgym.harness.stats import bootstrap_ci, paired_permutation_test


def test_bootstrap_of_a_constant_is_the_constant():
    ci = bootstrap_ci(np.ones((3, 10)), rng=0)
    assert (ci.mean, ci.low, ci.high) == (1.0, 1.0, 1.0)


def test_bootstrap_mean_and_width():
    values = np.array([[1, 0] * 50])  # 100 tasks, success 0.5: a 95% interval is about +-0.1
    ci = bootstrap_ci(values, resamples=4000, rng=1)
    assert ci.mean == 0.5
    assert 0.38 < ci.low < 0.42 and 0.58 < ci.high < 0.62
    assert ci.format() == f"0.50 [{ci.low:.2f}, {ci.high:.2f}]"


def test_seed_spread_widens_the_interval():
    tasks_only = bootstrap_ci(np.array([[1, 0] * 20, [1, 0] * 20]), rng=2)
    spread = bootstrap_ci(np.array([[1] * 40, [0] * 40]), rng=2)  # seeds disagree completely
    assert tasks_only.mean == spread.mean == 0.5
    assert (spread.high - spread.low) > (tasks_only.high - tasks_only.low)


def test_bootstrap_rejects_empty_input():
    with pytest.raises(ValueError, match="non-empty"):
        bootstrap_ci(np.zeros((0, 3)))


def test_exact_sign_flip_p_value_by_hand():
    # diffs (1, 1, 1): of the 8 sign patterns only +++ and --- reach |mean| = 1 -> p = 2/8
    test = paired_permutation_test([1, 1, 1], [0, 0, 0])
    assert test.exact and test.p_value == 0.25 and test.mean_difference == 1.0 and test.n_tasks == 3
    # diffs (1, -1, 0, 0): observed mean 0, every pattern reaches it -> p = 1
    assert paired_permutation_test([1, 0, 0, 1], [0, 1, 0, 1]).p_value == 1.0
    # identical -> p = 1
    assert paired_permutation_test([0.5, 1], [0.5, 1]).p_value == 1.0


def test_monte_carlo_sign_flip_on_a_clear_difference():
    a = np.ones(60)
    b = np.r_[np.zeros(50), np.ones(10)]
    test = paired_permutation_test(a, b, resamples=5000, rng=3)
    assert not test.exact and test.p_value == pytest.approx(1 / 5001)
    with pytest.raises(ValueError, match="one length"):
        paired_permutation_test([1, 0], [1])
