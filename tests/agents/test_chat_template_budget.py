"""A model folder's chat template is rendered by the preflight within a budget of steps and seconds.

Before: jinja2's sandbox caps each ``range`` at 100,000 but not loops in loops, so a template of
``{% for i in range(100000) %}{% for j in range(100000) %}...`` kept ``train --policy llm``'s
preflight (``_check_rendering``) busy without end."""

from __future__ import annotations

import shutil
import sys
import time

import pytest

pytest.importorskip("transformers")

from searchgym.agents.model_source import check_model_source

from searchgym.cli import main

LOOPS = ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
         "{% for m in messages %}{{ m.content }}{% endfor %}")
#: a loop of a few thousand steps: far below the budget, as a release's template is
SHORT_LOOP = "{% for i in range(2000) %}{% endfor %}{% for m in messages %}{{ m.content }}{% endfor %}"


def _folder(good_model, tmp_path, template: str):
    folder = tmp_path / "model"
    shutil.copytree(good_model, folder)
    (folder / "chat_template.jinja").write_text(template)
    return folder


@pytest.mark.timeout(120)  # the old preflight never returned
def test_loops_in_loops_are_refused_in_one_line_within_seconds(good_model, tmp_path, capsys):
    folder = _folder(good_model, tmp_path, LOOPS)
    tracer = sys.gettrace()
    start = time.monotonic()
    code = main(["train", "--policy", "llm", "--model", str(folder), "--method", "grpo", "--env", "SearchQA-v0",
                 "--budget", "16", "--world-size", "tiny", "--test-size", "1", "--out", str(tmp_path / "run"),
                 "--no-progress"])
    elapsed = time.monotonic() - start
    [line] = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and not (tmp_path / "run").exists()
    assert f"{folder / 'chat_template.jinja'}: holds a chat template that does not finish rendering" in line, line
    assert "within 1,000,000 steps or 2 s" in line
    assert elapsed < 30 and sys.gettrace() is tracer  # the trace function there before is put back


def test_a_short_loop_and_the_folder_s_own_template_still_render(good_model, tmp_path):
    check_model_source(str(good_model))
    check_model_source(str(_folder(good_model, tmp_path, SHORT_LOOP)))
