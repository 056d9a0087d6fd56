"""Experiment loggers: every ``metrics.jsonl`` row also goes to TensorBoard or Weights & Biases.

``--logger tensorboard`` writes event files under ``<run_dir>/tensorboard``; ``--logger wandb``
starts one W&B run per harness run (``WANDB_MODE=offline``, or no login, keeps it on disk, under
``<run_dir>/wandb``). Each numeric entry of a row is logged under its ``metrics.jsonl`` name
(``dev_success``, ``loss`` ...) at x = the row's ``step``; text and nested values stay in the
JSONL only. ``none`` (the default) logs nothing extra.
"""

from __future__ import annotations

import netrc
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from searchgym.extras import require_installed
from searchgym.json_fields import is_number
from searchgym.named_registry import NamedRegistry


class MetricsLogger(Protocol):
    def log(self, row: Mapping[str, Any]) -> None: ...

    def close(self) -> None: ...


def scalars(row: Mapping[str, Any]) -> dict[str, float]:
    """The numeric entries of a row (bools as 0/1; NaN, infinities and ints past a float dropped)."""
    out = {}
    for key, value in row.items():
        if isinstance(value, bool) or is_number(value):  # is_number: 10**400 was an OverflowError
            out[key] = float(value)
    return out


def _step(row: Mapping[str, Any], fallback: int) -> int:
    step = row.get("step")
    return int(step) if isinstance(step, (int, float)) and not isinstance(step, bool) else fallback


class NoLogger:
    def log(self, row: Mapping[str, Any]) -> None:
        return None

    def close(self) -> None:
        return None


class TensorBoardLogger:
    """Scalars to ``<run_dir>/tensorboard`` (torch's SummaryWriter; needs the tensorboard package)."""

    def __init__(self, run_dir: Path, name: str) -> None:
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError as exc:
            raise ValueError("--logger tensorboard needs the tensorboard package: pip install 'searchgym[tensorboard]'"
                             ) from exc
        self.writer = SummaryWriter(log_dir=str(Path(run_dir) / "tensorboard"), comment=name)
        self.rows = 0

    def log(self, row: Mapping[str, Any]) -> None:
        step = _step(row, self.rows)
        self.rows += 1
        for key, value in scalars(row).items():
            self.writer.add_scalar(key, value, global_step=step)
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()


class WandbLogger:
    """One W&B run per harness run; ``WANDB_MODE=offline`` (or no login) keeps it local."""

    def __init__(self, run_dir: Path, name: str, config: Mapping[str, Any] | None = None) -> None:
        try:
            import wandb
        except ImportError as exc:
            raise ValueError("--logger wandb needs the wandb package: pip install 'searchgym[wandb]'") from exc
        mode = None if os.environ.get("WANDB_MODE") or _wandb_login_found() else "offline"
        if mode == "offline":  # before: wandb.init raised "No API key configured", a traceback in every run
            print(f"W&B: no login (WANDB_API_KEY, `wandb login`), so {name} is logged offline under "
                  f"{run_dir / 'wandb'}; `wandb sync` uploads it later", file=sys.stderr)
        self.run = wandb.init(project="searchgym", name=name, dir=str(run_dir), config=dict(config or {}),
                              reinit="create_new", mode=mode)
        self.run.define_metric("*", step_metric="step")
        self.rows = 0

    def log(self, row: Mapping[str, Any]) -> None:
        step = _step(row, self.rows)
        self.rows += 1
        values = {k: v for k, v in scalars(row).items() if k != "step"}
        self.run.log({**values, "step": step})

    def close(self) -> None:
        self.run.finish()


def _wandb_login_found() -> bool:
    """An API key in the environment or in ~/.netrc (where ``wandb login`` keeps it)."""
    if os.environ.get("WANDB_API_KEY"):
        return True
    try:
        return netrc.netrc().authenticators(os.environ.get("WANDB_HOST", "api.wandb.ai")) is not None
    except (OSError, netrc.NetrcParseError):
        return False


#: ``--logger`` name -> ``build(run_dir, name, config) -> MetricsLogger``.
LOGGERS: NamedRegistry[Any] = NamedRegistry("logger")
LOGGERS.add("none", lambda run_dir, name, config: NoLogger())
LOGGERS.add("tensorboard", lambda run_dir, name, config: TensorBoardLogger(run_dir, name))
LOGGERS.add("wandb", WandbLogger)


#: ``--logger`` name -> the optional modules it imports (TensorBoard's writer is torch's).
LOGGER_MODULES = {"tensorboard": ("torch", "tensorboard"), "wandb": ("wandb",)}


def check_logger_installed(kind: str) -> None:
    """MissingExtra (one line with the pip command) when ``--logger KIND`` needs a module that is not
    installed; imports nothing. Why: it was found when the first run built its logger, after the
    folders were made, and ``compare`` then advised re-running, which failed the same way."""
    for module in LOGGER_MODULES.get(kind, ()):
        require_installed(module, f"--logger {kind}")


def make_logger(kind: str, run_dir: Path, name: str, config: Mapping[str, Any] | None = None) -> MetricsLogger:
    """A logger by its ``--logger`` name (an unknown name: an error listing the accepted ones)."""
    return LOGGERS.get(kind)(run_dir, name, config)
