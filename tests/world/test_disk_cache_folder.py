"""Where the world cache cannot live, one warning says why, and the world is generated.

Before: with HOME unset and no passwd entry (containers), loading any world ended in "RuntimeError:
Could not determine home directory."; with HOME naming a missing folder the cache made that home's
.cache tree; a broken link as the cache folder was "unusable ([Errno 17] File exists: ...)", and a
file there two warnings, the second "File exists" too."""

from __future__ import annotations

import logging
import pwd

import pytest

from searchgym.world import disk_cache
from searchgym.world.disk_cache import NoHomeFolder, default_cache_dir, load_or_generate
from searchgym.world.generate import generate_world


@pytest.fixture
def cache_everything(monkeypatch):
    monkeypatch.setattr(disk_cache, "MIN_CACHED_SCALE", 0)


@pytest.fixture
def no_home(monkeypatch):
    """No HOME, no XDG_CACHE_HOME, no cache folder chosen, and no passwd entry for this user."""
    for name in ("HOME", "XDG_CACHE_HOME", disk_cache.ENV_VAR):
        monkeypatch.delenv(name, raising=False)

    def unknown(uid):
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    monkeypatch.setattr(pwd, "getpwuid", unknown)


def _warnings(caplog) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]


def test_no_home_folder_is_one_warning_and_the_world(no_home, cache_everything, caplog):
    with caplog.at_level(logging.WARNING):
        world = load_or_generate(0, "tiny")
    assert world.fingerprint == generate_world(0, "tiny").fingerprint
    [said] = _warnings(caplog)
    assert said.startswith("world cache unusable (HOME is unset and user ") and "password database" in said
    assert said.endswith(f"set {disk_cache.ENV_VAR} to a folder, or to off); generating without it")


def test_a_small_world_needs_no_home_folder(no_home, caplog):
    with caplog.at_level(logging.WARNING):
        load_or_generate(0, "tiny")  # below MIN_CACHED_SCALE: the cache's folder is never asked for
    assert _warnings(caplog) == []


def test_a_missing_home_folder_is_not_made(tmp_path, monkeypatch, cache_everything, caplog):
    home = tmp_path / "nonexistent"
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CACHE_HOME", disk_cache.ENV_VAR):
        monkeypatch.delenv(name, raising=False)
    with caplog.at_level(logging.WARNING):
        load_or_generate(0, "tiny")
    assert not home.exists()
    assert _warnings(caplog) == [f"world cache unusable (the home folder {home} does not exist, and no cache is "
                                 f"made in a missing home; set {disk_cache.ENV_VAR} to a folder, or to off); "
                                 "generating without it"]
    home.mkdir()
    assert default_cache_dir() == home / ".cache" / "searchgym" / "worlds"


def test_a_chosen_folder_needs_no_home_unless_it_starts_with_a_tilde(no_home, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # made when written, as XDG says
    assert default_cache_dir() == tmp_path / "xdg" / "searchgym" / "worlds"
    monkeypatch.setenv(disk_cache.ENV_VAR, str(tmp_path / "mine"))
    assert default_cache_dir() == tmp_path / "mine"
    monkeypatch.setenv(disk_cache.ENV_VAR, "~/worlds")
    with pytest.raises(NoHomeFolder, match="^HOME is unset"):
        default_cache_dir()
    monkeypatch.setenv(disk_cache.ENV_VAR, "~no-such-user-here/worlds")
    with pytest.raises(NoHomeFolder, match="^no user 'no-such-user-here' is known"):
        default_cache_dir()


def test_a_broken_link_as_the_folder_is_named_once(tmp_path, cache_everything, caplog):
    folder = tmp_path / "worlds"
    folder.symlink_to(tmp_path / "nothere")
    with caplog.at_level(logging.WARNING):
        world = load_or_generate(0, "tiny", folder)
    assert world.fingerprint == generate_world(0, "tiny").fingerprint
    assert _warnings(caplog) == [f"world cache folder {folder} is a broken symbolic link (to {tmp_path / 'nothere'}); "
                                 "generating without it"]
    assert not (tmp_path / "nothere").exists()


def test_a_file_as_the_folder_or_above_it_is_named_once(tmp_path, cache_everything, caplog):
    blocker = tmp_path / "afile"
    blocker.write_text("mine")
    with caplog.at_level(logging.WARNING):
        load_or_generate(0, "tiny", blocker)
        load_or_generate(0, "tiny", blocker / "worlds")
    assert _warnings(caplog) == [
        f"world cache folder {blocker} is a file, not a folder; generating without it",
        f"world cache folder {blocker / 'worlds'} cannot be made: {blocker} is a file, not a folder; generating "
        "without it"]
    assert blocker.read_text() == "mine"


@pytest.mark.parametrize("relative", ["cache", "./cache", "~/cache"])
def test_a_relative_xdg_cache_home_is_ignored(relative, tmp_path, monkeypatch):
    """The XDG Base Directory spec: a relative path there is invalid and ignored (before: a cache folder
    under whatever folder a command was run from)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv(disk_cache.ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", relative)
    assert default_cache_dir() == home / ".cache" / "searchgym" / "worlds"
    monkeypatch.setenv("XDG_CACHE_HOME", "")
    assert default_cache_dir() == home / ".cache" / "searchgym" / "worlds"
