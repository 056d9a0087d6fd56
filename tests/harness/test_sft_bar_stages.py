"""The base's bar draws each stage's counts: tqdm's dynamic ``miniters`` does not outlive a stage.

Before: after a stage of many quick steps (the demonstrations) tqdm had raised ``miniters`` to ~30, which
``bar.reset()`` kept, so the epoch bar of 16 was never redrawn and stood at 0/16 for the whole fit."""

from __future__ import annotations

import time

from searchgym.harness.progress_base import BaseProgress


def test_the_epoch_stage_is_drawn_after_a_stage_of_many_quick_steps(tmp_path, capsys, monkeypatch):
    shown = BaseProgress(tmp_path, 0, "quick-v2", "0123456789abcdef", 0, bar=True)
    shown.bar.mininterval = 0.01  # as tqdm's 0.1 s, only quicker to test
    shown.start("demonstrations", 3000)
    shown.step(1)
    shown.bar.miniters = 32  # what tqdm's dynamic miniters reaches after many quick steps (set: no timing)
    capsys.readouterr()
    shown.start("epoch", 16, round=0, unit="epoch")
    shown.step(0)
    for epoch in range(1, 6):  # slow steps, as a fit's epochs are
        time.sleep(0.02)
        shown.step(epoch)
    err = capsys.readouterr().err
    shown.close()
    assert "epoch" in err and "3/16" in err and "5/16" in err
