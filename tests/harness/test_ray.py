"""``compare --executor ray``: same predictions as the local executor, a killed task is retried.

One local Ray cluster (2 CPUs) is shared by the tests of this module: Ray starts slowly.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'searchgym[ray]'); "
                                        "the ray executor tests need it")

from searchgym.cli import main  # noqa: E402
from searchgym.fileio import read_json, read_jsonl  # noqa: E402
from searchgym.harness.compare import Comparison, run_comparison  # noqa: E402
from searchgym.harness.methods import parse_methods  # noqa: E402
from searchgym.harness.ray_executor import RayCluster, run_resources  # noqa: E402
from searchgym.harness.runner import RunSpec, run_dir  # noqa: E402
from searchgym.suites import Suite, register_suite  # noqa: E402
from harness_helpers import start_local_ray  # noqa: E402

RAY_TINY = register_suite(Suite("test-ray-tiny-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 6},
                                world_size="tiny", dev_size=4, test_size=8,
                                description="tests: the ray executor, single agent, tiny world"))
LEARNER_OPTIONS = {"group_size": 2, "tasks_per_iteration": 2, "eval_tasks": 2, "eval_every": 2}
HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def cluster():
    """One local 2-CPU cluster whose workers can import this module (for die_once_learner)."""
    path = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    start_local_ray(runtime_env={"env_vars": {"PYTHONPATH": path}})
    yield
    ray.shutdown()


def die_once_learner(ctx):
    """Checkpoints half its budget, then SIGKILLs its own process on the first attempt only."""
    from searchgym.baselines import OracleAgent
    from searchgym.fileio import atomic_write_json
    from searchgym.baselines.harness_actors import SessionActor

    state = ctx.checkpoint_dir / "state.json"
    step = read_json(state)["step"] if state.exists() else 0
    while step < ctx.budget:
        step = min(ctx.budget, step + ctx.budget // 2)
        ctx.log({"step": step, "dev_success": 0.5, "pid": os.getpid()})
        atomic_write_json(state, {"step": step})
        try:  # O_EXCL: of two runs that reach this at once, exactly one creates the marker and is killed
            os.close(os.open(ctx.options["marker"], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            continue
        os.kill(os.getpid(), signal.SIGKILL)
    return SessionActor(OracleAgent())


def always_fails(ctx):
    raise RuntimeError("this method always fails")


def comparison(out, methods, executor="local", device="cpu", **kwargs):
    return Comparison(suite=RAY_TINY, methods=parse_methods(methods), seeds=[0, 1], budget=24, out=out,
                      device=device, progress=False, reference=parse_methods(methods)[-1].label,
                      options=kwargs.pop("options", LEARNER_OPTIONS), executor=executor, **kwargs)


def predictions(out):
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.glob("runs/*/seed*/predictions.jsonl"))}


def test_ray_predictions_are_byte_identical_to_the_local_executor(tmp_path, cluster):
    methods = "random,oracle,cw_grpo"
    local = run_comparison(comparison(tmp_path / "local", methods))
    on_ray = run_comparison(comparison(tmp_path / "ray", methods, executor="ray"))
    assert not local.failed and not on_ray.failed
    assert sorted((o.label, o.seed, o.status) for o in on_ray.outcomes) == sorted(
        (o.label, o.seed, "done") for o in local.outcomes)
    ours, theirs = predictions(tmp_path / "local"), predictions(tmp_path / "ray")
    assert len(ours) == 6 and ours == theirs
    assert (tmp_path / "ray" / "summary.csv").read_bytes() == (tmp_path / "local" / "summary.csv").read_bytes()
    learned = read_jsonl(run_dir(tmp_path / "ray", "cw_grpo", 1) / "metrics.jsonl")
    assert learned[-1]["step"] >= 24 and read_json(run_dir(tmp_path / "ray", "cw_grpo", 1) / "config.json")["threads"] == 1

    again = run_comparison(comparison(tmp_path / "ray", methods, executor="ray"))  # a re-run resumes from disk
    assert {o.status for o in again.outcomes} == {"skipped"} and predictions(tmp_path / "ray") == theirs


def test_a_killed_ray_task_is_retried_and_the_comparison_completes(tmp_path, cluster):
    marker = tmp_path / "killed"
    options = {"marker": str(marker)}
    result = run_comparison(comparison(tmp_path / "out", "oracle,die=test_ray:die_once_learner", executor="ray",
                                       retries=1, options=options))
    assert marker.exists() and not result.failed
    assert sorted((o.label, o.seed, o.status) for o in result.outcomes) == [
        ("die", 0, "done"), ("die", 1, "done"), ("oracle", 0, "done"), ("oracle", 1, "done")]
    rows = [read_jsonl(run_dir(tmp_path / "out", "die", s) / "metrics.jsonl") for s in (0, 1)]
    # Both runs log steps 12 and 24; the one that found no marker was killed after 12 and resumed at 24 in
    # attempt 2. Which seed that is depends on which Ray task starts first, so find it by its attempts.
    (killed,) = [r for r in rows if any(row["attempt"] == 2 for row in r)]
    (whole,) = [r for r in rows if r is not killed]
    assert [(r["step"], r["attempt"]) for r in killed] == [(12, 1), (24, 2)] and killed[0]["pid"] != killed[1]["pid"]
    assert [(r["step"], r["attempt"]) for r in whole] == [(12, 1), (24, 1)]


def test_an_interrupted_ray_driver_keeps_finished_runs_and_the_same_command_resumes(tmp_path, cluster):
    seen = []

    def interrupt_after_two(outcome):
        seen.append(outcome)
        if len(seen) == 2:
            raise KeyboardInterrupt

    comp = comparison(tmp_path, "random,oracle,fast=harness_helpers:fast_learner", executor="ray", options={})
    with pytest.raises(KeyboardInterrupt):
        run_comparison(comp, on_outcome=interrupt_after_two)
    finished = {(o.label, o.seed) for o in seen}
    assert len(finished) == 2 and not (tmp_path / "summary.csv").exists()
    again = run_comparison(comp)
    assert not again.failed and len(list(tmp_path.glob("runs/*/seed*/DONE"))) == 6
    assert finished <= {(o.label, o.seed) for o in again.outcomes if o.status == "skipped"}


def test_a_run_still_failing_after_its_retries_is_reported_and_the_others_finish(tmp_path, cluster, capsys):
    seen: list[str] = []
    comp = comparison(tmp_path, "oracle,bad=test_ray:always_fails", executor="ray", retries=1, options={})
    result = run_comparison(comp, on_outcome=lambda o: seen.append(f"{o.label}/{o.status}"))
    assert sorted(seen) == ["bad/failed", "bad/failed", "oracle/done", "oracle/done"]
    assert all("after 2 attempts" in o.error for o in result.failed)
    assert capsys.readouterr().out.count("retrying") == 2  # one retry notice per bad run, on the driver
    assert "this method always fails" in (run_dir(tmp_path, "bad", 0) / "error.txt").read_text()


def gpu_method(ctx):
    raise AssertionError("never run: a 2-CPU cluster cannot hold it")


gpu_method.resources = {"num_cpus": 1, "num_gpus": 1}


def test_runs_the_cluster_can_never_hold_are_refused_before_any_starts(tmp_path, cluster, capsys):
    """Not queued for a GPU that never comes, nor failed one by one with "re-run ... to resume": refused
    up front, saying whether --device or the method's own `resources` asked for it (test_ray_unplaceable_runs)."""
    with pytest.raises(ValueError, match=r"no run started: method 'cw_grpo' asks for num_gpus 1 \(the cluster has 0\), "
                                         "as --device cuda gives a learning run a GPU"):
        run_comparison(comparison(tmp_path / "cuda", "random,cw_grpo", executor="ray", device="cuda", retries=0))
    assert not (tmp_path / "cuda" / "runs").exists()  # random's runs did not start either
    out = tmp_path / "declared"
    code = main(["compare", "--suite", RAY_TINY.id, "--methods", "x=test_ray:gpu_method", "--budget", "0",
                 "--executor", "ray", "--device", "cpu", "--no-progress", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 2 and not (out / "runs").exists()
    assert captured.err == ("searchgym compare: error: no run started: method 'x' declares resources num_gpus 1 (the "
                            "cluster has 0): use a cluster that has them, or lower what the method declares in its "
                            "`resources` attribute\n")
    assert "re-run" not in captured.out and "--device cpu" not in captured.err


def test_resources_and_bad_options_give_clear_errors(tmp_path):
    spec = RunSpec(RAY_TINY, parse_methods("cw_grpo")[0], 0, 10, tmp_path, device="cuda")
    assert run_resources(spec, cluster_gpus=0) == {"num_cpus": 1.0, "num_gpus": 1.0}
    oracle = RunSpec(RAY_TINY, parse_methods("oracle")[0], 0, 10, tmp_path, device="auto")
    assert run_resources(oracle, cluster_gpus=4) == {"num_cpus": 1.0, "num_gpus": 0.0}
    with pytest.raises(ValueError, match="retries is an option of the ray executor; add executor=.ray."):
        comparison(tmp_path, "oracle", retries=2)
    with pytest.raises(ValueError, match="retries must be a non-negative int"):
        run_comparison(comparison(tmp_path, "oracle", executor="ray", retries=-1))
    with pytest.raises(ValueError, match="unknown executor 'dask'"):
        comparison(tmp_path, "oracle", executor="dask")
    with pytest.raises(ValueError, match="non-empty string"):
        RayCluster(address="")


def test_an_adopted_world_is_served_instead_of_a_new_one():
    from searchgym.world import World, adopt_world, shared_world

    world = World.generate(seed=7, size="tiny")
    adopt_world(world, 7, "tiny")
    assert shared_world(7, "tiny") is world
    with pytest.raises(ValueError, match="has seed 7, not 8"):
        adopt_world(world, 8, "tiny")
