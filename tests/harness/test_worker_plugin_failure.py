"""A plugin module that a comparison's worker processes cannot import fails each run with the plugin's own
one line, not resumable, no run folder made.

Before (the Python API, with ``SEARCHGYM_PLUGINS`` naming a module the parent never imported): the pool's
initializer raised, the pool broke, a traceback was printed and every run was "a worker process died;
re-run the same command to resume", which could not help."""

from __future__ import annotations

from harness_helpers import TINY_QA

from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.plugins import PLUGINS_VARIABLE


def test_a_plugin_a_worker_cannot_import_fails_each_run_saying_so(tmp_path, monkeypatch):
    monkeypatch.setenv(PLUGINS_VARIABLE, "no_such_plugin_module_here")
    result = run_comparison(Comparison(suite=TINY_QA, methods=parse_methods("random,oracle"), seeds=[0], budget=0,
                                       out=tmp_path, device="cpu", workers=2, progress=False))
    assert sorted(o.label for o in result.outcomes) == ["oracle", "random"]
    for outcome in result.outcomes:
        assert outcome.status == "failed" and not outcome.resumable
        assert outcome.error.startswith("plugin 'no_such_plugin_module_here' (from SEARCHGYM_PLUGINS) cannot be "
                                        "imported: ModuleNotFoundError")
        assert outcome.error.endswith("(in a worker process of the comparison, which imports the modules it names)")
    assert not (tmp_path / "runs" / "random" / "seed0").exists()
