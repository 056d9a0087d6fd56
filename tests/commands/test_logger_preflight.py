"""``--logger tensorboard`` / ``wandb`` without its package is one line naming the extra, before any folder.

Before: ``compare`` made the run folders, each run failed ("--logger tensorboard needs the tensorboard
package"), an empty report was written and it advised re-running (which failed the same way); ``train``
printed its plan and left ``--out`` with config.json and .lock. The package is made missing here as an
uninstalled one is: ``sys.modules[name] = None`` makes ``find_spec`` return None and the import fail.
"""

from __future__ import annotations

import sys

import pytest
from harness_helpers import TINY_QA, compare_args

from searchgym.cli import main

MODULES = {"tensorboard": ("tensorboard", "torch.utils.tensorboard"), "wandb": ("wandb",)}


def missing(monkeypatch, logger: str) -> None:
    for name in MODULES[logger]:
        monkeypatch.setitem(sys.modules, name, None)


@pytest.mark.parametrize("logger", ["tensorboard", "wandb"])
def test_compare_refuses_a_missing_logger_before_any_folder(tmp_path, monkeypatch, capsys, logger):
    missing(monkeypatch, logger)
    out = tmp_path / "cmp"
    code = main([*compare_args("random"), "--logger", logger, "--out", str(out)])
    assert not out.exists()  # before: runs/, error.txt, an empty results.md, summary.csv and plot
    assert code == 2
    assert capsys.readouterr().err.strip() == f"--logger {logger} needs {logger}: pip install 'searchgym[{logger}]'"


@pytest.mark.parametrize("logger", ["tensorboard", "wandb"])
def test_train_refuses_a_missing_logger_before_the_plan_and_the_folder(tmp_path, monkeypatch, capsys, logger):
    missing(monkeypatch, logger)
    out = tmp_path / "run"
    code = main(["train", "--method", "random", "--env", TINY_QA.env_id, "--world-size", "tiny", "--test-size", "2",
                 "--budget", "0", "--device", "cpu", "--no-progress", "--logger", logger, "--out", str(out)])
    printed = capsys.readouterr()
    assert not out.exists()  # before: config.json and .lock
    assert "searchgym train:" not in printed.out  # no plan
    assert code == 2
    assert printed.err.strip() == f"--logger {logger} needs {logger}: pip install 'searchgym[{logger}]'"


def test_an_installed_logger_is_not_refused(tmp_path, capsys):
    pytest.importorskip("tensorboard")
    out = tmp_path / "cmp"
    assert main([*compare_args("random"), "--logger", "tensorboard", "--out", str(out)]) == 0
    assert (out / "runs" / "random" / "seed0" / "DONE").is_file()
