"""`searchgym report` of runs made with a plugin's registrations (a tool, an env id), in a process without
them, says in one line what it lacks and how to load it. Before: "unknown suite 'plugin-tools-v0'" for a
plugin's suite, "their scores are not on this suite" for a built-in one, and "damaged file: ... holds a
suite definition searchgym cannot read" for a plugin's env id; the runs were intact."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from harness_helpers import TINY_QA, WORD_COUNT_CALLS, compare_args, word_count_spec

from searchgym.cli import main
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.registry import ENV_IDS, register
from searchgym.suites import Suite
from searchgym.tools import register_tool, scoped_tools

pytestmark = pytest.mark.timeout(300)
LOAD = ("load the module that registers them, as the process that made the runs did (searchgym --plugin MODULE, "
        "or SEARCHGYM_PLUGINS=MODULE), and report again")
PLUGIN = '''
    from typing import Any

    from searchgym.suites import Suite, register_suite
    from searchgym.tools import FixedCall, Tool, ToolResult, ToolSpec, register_tool


    class WordCount(Tool):
        name = "word_count"
        description = "Count the words of a text."
        parameters: dict[str, Any] = {"type": "object", "properties": {"text": {"type": "string"}}}

        def run(self, text: str = "") -> ToolResult:
            return ToolResult(text=f"{len(text.split())} words")


    register_tool(ToolSpec("word_count", WordCount, build=lambda world, options: WordCount(),
                           candidates=FixedCall((("text", "{name}"),))))
    register_suite(Suite("plugin-tools-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4}, world_size="tiny",
                         families=["lookup"], dev_size=2, test_size=3, description="a plugin's suite"))
'''




def _register_word_count() -> None:
    register_tool(word_count_spec(candidates=WORD_COUNT_CALLS))


def _searchgym(args: list[str], cwd: Path, plugins: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "SEARCHGYM_PLUGINS"}
    env["PYTHONPATH"] = str(cwd / "plugins")
    if plugins is not None:
        env["SEARCHGYM_PLUGINS"] = plugins
    return subprocess.run([sys.executable, "-m", "searchgym", *args], cwd=cwd, env=env, check=False,
                          capture_output=True, text=True, timeout=300)


def _report(out: Path, capsys) -> tuple[int, str]:
    capsys.readouterr()
    rc = main(["report", "--out", str(out)])
    return rc, capsys.readouterr().err.strip()


def test_a_report_without_the_plugin_names_its_tool_and_how_to_load_it(tmp_path) -> None:
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "report_tool_plugin.py").write_text(textwrap.dedent(PLUGIN))
    out = tmp_path / "runs"
    made = _searchgym(["--plugin", "report_tool_plugin", "compare", "--suite", "plugin-tools-v0", "--methods",
                       "random", "--budget", "0", "--device", "cpu", "--no-progress", "--out", str(out)], tmp_path)
    assert made.returncode == 0, made.stderr[-3000:]
    plain = _searchgym(["report", "--out", str(out)], tmp_path)
    assert plain.returncode == 2 and plain.stdout == ""
    assert plain.stderr.strip().splitlines() == [
        f"searchgym report: error: the runs in {out} were made with registrations this process lacks: tool "
        f"word_count (report_tool_plugin.WordCount); load the module that registers them, as the process that "
        "made the runs did (searchgym --plugin report_tool_plugin), and report again"]  # config.json names it
    with_option = _searchgym(["--plugin", "report_tool_plugin", "report", "--out", str(out)], tmp_path)
    assert with_option.returncode == 0, with_option.stderr[-3000:]
    with_variable = _searchgym(["report", "--out", str(out)], tmp_path, plugins="report_tool_plugin")
    assert with_variable.returncode == 0, with_variable.stderr[-3000:]


def test_runs_of_a_built_in_suite_made_with_a_users_tool(tmp_path, capsys) -> None:
    out = tmp_path / "out"
    with scoped_tools():
        _register_word_count()
        assert main([*compare_args("random"), "--out", str(out)]) == 0
        assert _report(out, capsys)[0] == 0  # with the tool: as the comparison's own report
    rc, err = _report(out, capsys)
    assert rc == 2 and err == (f"searchgym report: error: the runs in {out} were made with registrations this "
                               f"process lacks: tool word_count (harness_helpers.WordCount); {LOAD}")


def test_runs_played_without_a_tool_this_process_registers(tmp_path, capsys) -> None:
    out = tmp_path / "out"
    assert main([*compare_args("random"), "--out", str(out)]) == 0
    with scoped_tools():
        _register_word_count()
        rc, err = _report(out, capsys)
    assert rc == 2 and err == (f"searchgym report: error: the runs in {out} were played without tools this "
                               f"process registers: word_count (harness_helpers.WordCount); report without the module that "
                               "registers them (--plugin, SEARCHGYM_PLUGINS)")


def test_runs_on_an_env_id_this_process_has_not_registered(tmp_path, capsys) -> None:
    out = tmp_path / "out"
    suite = Suite("test-plugin-env-v0", 0, "Test-PluginEnv-v0", {"max_steps": 4}, world_size="tiny",
                  families=["lookup"], dev_size=2, test_size=3)
    with ENV_IDS.scoped():
        register("Test-PluginEnv-v0", "searchgym.envs.search:SearchEnv", action_mode="candidates")
        run_comparison(Comparison(suite=suite, methods=parse_methods("random"), seeds=[0], budget=0, out=out,
                                  device="cpu", progress=False))
    rc, err = _report(out, capsys)
    assert rc == 2 and err == (f"searchgym report: error: the runs in {out} were made with registrations this "
                               f"process lacks: env id 'Test-PluginEnv-v0'; {LOAD}")


def test_a_handed_over_list_of_tools_is_shown_escaped_and_cut(tmp_path, capsys) -> None:
    out = tmp_path / "out"
    assert main([*compare_args("random"), "--out", str(out)]) == 0
    config = out / "runs" / "random" / "seed0" / "config.json"
    record = json.loads(config.read_text())
    record["suite"]["registered_tools"] = [f"t{i}=evil\x1b[2J.Tool" for i in range(8)]
    config.write_text(json.dumps(record | {"suite_hash": "0" * 64}))
    rc, err = _report(out, capsys)
    assert rc == 2 and "\n" not in err and "\x1b" not in err, err
    assert "lacks: tool t0 (evil\\x1b[2J.Tool), " in err and "tool t4 (evil\\x1b[2J.Tool) and 3 more; load" in err
    assert TINY_QA.id not in err
