"""Matplotlib is given a writable folder when its own cannot be used, so plotting prints no warning.

Before: with an unwritable home (HOME=/nonexistent) every command that plots printed matplotlib's
warnings about its config and cache folders; as root, matplotlib made /nonexistent/.config instead."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from searchgym.harness.matplotlib_folder import give_matplotlib_a_writable_folder

pytest.importorskip("matplotlib")
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="a home folder under a file is a POSIX path")

PLOT = ("import sys; from searchgym.harness.plots import plot_learning_curves; "
        "plot_learning_curves({'a': [[(0, 0.1), (10, 0.5)]]}, {'oracle': 1.0}, sys.argv[1])")


@pytest.fixture
def private_env(tmp_path, monkeypatch):
    """No MPLCONFIGDIR nor XDG folders set (restored after the test), temporary folders in tmp_path/tmp."""
    for name in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, "")  # so that monkeypatch restores it, set or not, after the test
        monkeypatch.delenv(name)
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    return tmp_path


@posix_only
def test_plotting_with_an_unwritable_home_prints_nothing_and_leaves_nothing(tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    (tmp_path / "tmp").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
    env.update(HOME=str(tmp_path / "a-file" / "home"), TMPDIR=str(tmp_path / "tmp"))
    done = subprocess.run([sys.executable, "-c", PLOT, str(tmp_path / "c.png")], env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"
    assert list((tmp_path / "tmp").iterdir()) == []  # the temporary folder is removed at exit


@posix_only
@pytest.mark.parametrize("home_below", ["a-file/home", "missing-home"])
def test_an_unusable_or_missing_home_gets_a_temporary_folder(private_env, monkeypatch, home_below):
    (private_env / "a-file").write_text("not a folder")
    home = private_env / home_below
    monkeypatch.setenv("HOME", str(home))
    folder = give_matplotlib_a_writable_folder()
    assert folder is not None and os.environ["MPLCONFIGDIR"] == folder
    assert Path(folder).parent == private_env / "tmp" and Path(folder).is_dir()
    assert not home.exists()  # a missing home is not made (matplotlib made it when it could, as root)


@posix_only
def test_a_writable_home_or_a_users_own_folder_is_left_to_matplotlib(private_env, monkeypatch):
    home = private_env / "home"
    home.mkdir()  # no .config nor .cache yet: matplotlib makes them
    monkeypatch.setenv("HOME", str(home))
    assert give_matplotlib_a_writable_folder() is None
    assert "MPLCONFIGDIR" not in os.environ and not (home / ".config").exists()
    monkeypatch.setenv("HOME", str(private_env / "missing-home"))
    monkeypatch.setenv("MPLCONFIGDIR", "/their/own")  # the user's choice, whatever it is
    assert give_matplotlib_a_writable_folder() is None
    assert os.environ["MPLCONFIGDIR"] == "/their/own"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="matplotlib reads XDG folders on Linux")
def test_an_unusable_xdg_cache_folder_gets_a_temporary_folder(private_env, monkeypatch):
    (private_env / "home").mkdir()
    (private_env / "a-file").write_text("not a folder")
    monkeypatch.setenv("HOME", str(private_env / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(private_env / "config"))
    assert give_matplotlib_a_writable_folder() is None
    monkeypatch.setenv("XDG_CACHE_HOME", str(private_env / "a-file" / "cache"))
    assert give_matplotlib_a_writable_folder() == os.environ["MPLCONFIGDIR"]
