"""Runs the Ray cluster can never hold are refused before any run starts, saying where the request
came from and only what can help. Before: each failed with "use a cluster that has them, or --device
cpu" (also after --device cpu, and for a request the method declares itself), and the comparison
closed with "re-run the same command to resume the failed runs", which failed the same way.
Needs no Ray: the cluster's totals are given (tests/harness/test_ray.py runs it on a cluster)."""

from __future__ import annotations

import pytest

from searchgym.harness.methods import parse_methods
from searchgym.harness.ray_resources import refuse_unplaceable, run_resources
from searchgym.harness.runner import RunSpec
from searchgym.suites import get_suite

CPU_ONLY = {"num_cpus": 2.0, "num_gpus": 0.0}


def gpu_method(ctx):
    raise AssertionError("never run: the cluster cannot hold it")


def many_cpus_method(ctx):
    raise AssertionError("never run: the cluster cannot hold it")


gpu_method.resources = {"num_cpus": 1, "num_gpus": 1}
many_cpus_method.resources = {"num_cpus": 64}


def _refusal(methods: str, device: str = "cpu", totals=CPU_ONLY) -> str:
    specs = [RunSpec(get_suite("quick-v2"), method, seed, 0, "out", device=device)
             for method in parse_methods(methods) for seed in (0, 1)]
    with pytest.raises(ValueError) as caught:
        refuse_unplaceable([(spec, run_resources(spec, totals["num_gpus"])) for spec in specs], totals)
    return str(caught.value)


def test_a_gpu_the_method_declares_is_refused_without_device_advice() -> None:
    said = _refusal("x=test_ray_unplaceable_runs:gpu_method")
    assert said == ("no run started: method 'x' declares resources num_gpus 1 (the cluster has 0): use a cluster "
                    "that has them, or lower what the method declares in its `resources` attribute")


def test_cpus_the_method_declares_are_refused_without_device_advice() -> None:
    said = _refusal("x=test_ray_unplaceable_runs:many_cpus_method", device="cuda")
    assert "method 'x' declares resources num_cpus 64 (the cluster has 2)" in said and "--device" not in said


def test_a_gpu_asked_by_device_cuda_advises_device_cpu() -> None:
    said = _refusal("cw_grpo", device="cuda")
    assert said == ("no run started: method 'cw_grpo' asks for num_gpus 1 (the cluster has 0), as --device cuda "
                    "gives a learning run a GPU: use a cluster with a GPU, or --device cpu")


def test_each_method_is_named_once_and_runs_that_fit_pass() -> None:
    said = _refusal("random,x=test_ray_unplaceable_runs:gpu_method,y=test_ray_unplaceable_runs:many_cpus_method")
    assert said.count("method 'x'") == 1 and said.count("method 'y'") == 1 and "random" not in said
    assert "\n" not in said
    spec = RunSpec(get_suite("quick-v2"), parse_methods("x=test_ray_unplaceable_runs:gpu_method")[0], 0, 0, "out")
    refuse_unplaceable([(spec, run_resources(spec, 1.0))], {"num_cpus": 2.0, "num_gpus": 1.0})  # it fits
