"""What a run asks Ray for, and the refusal of runs the cluster can never hold.

A run asks for what its method declares (a ``resources`` attribute on the method callable, e.g.
``{"num_cpus": 2, "num_gpus": 1}``), else one CPU, plus one GPU for a learning method when the
device is ``cuda`` (or ``auto`` on a cluster that has GPUs). A task asking for more than the whole
cluster has would wait for good, so such runs are refused before any run starts, saying where the
request came from: the method's declaration (a larger cluster or other ``resources`` can help) or
``--device`` (``--device cpu`` can help). Before: each such run failed with "use a cluster that has
them, or --device cpu" (also after ``--device cpu``, and for a method's own request), and the
comparison ended with "re-run the same command to resume the failed runs", which failed the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from searchgym.harness.methods import load_method, trains
from searchgym.harness.runner import RunSpec

KEYS = ("num_cpus", "num_gpus")


def declared_resources(spec: RunSpec) -> dict[str, float]:
    """The resources the run's method declares (checked: known keys, non-negative numbers)."""
    declared = dict(getattr(load_method(spec.method), "resources", None) or {})
    unknown = set(declared) - set(KEYS)
    if unknown:
        raise ValueError(f"method {spec.method.label!r} declares resources {sorted(unknown)}; "
                         "accepted: num_cpus, num_gpus")
    for key, value in declared.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ValueError(f"method {spec.method.label!r}: {key} must be a non-negative number, got {value!r}")
    return {key: float(value) for key, value in declared.items()}


def run_resources(spec: RunSpec, cluster_gpus: float) -> dict[str, float]:
    """``num_cpus`` and ``num_gpus`` a run asks Ray for (see the module docstring)."""
    wants_gpu = spec.device.startswith("cuda") or (spec.device == "auto" and cluster_gpus > 0)
    resources = {"num_cpus": 1.0, "num_gpus": 1.0 if wants_gpu and trains(load_method(spec.method)) else 0.0}
    return resources | declared_resources(spec)


def unplaceable(spec: RunSpec, resources: Mapping[str, float], totals: Mapping[str, float]) -> str | None:
    """Why no node of a cluster with ``totals`` can ever hold the run, and what can help; None if it fits."""
    missing = [key for key in KEYS if resources[key] > totals[key]]
    if not missing:
        return None
    label = spec.method.label
    said = ", ".join(f"{key} {resources[key]:g} (the cluster has {totals[key]:g})" for key in missing)
    if any(key in declared_resources(spec) for key in missing):
        return (f"method {label!r} declares resources {said}: use a cluster that has them, or lower what the "
                "method declares in its `resources` attribute")
    if "num_gpus" in missing:
        return (f"method {label!r} asks for {said}, as --device {spec.device} gives a learning run a GPU: use a "
                "cluster with a GPU, or --device cpu")
    return f"method {label!r} asks for {said}, the least a run asks for: use a cluster that has them"


def refuse_unplaceable(planned: Sequence[tuple[RunSpec, Mapping[str, float]]], totals: Mapping[str, float]) -> None:
    """A ValueError, before any run starts, naming each method whose runs (with their ``resources``) no
    node of the cluster can hold, and what can help: one line, each reason once."""
    reasons = dict.fromkeys(reason for spec, resources in planned
                            if (reason := unplaceable(spec, resources, totals)) is not None)
    if reasons:
        raise ValueError(f"no run started: {'; '.join(reasons)}")
