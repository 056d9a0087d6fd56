"""What the candidate trainer and the LLM trainer share: where a run writes, how a metrics row is
logged, the checkpoint that resumes it, and the loop that spends the budget.

Resume is exact because of the order :meth:`TrainerBase.finish_iteration` keeps: the row is
logged before the checkpoint is written, so a kill between the two redoes the iteration and its
row, and a kill after the checkpoint loses nothing; a resumed run has exactly the rows of an
uninterrupted one.

A subclass sets ``config`` (with ``budget``), ``state`` (with ``iteration`` and ``env_steps``)
and ``device``, calls :meth:`init_output` first and :meth:`resume` last in ``__init__``, and
writes ``state_dict`` / ``load_state_dict`` (its checkpoint), ``log_start_point`` (the curve's
step-0 row) and ``train_iteration`` (one iteration, ending in ``finish_iteration``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from searchgym.fileio import append_jsonl, atomic_torch_save

CHECKPOINT = "checkpoint.pt"
METRICS = "metrics.jsonl"


class TrainerBase:
    """Logging, checkpoints, resume and the budget loop of a trainer (see the module docstring)."""

    config: Any
    state: Any
    device: torch.device
    #: the progress bar's label
    progress_label: str = "train"

    def init_output(self, out_dir: str | Path | None, log: Callable[[dict], None] | None) -> None:
        """Rows go to ``log`` when given, else to ``out_dir/metrics.jsonl``; checkpoints to ``out_dir``."""
        self.out_dir = Path(out_dir) if out_dir is not None else None
        self.log_fn = log

    # ------------------------------------------------------------------------------ logging
    def _log(self, row: dict) -> None:
        """One metrics row, numpy scalars as plain floats."""
        row = {k: (float(v) if isinstance(v, (np.floating, np.integer)) else v) for k, v in row.items()}
        if self.log_fn is not None:
            self.log_fn(row)
        elif self.out_dir is not None:
            append_jsonl(self.out_dir / METRICS, row)

    # -------------------------------------------------------------------------- checkpoints
    def state_dict(self) -> dict[str, Any]:  # pragma: no cover - interface
        raise NotImplementedError

    def load_state_dict(self, blob: dict[str, Any]) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def save(self) -> None:
        """Write ``checkpoint.pt`` atomically (temp file + rename): a crash never leaves half a file."""
        if self.out_dir is None:
            return
        atomic_torch_save(self.out_dir / CHECKPOINT, self.state_dict())

    def load(self, path: str | Path) -> None:
        """Restore everything a checkpoint holds, so the next update is the uninterrupted run's."""
        blob = torch.load(path, map_location=self.device, weights_only=False)
        try:
            self.load_state_dict(blob)
        except ValueError as exc:  # a checkpoint of another run's shape: say which file
            raise ValueError(f"{path}: {exc}") from None

    def resume(self) -> None:
        """Load the run's checkpoint when its folder holds one (an interrupted run goes on)."""
        if self.out_dir is not None and (self.out_dir / CHECKPOINT).exists():
            self.load(self.out_dir / CHECKPOINT)

    # ----------------------------------------------------------------------------- the loop
    def finish_iteration(self, row: dict[str, Any], checkpoint: bool = True) -> None:
        """Log the iteration's row, then checkpoint (this order makes resume exact)."""
        self._log(row)
        if checkpoint:
            self.save()

    def log_start_point(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def train_iteration(self) -> dict[str, Any]:  # pragma: no cover - interface
        raise NotImplementedError

    def train(self, progress: bool = True) -> Any:
        """Iterate until the budget is spent (resuming where a checkpoint left off); the final state."""
        budget = self.config.budget
        bar = tqdm(total=budget, initial=min(self.state.env_steps, budget), desc=self.progress_label,
                   disable=not progress, unit="step", leave=False)
        self.log_start_point()
        while self.state.env_steps < budget:
            row = self.train_iteration()
            bar.update(min(self.state.env_steps, budget) - bar.n)
            bar.set_postfix(dev=row.get("dev_success", float("nan")), train=round(row["train_success"], 2))
        bar.close()
        return self.state
