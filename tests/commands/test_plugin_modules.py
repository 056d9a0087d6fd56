"""``searchgym --plugin MODULE`` and ``SEARCHGYM_PLUGINS``: a user's own module, outside searchgym,
reaches the command and the worker processes of ``compare --workers N``.

Before: the command had no way to import a user's module (``list``, ``suites`` and ``compare
--methods`` saw only searchgym's own registrations), and a "spawn" worker lacked every registration
its parent made outside the top level of the script ("module 'searchgym.harness.method_specs' has no
callable 'halved_grpo'"). Each command runs in a subprocess, so nothing registers in this process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

PLUGIN = '''
    import numpy as np

    from searchgym.agents.advantages import EstimatorOutput, grpo_group_advantages, register_estimator
    from searchgym.method_table import TRAINER, MethodSpec, register_spec
    from searchgym.registry import register
    from searchgym.suites import Suite, register_suite

    register("SearchQA-PluginLookup-v0", "searchgym.envs.search:SearchEnv", description="a plugin's env id",
             action_mode="candidates", families=["lookup"])
    register_suite(Suite("plugin-lookup-v0", 0, "SearchQA-PluginLookup-v0", {"max_steps": 4},
                         world_size="tiny", dev_size=2, test_size=3, description="a plugin's suite"))


    @register_estimator("plugin_halved")
    def plugin_halved(group, config):
        advantages = grpo_group_advantages(np.array([t.final_return for t in group]), config.eps) / 2
        return EstimatorOutput([np.full(len(t), a) for a, t in zip(advantages, group)],
                               [t.rewards[::-1].cumsum()[::-1] for t in group])


    register_spec(MethodSpec("plugin_halved", TRAINER, "plugin_halved", "seq-mean-token-mean", False))
'''
#: A script whose registration is under the main guard: its workers run only the top level.
GUARDED_SCRIPT = '''
    import sys
    from searchgym.harness.compare import Comparison, run_comparison
    from searchgym.suites import Suite

    if __name__ == "__main__":
        import {module}  # registers plugin_halved, in this process only
        suite = Suite("guarded-v0", 0, "SearchQA-Candidates-v0", {{"max_steps": 4}}, world_size="tiny",
                      families=["lookup"], dev_size=2, test_size=3)
        run_comparison(Comparison(suite=suite, methods="plugin_halved,random", seeds=[0], budget=8,
                                  out=sys.argv[1], device="cpu", progress=False, workers=2))
'''


def _plugin(tmp_path: Path, name: str = "my_searchgym_plugin", source: str = PLUGIN) -> Path:
    folder = tmp_path / "plugins"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.py").write_text(textwrap.dedent(source))
    return folder


def _searchgym(args: list[str], cwd: Path, pythonpath: Path | None = None, plugins: str | None = None,
               timeout: float = 300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("SEARCHGYM_PLUGINS", "PYTHONPATH")}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    if plugins is not None:
        env["SEARCHGYM_PLUGINS"] = plugins
    return subprocess.run([sys.executable, "-m", "searchgym", *args], cwd=cwd, env=env, check=False,
                          capture_output=True, text=True, timeout=timeout)


def test_plugin_option_shows_the_modules_env_id_and_suite(tmp_path) -> None:
    folder = _plugin(tmp_path)
    listed = _searchgym(["--plugin", "my_searchgym_plugin", "list"], tmp_path, folder)
    assert listed.returncode == 0 and "SearchQA-PluginLookup-v0" in listed.stdout, listed.stderr[-2000:]
    suites = _searchgym(["--plugin=my_searchgym_plugin", "suites"], tmp_path, folder)
    assert suites.returncode == 0 and "plugin-lookup-v0" in suites.stdout, suites.stderr[-2000:]
    plain = _searchgym(["list"], tmp_path, folder)  # nothing named, nothing imported
    assert plain.returncode == 0 and "SearchQA-PluginLookup-v0" not in plain.stdout


def test_the_environment_variable_loads_the_module_for_the_command_and_its_workers(tmp_path) -> None:
    folder = _plugin(tmp_path)
    out = tmp_path / "runs"
    command = ["compare", "--suite", "plugin-lookup-v0", "--methods", "plugin_halved,random", "--budget", "8",
               "--workers", "2", "--device", "cpu", "--no-progress", "--out", str(out)]
    run = _searchgym(command, tmp_path, folder, plugins="my_searchgym_plugin")
    assert run.returncode == 0, run.stderr[-3000:]
    for label in ("plugin_halved", "random"):
        assert (out / "runs" / label / "seed0" / "DONE").is_file(), run.stderr[-3000:]
    config = json.loads((out / "runs" / "plugin_halved" / "seed0" / "config.json").read_text())
    assert config["suite_id"] == "plugin-lookup-v0"


def test_the_option_reaches_compare_workers_through_the_variable(tmp_path) -> None:
    folder = _plugin(tmp_path)
    out = tmp_path / "runs"
    command = ["--plugin", "my_searchgym_plugin", "compare", "--suite", "plugin-lookup-v0", "--methods",
               "plugin_halved", "--budget", "8", "--workers", "2", "--seeds", "0,1", "--device", "cpu",
               "--no-progress", "--out", str(out)]
    run = _searchgym(command, tmp_path, folder)
    assert run.returncode == 0, run.stderr[-3000:]
    assert all((out / "runs" / "plugin_halved" / f"seed{seed}" / "DONE").is_file() for seed in (0, 1))


def test_a_module_that_cannot_be_imported_is_one_line_and_status_2(tmp_path) -> None:
    missing = _searchgym(["--plugin", "no_such_searchgym_plugin", "list"], tmp_path)
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.strip().splitlines() == [
        "searchgym: error: plugin 'no_such_searchgym_plugin' (from --plugin) cannot be imported: "
        "ModuleNotFoundError: No module named 'no_such_searchgym_plugin'; install it, or put its folder on "
        "PYTHONPATH"]
    folder = _plugin(tmp_path, "raising_plugin", "import os\nraise RuntimeError('no key set')\n")
    raising = _searchgym(["suites"], tmp_path, folder, plugins="raising_plugin")
    assert raising.returncode == 2 and len(raising.stderr.strip().splitlines()) == 1, raising.stderr
    assert raising.stderr.startswith("searchgym: error: plugin 'raising_plugin' (from SEARCHGYM_PLUGINS) "
                                     "cannot be imported: RuntimeError: no key set (at ")
    assert "raising_plugin.py:2)" in raising.stderr
    not_a_name = _searchgym(["--plugin", "mypkg.mod:factory", "list"], tmp_path)
    assert not_a_name.returncode == 2 and len(not_a_name.stderr.strip().splitlines()) == 1
    assert "'mypkg.mod:factory' (from --plugin) is not a module name" in not_a_name.stderr


def test_a_spec_registered_under_the_main_guard_is_named_in_the_workers_error(tmp_path) -> None:
    folder = _plugin(tmp_path)
    script = tmp_path / "guarded.py"
    script.write_text(textwrap.dedent(GUARDED_SCRIPT.format(module="my_searchgym_plugin")))
    env = {k: v for k, v in os.environ.items() if k != "SEARCHGYM_PLUGINS"}
    env["PYTHONPATH"] = str(folder)
    out = tmp_path / "runs"
    subprocess.run([sys.executable, str(script), str(out)], cwd=tmp_path, env=env, check=False,
                   capture_output=True, text=True, timeout=300)
    error = (out / "runs" / "plugin_halved" / "seed0" / "error.txt").read_text()
    assert "the spec 'plugin_halved' is registered in the parent process only" in error
    assert "SEARCHGYM_PLUGINS" in error and (out / "runs" / "random" / "seed0" / "DONE").is_file()
