"""benchmarks/cw_weights.py: the per-kind table on a hand-built group."""

from __future__ import annotations

import pytest

from cw_weights import table

KINDS = ["web_search", "calculator", "answer"]


def test_table_of_a_success_and_a_failure(make_traj):
    # R = [1, 0] -> A = +-0.7071058; the success's lookup found gold (c = [1, 0] over the non-final rounds)
    group = [make_traj([0, 0, 1], contributions=[1, 0, 0], kinds=KINDS), make_traj([0, 0, 0], kinds=KINDS)]
    rows, _, stats = table([group])
    by_kind = {r["kind"]: r for r in rows}
    assert list(by_kind) == ["web_search", "calculator", "final:answer"]
    lookup, calc = by_kind["web_search"], by_kind["calculator"]
    # all, gamma 1: softmax([1, 0]) * 2 = [1.4621172, 0.5378828]; paper: c / sum c * 2 = [2, 0]; evidence: 1, 1
    assert (lookup["all_g1"], calc["all_g1"]) == pytest.approx((1.4621172, 0.5378828))
    assert (lookup["paper_inf"], calc["paper_inf"]) == pytest.approx((2.0, 0.0))
    assert (lookup["evid_g1"], calc["evid_g1"]) == pytest.approx((1.0, 1.0))
    assert lookup["c=1"] == 1.0 and calc["c=1"] == 0.0 and lookup["in_success"] == 1 and lookup["rounds"] == 2
    # mean advantage over both trajectories: GRPO (A - A) / 2 = 0; all: (1.0338715 - 0.7071058) / 2 = +-0.1633829
    assert calc["mean_grpo"] == pytest.approx(0.0, abs=1e-9)
    assert (lookup["mean_all_g1"], calc["mean_all_g1"]) == pytest.approx((0.1633829, -0.1633829), abs=1e-6)
    assert calc["mean_evid_g1"] == pytest.approx(0.0, abs=1e-9)
    assert by_kind["final:answer"]["all_g1"] == pytest.approx(1.0)
    assert stats["evid_g1"]["estimator/differs_from_grpo_mean"] == 0.0  # one evidence round: J A_i = A_i
