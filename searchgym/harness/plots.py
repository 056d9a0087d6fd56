"""Learning curves (dev success vs training step) with matplotlib's Agg backend (no display).

A curve is the mean over seeds at each logged step, with a band of +-1.96 standard errors
where at least two seeds logged that step. Methods that do not learn (no curve rows) are
drawn as dashed horizontal lines at their final dev success. Matplotlib gets a writable folder for
its config and font cache before it is imported (:mod:`searchgym.harness.matplotlib_folder`).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import numpy as np

from searchgym.fileio import atomic_write_bytes
from searchgym.harness.matplotlib_folder import give_matplotlib_a_writable_folder

Series = Sequence[tuple[int, float]]  # (step, dev_success) of one seed


def curve_from_rows(rows: Sequence[Mapping], key: str = "dev_success") -> list[tuple[int, float]]:
    """(step, value) pairs from metrics rows; the last row for a step wins (resumed runs)."""
    points: dict[int, float] = {}
    for row in rows:
        step, value = row.get("step"), row.get(key)
        if isinstance(step, (int, float)) and isinstance(value, (int, float)) and not isinstance(value, bool):
            points[int(step)] = float(value)
    return sorted(points.items())


def mean_band(series: Sequence[Series]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Steps, mean and half-width of the band over seeds (NaN half-width with one seed)."""
    by_step: dict[int, list[float]] = {}
    for s in series:
        for step, value in s:
            by_step.setdefault(int(step), []).append(float(value))
    steps = np.array(sorted(by_step), dtype=float)
    mean = np.array([np.mean(by_step[int(s)]) for s in steps])
    half = np.array([1.96 * np.std(by_step[int(s)], ddof=1) / np.sqrt(len(by_step[int(s)]))
                     if len(by_step[int(s)]) > 1 else np.nan for s in steps])
    return steps, mean, half


def _figure():
    if "matplotlib" not in sys.modules:  # its folders are chosen once, as it is imported
        give_matplotlib_a_writable_folder()
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def plot_learning_curves(curves: Mapping[str, Sequence[Series]], flat: Mapping[str, float], path: Path | str,
                         title: str = "", labels: Sequence[str] | None = None, ylabel: str = "dev success",
                         ylim: tuple[float, float] | None = (-0.02, 1.02),
                         privileged: Collection[str] = ()) -> Path:
    """One PNG: a line (and band) per learning method, a dashed line per non-learning method
    (a ``privileged`` one, the oracle, is labelled so in the legend).
    ``labels`` fixes each method's colour (its position there), so every plot of a comparison
    draws a method in the same colour. ``ylabel``/``ylim`` for another logged quantity (entropy:
    ``ylim=None`` scales to the data and bands are not clipped to [0, 1])."""
    plt = _figure()
    fig, ax = plt.subplots(figsize=(7.5, 4.5), dpi=110)
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    order = list(labels) if labels is not None else [*sorted(curves), *sorted(flat)]
    order += [k for k in [*sorted(curves), *sorted(flat)] if k not in order]
    colors = {label: cycle[i % len(cycle)] for i, label in enumerate(order)}
    for label, series in sorted(curves.items()):
        steps, mean, half = mean_band([s for s in series if s])
        if steps.size == 0:
            continue
        color = colors[label]
        ax.plot(steps, mean, marker="o", markersize=3, color=color, label=f"{label} (n={len(series)})")
        if np.isfinite(half).any():
            low, high = (mean - half, mean + half) if ylim is None else (np.clip(mean - half, 0, 1),
                                                                          np.clip(mean + half, 0, 1))
            ax.fill_between(steps, low, high, color=color, alpha=0.2, linewidth=0)
    for label, value in sorted(flat.items()):
        ax.axhline(value, linestyle="--", linewidth=1, color=colors[label],
                   label=f"{label} ({'privileged, ' if label in privileged else ''}no training)")
    ax.set_xlabel("training step (env steps)")
    ax.set_ylabel(ylabel)
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.grid(alpha=0.3)
    ax.set_title(title)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return atomic_write_bytes(path, buffer.getvalue())
