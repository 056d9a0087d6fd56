"""Ray tasks import the driver's plugin modules (``--plugin`` / ``SEARCHGYM_PLUGINS``) before their run.

Before: a task on another machine inherits no environment variable, and even a local Ray worker did not
import the modules, so a method or suite registered by a plugin was unknown inside the task."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from searchgym.harness import ray_executor
from searchgym.harness.methods import parse_methods
from searchgym.harness.recorded_registrations import tool_records
from searchgym.harness.runner import RunOutcome, RunSpec
from searchgym.plugins import PLUGINS_VARIABLE
from searchgym.suites import get_suite


def test_a_task_imports_the_plugins_it_is_given_before_its_run(tmp_path, monkeypatch):
    (tmp_path / "ray_task_plugin_mod.py").write_text("MARK = []\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen = []
    monkeypatch.setattr("searchgym.world.adopt_world", lambda *args: None)
    monkeypatch.setattr(ray_executor, "execute_run_safely", lambda spec: seen.append("ray_task_plugin_mod" in sys.modules))
    spec = SimpleNamespace(threads=1, suite=SimpleNamespace(world_seed=0, world_size="tiny"))
    ray_executor._run_task(spec, None, ["ray_task_plugin_mod"])
    assert seen == [True]
    sys.modules.pop("ray_task_plugin_mod", None)


def test_the_driver_passes_its_plugin_modules_to_every_task(tmp_path, monkeypatch):
    monkeypatch.setenv(PLUGINS_VARIABLE, "mypkg.methods, mypkg.suites")
    given = []

    class FakeRay:
        class exceptions:  # noqa: N801 - Ray's module name
            RayError = RuntimeError

        def cluster_resources(self):
            return {"CPU": 2.0}

        def put(self, value):
            return value

        def remote(self, fn):
            def submit(spec, world, plugins, tools):
                given.append(plugins)
                assert "web_search=searchgym.tools.web_search.WebSearch" in tools
                return spec
            return SimpleNamespace(options=lambda **_: SimpleNamespace(remote=submit))

        def wait(self, refs, num_returns, timeout):
            return refs[:1], refs[1:]

        def get(self, spec):
            return RunOutcome("random", spec.seed, str(tmp_path), "done")

    specs = [RunSpec(get_suite("searchqa-hard-v2"), parse_methods("random")[0], seed, 4, tmp_path, device="cpu")
             for seed in (0, 1)]
    ray_executor._drive(FakeRay(), specs, lambda outcome: None, 0, lambda text: None)
    assert given == [["mypkg.methods", "mypkg.suites"]] * 2


def test_a_task_without_a_tool_its_driver_registered_refuses_the_run(tmp_path, monkeypatch):
    monkeypatch.setattr("searchgym.world.adopt_world", lambda *args: None)
    monkeypatch.setattr(ray_executor, "execute_run_safely", lambda spec: pytest.fail("the run was played"))
    spec = RunSpec(get_suite("searchqa-hard-v2"), parse_methods("random")[0], 0, 4, tmp_path, device="cpu")
    outcome = ray_executor._run_task(spec, None, [], [*tool_records(), "word_count=mypkg.tools.WordCount"])
    assert outcome.status == "failed" and not outcome.resumable
    assert outcome.error.startswith("tool word_count (mypkg.tools.WordCount) is registered in the parent process only")
    assert not spec.run_dir.exists()
