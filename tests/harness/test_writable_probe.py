"""``check_writable``'s probe file is not named as a temp file, which another compare on the same
folder removes at each run's start (the probe then vanished before its own unlink and the folder was
called "not writable"); a probe removed by someone else still proves the folder writable."""

from __future__ import annotations

import os

from searchgym.fileio import remove_stale_temp_files
from searchgym.harness import compare


def test_a_probe_removed_by_another_process_still_proves_the_folder_writable(tmp_path, monkeypatch):
    made = []
    real_mkstemp = compare.tempfile.mkstemp

    def mkstemp(**kwargs):
        fd, path = real_mkstemp(**kwargs)
        made.append(path)
        assert remove_stale_temp_files(tmp_path) == 0  # another compare's clean-up leaves it alone
        os.unlink(path)  # ... or someone removes it anyway
        return fd, path

    monkeypatch.setattr(compare.tempfile, "mkstemp", mkstemp)
    compare.check_writable(tmp_path, [tmp_path / "runs" / "grpo" / "seed0"])
    assert made and not os.listdir(tmp_path)
