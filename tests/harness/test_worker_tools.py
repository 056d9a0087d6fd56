"""A worker of ``run_comparison(workers=N)`` refuses its runs, naming the tool, when its parent registered a
tool that the worker has not (registered outside the plugins and the top level of the script). Before:
the worker played without the tool, unsaid, its runs recorded under another suite hash."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from harness_helpers import TINY_QA

from searchgym.harness.methods import parse_methods
from searchgym.harness.recorded_registrations import tool_records
from searchgym.harness.runner import RunSpec
from searchgym.harness.worker_start import run_in_worker
from searchgym.tools import scoped_tools

pytestmark = pytest.mark.timeout(300)
TOOL = '''
    from typing import Any

    from searchgym.tools import FixedCall, Tool, ToolResult, ToolSpec, register_tool


    class WordCount(Tool):
        name = "word_count"
        description = "Count the words of a text."
        parameters: dict[str, Any] = {"type": "object", "properties": {"text": {"type": "string"}}}

        def run(self, text: str = "") -> ToolResult:
            return ToolResult(text=f"{len(text.split())} words")


    def register_word_count():
        register_tool(ToolSpec("word_count", WordCount, build=lambda world, options: WordCount(),
                               candidates=FixedCall((("text", "{name}"),))))
'''
#: A plugin module: registers the tool when imported.
PLUGIN = TOOL + "\n    register_word_count()\n"
#: A script that registers the tool under the main guard (``word_count_tool``), or imports the plugin there.
SCRIPT = '''
    import json
    import sys

    from searchgym.harness.compare import Comparison, run_comparison
    from searchgym.suites import Suite

    if __name__ == "__main__":
        if sys.argv[2] == "guarded":
            from word_count_tool import register_word_count

            register_word_count()  # in this process only
        else:
            import word_count_plugin  # also named in SEARCHGYM_PLUGINS: the workers import it too
        suite = Suite("worker-tools-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4}, world_size="tiny",
                      families=["lookup"], dev_size=2, test_size=3)
        result = run_comparison(Comparison(suite=suite, methods="random,oracle", seeds=[0], budget=0,
                                           out=sys.argv[1], device="cpu", progress=False, workers=2))
        print(json.dumps({o.label: [o.status, o.error, o.resumable] for o in result.outcomes}))
'''


def _compare(tmp_path, mode: str) -> dict:
    for name, source in (("word_count_tool", TOOL), ("word_count_plugin", PLUGIN), ("script", SCRIPT)):
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    env = {k: v for k, v in os.environ.items() if k != "SEARCHGYM_PLUGINS"}
    env["PYTHONPATH"] = str(tmp_path)
    if mode == "plugin":
        env["SEARCHGYM_PLUGINS"] = "word_count_plugin"
    done = subprocess.run([sys.executable, str(tmp_path / "script.py"), str(tmp_path / mode), mode], cwd=tmp_path,
                          env=env, check=False, capture_output=True, text=True, timeout=300)
    assert done.stdout.strip(), done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_tool_registered_under_the_main_guard_is_named_and_no_run_plays_without_it(tmp_path) -> None:
    outcomes = _compare(tmp_path, "guarded")
    line = ("tool word_count (word_count_tool.WordCount) is registered in the parent process only: a worker "
            "process imports only searchgym, the top level of the script, the plugin modules and its run's "
            "method; register it in a module passed as a plugin (searchgym --plugin MODULE, or "
            "SEARCHGYM_PLUGINS=MODULE), or use workers=1")
    assert outcomes == {"random": ["failed", line, False], "oracle": ["failed", line, False]}
    assert not (tmp_path / "guarded" / "runs").exists()  # refused before a run folder was made


def test_a_tool_of_a_plugin_module_reaches_the_workers(tmp_path) -> None:
    outcomes = _compare(tmp_path, "plugin")
    assert outcomes == {"random": ["done", None, True], "oracle": ["done", None, True]}
    config = json.loads((tmp_path / "plugin" / "runs" / "random" / "seed0" / "config.json").read_text())
    assert config["suite"]["registered_tools"][-1] == "word_count=word_count_plugin.WordCount"


def test_a_run_in_a_worker_lacking_a_tool_is_refused_untouched(tmp_path) -> None:
    spec = RunSpec(TINY_QA, parse_methods("random")[0], 0, 0, tmp_path, device="cpu")
    refused = run_in_worker(spec, [*tool_records(), "word_count=mypkg.WordCount"])
    assert (refused.status, refused.resumable, refused.error_file) == ("failed", False, None)
    assert refused.error == refused.advice and refused.error.startswith(
        "tool word_count (mypkg.WordCount) is registered in the parent process only: ")
    assert not (tmp_path / "runs").exists()
    assert run_in_worker(spec, tool_records()).status == "done"


def test_a_tool_the_runs_method_module_registers_is_the_workers_once_the_method_is_loaded(tmp_path, monkeypatch):
    """The parent loaded every method before the runs (registering such a tool); the worker loads its run's."""
    (tmp_path / "tool_method_mod.py").write_text(textwrap.dedent(PLUGIN) + textwrap.dedent('''
        from searchgym.harness.methods import random_method as method
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = RunSpec(TINY_QA, parse_methods("mine=tool_method_mod:method")[0], 0, 0, tmp_path / "out", device="cpu")
    try:
        with scoped_tools():
            outcome = run_in_worker(spec, [*tool_records(), "word_count=tool_method_mod.WordCount"])
    finally:
        sys.modules.pop("tool_method_mod", None)
    assert outcome.status == "done", outcome.error
