"""Each calibration flag: on vs off changes exactly what it should, by hand-computed amounts."""

from __future__ import annotations

import numpy as np
import pytest
from searchgym.agents import (
    AdvantageConfig,
    CalibrationConfig,
    Calibrator,
    RunningMeanStd,
    compute_advantages,
)


@pytest.fixture
def result(make_traj):
    # dr_grpo on R = [3, 1] and [6, 2]: advantages [1, -1] and [2, -2]; returns are reward-to-go
    groups = [[make_traj([1.0, 2.0]), make_traj([1.0])], [make_traj([6.0]), make_traj([2.0])]]
    return compute_advantages("dr_grpo", groups, AdvantageConfig(gamma=1.0))


def test_all_off_is_identity(result):
    out, stats = Calibrator(CalibrationConfig(count_zero_variance=False)).apply(result)
    np.testing.assert_array_equal(out.flat_advantages(), result.flat_advantages())
    np.testing.assert_array_equal(out.flat_returns(), result.flat_returns())
    assert not any(k.startswith("calib/zero_variance") for k in stats)
    assert [len(a) for a in out.advantages] == [2, 1, 1, 1]


def test_zero_variance_counting_flag(make_traj):
    groups = [[make_traj([1.0]), make_traj([1.0])], [make_traj([1.0]), make_traj([0.0])]]
    res = compute_advantages("grpo", groups)
    _, on = Calibrator(CalibrationConfig(count_zero_variance=True)).apply(res)
    assert on["calib/zero_variance_groups"] == 1 and on["calib/zero_variance_fraction"] == 0.5


def test_batch_standardisation(result):
    # flat advantages [1, 1, -1, 2, -2]: mean 0.2, std sqrt(mean([0.64,0.64,1.44,3.24,4.84])) = sqrt(2.16)
    out, stats = Calibrator(CalibrationConfig(batch_standardize=True)).apply(result)
    expected = (np.array([1, 1, -1, 2, -2]) - 0.2) / (np.sqrt(2.16) + 1e-8)
    np.testing.assert_allclose(out.flat_advantages(), expected)
    np.testing.assert_array_equal(out.flat_returns(), result.flat_returns())  # returns untouched
    assert stats["calib/standardize_mean"] == pytest.approx(0.2)


def test_symmetric_clip(result):
    # c = 1.5: [1, 1, -1, 2, -2] -> [1, 1, -1, 1.5, -1.5]; 2 of 5 clipped
    out, stats = Calibrator(CalibrationConfig(adv_clip=1.5)).apply(result)
    np.testing.assert_allclose(out.flat_advantages(), [1, 1, -1, 1.5, -1.5])
    np.testing.assert_array_equal(out.flat_returns(), result.flat_returns())
    assert stats["calib/adv_clip_fraction"] == pytest.approx(0.4)
    with pytest.raises(ValueError, match="adv_clip"):
        Calibrator(CalibrationConfig(adv_clip=0.0))


def test_return_normalisation_changes_only_returns(result):
    # returns (reward-to-go) [3, 2, 1, 6, 2]: mean 2.8, var mean([0.04,0.64,3.24,10.24,0.64]) = 2.96
    calib = Calibrator(CalibrationConfig(normalize_returns=True))
    out, stats = calib.apply(result)
    np.testing.assert_array_equal(out.flat_advantages(), result.flat_advantages())
    np.testing.assert_allclose(
        out.flat_returns(), (np.array([3, 2, 1, 6, 2]) - 2.8) / np.sqrt(2.96), atol=1e-3
    )
    np.testing.assert_allclose(calib.denormalize_values(out.flat_returns()), [3, 2, 1, 6, 2], atol=1e-9)
    assert stats["calib/return_mean"] == pytest.approx(2.8, abs=1e-3)
    # off: denormalize is the identity
    assert Calibrator().denormalize_values(np.array([5.0]))[0] == 5.0


def test_running_mean_std_merges_batches():
    # [0, 0] then [2, 2]: all four values -> mean 1, var 1 (up to the 1e-4 prior count)
    rms = RunningMeanStd()
    rms.update(np.array([0.0, 0.0]))
    rms.update(np.array([2.0, 2.0]))
    assert rms.mean == pytest.approx(1.0, abs=1e-3)
    assert rms.var == pytest.approx(1.0, abs=1e-3)


def test_learnable_baseline_offsets_and_moves_towards_mean(result):
    # fixture advantages [1, 1, -1, 2, -2]: mean 0.2
    calib = Calibrator(CalibrationConfig(learnable_baseline=True, baseline_lr=0.1))
    out, stats = calib.apply(result)
    # first call: b = 0 -> advantages unchanged; then b <- 0 + 2*0.1*(0.2 - 0) = 0.04
    np.testing.assert_allclose(out.flat_advantages(), result.flat_advantages())
    assert stats["calib/baseline_b"] == 0.0
    assert calib.baseline.value == pytest.approx(0.04)
    out, _ = calib.apply(result)
    np.testing.assert_allclose(out.flat_advantages(), result.flat_advantages() - 0.04, atol=1e-7)
    # b <- 0.04 + 0.2*(0.2 - 0.04) = 0.072 ; after many batches b -> mean(A) = 0.2
    assert calib.baseline.value == pytest.approx(0.072)
    for _ in range(60):
        calib.apply(result)
    assert calib.baseline.value == pytest.approx(0.2, abs=1e-4)
    np.testing.assert_array_equal(out.flat_returns(), result.flat_returns())  # returns untouched


def test_flags_apply_in_documented_order(result):
    # standardise then clip: the clip bound holds on the standardised values
    out, _ = Calibrator(CalibrationConfig(batch_standardize=True, adv_clip=1.0)).apply(result)
    expected = np.clip((np.array([1, 1, -1, 2, -2]) - 0.2) / np.sqrt(2.16), -1, 1)
    np.testing.assert_allclose(out.flat_advantages(), expected, atol=1e-7)
