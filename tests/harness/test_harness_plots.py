"""Curves from metrics rows: resumed steps, mean and band over seeds."""

from __future__ import annotations

import numpy as np

from searchgym.harness.plots import curve_from_rows, mean_band, plot_learning_curves


def test_curve_keeps_the_last_row_of_a_step_and_skips_other_rows():
    rows = [{"step": 10, "dev_success": 0.1}, {"step": 20, "dev_success": 0.2}, {"loss": 3.0},
            {"step": 20, "dev_success": 0.3, "attempt": 2}, {"step": 30, "dev_success": True}]
    assert curve_from_rows(rows) == [(10, 0.1), (20, 0.3)]


def test_mean_band_over_seeds():
    steps, mean, half = mean_band([[(10, 0.2), (20, 0.4)], [(10, 0.4), (20, 0.8)], [(10, 0.6)]])
    assert steps.tolist() == [10, 20]
    assert np.allclose(mean, [0.4, 0.6])
    assert np.isclose(half[0], 1.96 * 0.2 / np.sqrt(3))  # std (ddof=1) of 0.2, 0.4, 0.6 is 0.2
    assert np.isclose(half[1], 1.96 * np.std([0.4, 0.8], ddof=1) / np.sqrt(2))


def test_plot_writes_a_png(tmp_path):
    path = plot_learning_curves({"a": [[(0, 0.1), (10, 0.5)]]}, {"oracle": 1.0}, tmp_path / "c.png")
    assert path.read_bytes()[:4] == b"\x89PNG"
