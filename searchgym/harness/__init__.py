"""The comparison harness: methods x seeds on a frozen suite, recorded, resumable and plotted.

Modules: ``methods`` (registry and the method/Actor protocol), ``runner`` (one run's files),
``compare`` (many runs in worker processes, resume), ``evaluate`` (evaluation loops),
``stats`` (bootstrap intervals, paired tests), ``plots`` (learning curves), ``report``
(summary.csv, results.md), ``results`` (``load_results``: run folders as pandas DataFrames),
``loggers`` (TensorBoard, W&B), ``progress`` (env steps of runs in workers), ``provenance``
(versions, device).
"""

from __future__ import annotations

from typing import Any

__all__ = ["load_results", "load_summary"]


def __getattr__(name: str) -> Any:
    """``load_results`` / ``load_summary`` import pandas only when used."""
    if name in __all__:
        from searchgym.harness import results

        return getattr(results, name)
    raise AttributeError(f"module 'searchgym.harness' has no attribute {name!r}")
