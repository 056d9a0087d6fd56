"""Calibration of advantages and value targets (the seed's remedies for bad negative advantages).

Each remedy is one flag of `CalibrationConfig` and one function below; `Calibrator.apply`
runs the enabled ones in this fixed order and logs each under "calib/...":

1. zero-variance counting        `count_zero_variance`   (copies the estimator's group stats)
2. return normalisation          `RunningMeanStd`        (value targets -> (G - mu) / sigma)
3. learnable baseline offset     `LearnableBaseline`     (A' = A - b)
4. batch standardisation         `standardize_advantages` (A' = (A - mean) / (std + eps))
5. symmetric clipping            `clip_advantages`        (A' = clip(A, -c, c))

With return normalisation on, the value head learns normalised returns: before computing GAE
from stored values, map them back with `Calibrator.denormalize_values`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch
from torch import nn

from .advantages import AdvantageResult
from .config_checks import check_calibration_settings


@dataclass
class CalibrationConfig:
    """Every calibration is off by default except zero-variance counting (free to log)."""

    count_zero_variance: bool = True
    normalize_returns: bool = False
    learnable_baseline: bool = False
    baseline_lr: float = 0.1  # SGD step size of b on mean((A - b)^2)
    batch_standardize: bool = False
    standardize_eps: float = 1e-8
    adv_clip: float | None = None  # c > 0 enables clip(A, -c, c)

    def __post_init__(self) -> None:
        check_calibration_settings(self)


def count_zero_variance(stats: dict[str, float]) -> dict[str, float]:
    """Groups whose returns were all equal (no GRPO signal), as counted by the estimator."""
    return {
        "calib/zero_variance_groups": stats.get("groups/zero_variance", 0.0),
        "calib/zero_variance_fraction": stats.get("groups/zero_variance_fraction", 0.0),
    }


def standardize_advantages(adv: np.ndarray, eps: float = 1e-8) -> tuple[np.ndarray, dict[str, float]]:
    """A' = (A - mean(A)) / (std(A) + eps) over the whole batch (population std, ddof=0)."""
    mean, std = float(adv.mean()), float(adv.std())
    return (adv - mean) / (std + eps), {"calib/standardize_mean": mean, "calib/standardize_std": std}


def clip_advantages(adv: np.ndarray, c: float) -> tuple[np.ndarray, dict[str, float]]:
    """A' = clip(A, -c, c): bounds how hard any one step can push the policy."""
    if c <= 0:
        raise ValueError(f"adv_clip must be > 0 (or None to disable); got {c}")
    clipped = np.clip(adv, -c, c)
    return clipped, {"calib/adv_clip_fraction": float((np.abs(adv) > c).mean()) if adv.size else 0.0}


class RunningMeanStd:
    """Running mean and variance over all values seen (parallel Welford, as in OpenAI baselines' PPO)."""

    def __init__(self, eps: float = 1e-8) -> None:
        self.mean = 0.0
        self.var = 1.0
        self.count = 1e-4  # the baselines' prior: the first batch dominates immediately
        self.eps = eps

    def update(self, x: np.ndarray) -> None:
        if x.size == 0:
            return
        batch_mean, batch_var, batch_count = float(x.mean()), float(x.var()), float(x.size)
        delta = batch_mean - self.mean
        total = self.count + batch_count
        self.mean += delta * batch_count / total
        m2 = self.var * self.count + batch_var * batch_count + delta**2 * self.count * batch_count / total
        self.var = m2 / total
        self.count = total

    def normalize(self, x: np.ndarray) -> np.ndarray:
        return (x - self.mean) / np.sqrt(self.var + self.eps)

    def denormalize(self, x: np.ndarray) -> np.ndarray:
        return x * np.sqrt(self.var + self.eps) + self.mean


class LearnableBaseline(nn.Module):
    """A scalar offset b subtracted from advantages: A' = A - b.

    b is trained by its own SGD step on mean((A - b)^2) (one step per batch, on the advantages
    before the offset), so it tracks the running mean of A: a slow baseline that removes a
    persistent bias (e.g. batches of mostly negative advantages) without per-batch rescaling.
    Gradient: d/db mean((A - b)^2) = -2 (mean(A) - b), so b <- b + 2 lr (mean(A) - b).
    Value targets are not touched. The policy loss sees b as a constant (it is applied detached).
    """

    def __init__(self, lr: float = 0.1) -> None:
        super().__init__()
        self.b = nn.Parameter(torch.zeros(()))
        self.optimizer = torch.optim.SGD([self.b], lr=lr)

    @property
    def value(self) -> float:
        return float(self.b.detach())

    def offset(self, adv: np.ndarray) -> np.ndarray:
        return adv - self.value

    def step(self, adv: np.ndarray) -> float:
        """One SGD step of b towards mean(adv); returns the loss mean((A - b)^2) before the step."""
        target = torch.as_tensor(adv, dtype=torch.float32)
        loss = ((target - self.b) ** 2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return float(loss.detach())


class Calibrator:
    """Holds calibration state (return statistics, baseline b) and applies the enabled flags."""

    def __init__(self, config: CalibrationConfig | None = None) -> None:
        self.config = config or CalibrationConfig()
        self.return_stats = RunningMeanStd()
        self.baseline = LearnableBaseline(self.config.baseline_lr) if self.config.learnable_baseline else None
        if self.config.adv_clip is not None and self.config.adv_clip <= 0:
            raise ValueError(f"CalibrationConfig.adv_clip must be > 0 or None; got {self.config.adv_clip}")

    def state_dict(self) -> dict:
        """What a checkpoint needs to resume calibration exactly (running stats, b and its optimiser)."""
        stats = self.return_stats
        state: dict = {"return_stats": {"mean": stats.mean, "var": stats.var, "count": stats.count}}
        if self.baseline is not None:
            state["baseline"] = self.baseline.state_dict()
            state["baseline_optimizer"] = self.baseline.optimizer.state_dict()
        return state

    def load_state_dict(self, state: dict) -> None:
        for key, value in state["return_stats"].items():
            setattr(self.return_stats, key, value)
        if self.baseline is not None and "baseline" in state:
            self.baseline.load_state_dict(state["baseline"])
            self.baseline.optimizer.load_state_dict(state["baseline_optimizer"])

    def denormalize_values(self, values: np.ndarray) -> np.ndarray:
        """Map value-head outputs back to return scale (identity when return normalisation is off)."""
        if not self.config.normalize_returns:
            return values
        return self.return_stats.denormalize(values)

    def apply(self, result: AdvantageResult) -> tuple[AdvantageResult, dict[str, float]]:
        """Return a calibrated copy of `result` (advantages and returns) and the calib/* stats."""
        if not isinstance(result, AdvantageResult):  # before: None failed with an AttributeError
            hint = " (apply returns (result, stats): pass its first item)" if isinstance(result, tuple) else ""
            raise TypeError(f"Calibrator.apply takes the AdvantageResult of compute_advantages; got "
                            f"{type(result).__name__}{hint}")
        cfg = self.config
        adv = result.flat_advantages().astype(np.float64)
        ret = result.flat_returns().astype(np.float64)
        if adv.size == 0:
            raise ValueError("nothing to calibrate: the AdvantageResult holds no steps (no groups given?)")
        stats: dict[str, float] = {
            "calib/adv_mean_in": float(adv.mean()),
            "calib/adv_std_in": float(adv.std()),
        }
        if cfg.count_zero_variance:
            stats.update(count_zero_variance(result.stats))
        if cfg.normalize_returns:
            self.return_stats.update(ret)
            ret = self.return_stats.normalize(ret)
            stats.update(
                {"calib/return_mean": self.return_stats.mean, "calib/return_var": self.return_stats.var}
            )
        if self.baseline is not None:
            stats["calib/baseline_b"] = self.baseline.value
            shifted = self.baseline.offset(adv)
            stats["calib/baseline_loss"] = self.baseline.step(adv)
            adv = shifted
        if cfg.batch_standardize:
            adv, s = standardize_advantages(adv, cfg.standardize_eps)
            stats.update(s)
        if cfg.adv_clip is not None:
            adv, s = clip_advantages(adv, cfg.adv_clip)
            stats.update(s)
        stats.update(_sign_stats(adv))
        lengths = np.cumsum(result.lengths())[:-1]
        calibrated = replace(result, advantages=np.split(adv, lengths), returns=np.split(ret, lengths))
        return calibrated, stats


def _sign_stats(adv: np.ndarray) -> dict[str, float]:
    pos, neg = adv[adv > 0], adv[adv < 0]
    return {
        "calib/adv_mean_out": float(adv.mean()),
        "calib/adv_std_out": float(adv.std()),
        "calib/adv_pos_mean": float(pos.mean()) if pos.size else 0.0,
        "calib/adv_pos_std": float(pos.std()) if pos.size else 0.0,
        "calib/adv_neg_mean": float(neg.mean()) if neg.size else 0.0,
        "calib/adv_neg_std": float(neg.std()) if neg.size else 0.0,
    }
