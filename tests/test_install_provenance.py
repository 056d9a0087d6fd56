"""What an install from a wheel records and holds (new-user review).

Before: a run from a wheel recorded ``"git": {"revision": "unknown"}`` and nothing beside it that told
two wheels apart (every commit is version 0.1.0); and building the wheel warned "Package
'searchgym.assets' is absent from the packages configuration ... would be ignored" (the schema and
the chat tokenizer were shipped only because setuptools still included the data folder).
"""

from __future__ import annotations

import fnmatch
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from searchgym.harness.provenance import git_revision, installed_package, provenance

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ("leaderboard_schema.json", "chat_tokenizer.json")


def test_a_run_records_the_installed_version_beside_the_git_revision() -> None:
    record = provenance("cpu")
    try:
        version = importlib.metadata.version("searchgym")
    except importlib.metadata.PackageNotFoundError:
        version = "not installed"
    assert record["install"]["version"] == version
    assert set(record["install"]) == {"version", "editable", "vcs_commit", "files_sha256"}
    assert record["git"] == git_revision() and record["packages"]["searchgym"] == version  # as before


def _dist(folder: Path, record: list[str], direct: dict | None = None) -> importlib.metadata.Distribution:
    info = folder / "searchgym-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: searchgym\nVersion: 0.1.0\n")
    (info / "RECORD").write_text("\n".join(record) + "\n")
    if direct is not None:
        (info / "direct_url.json").write_text(json.dumps(direct))
    return importlib.metadata.PathDistribution(info)


WHEEL = ["searchgym/__init__.py,sha256=AAA,10", "searchgym/cli.py,sha256=BBB,20",
         "searchgym/__pycache__/cli.cpython-311.pyc,,", "searchgym-0.1.0.dist-info/RECORD,,",
         "searchgym-0.1.0.dist-info/INSTALLER,sha256=CCC,4", "../../../bin/searchgym,sha256=DDD,227"]


def test_two_wheels_of_one_version_are_told_apart_by_their_files(tmp_path) -> None:
    one = installed_package(_dist(tmp_path / "a", WHEEL))
    assert one["version"] == "0.1.0" and one["editable"] is False and one["vcs_commit"] == ""
    assert len(one["files_sha256"]) == 64
    # the same package files, listed in another order, compiled or not, installed by another tool: the same
    same = [WHEEL[1], WHEEL[0], "searchgym-0.1.0.dist-info/INSTALLER,sha256=EEE,2"]
    assert installed_package(_dist(tmp_path / "b", same))["files_sha256"] == one["files_sha256"]
    other = installed_package(_dist(tmp_path / "c", [WHEEL[0], "searchgym/cli.py,sha256=XXX,20"]))
    assert other["version"] == one["version"] and other["files_sha256"] != one["files_sha256"]


def test_a_vcs_or_editable_install_says_so(tmp_path) -> None:
    vcs = installed_package(_dist(tmp_path / "v", WHEEL, {"url": "https://example.org/searchgym.git",
                                                          "vcs_info": {"vcs": "git", "commit_id": "abc123"}}))
    assert vcs["vcs_commit"] == "abc123" and vcs["files_sha256"]
    editable = installed_package(_dist(tmp_path / "e", WHEEL, {"url": "file:///src", "dir_info": {"editable": True}}))
    assert editable["editable"] is True and editable["files_sha256"] == ""  # its files are the checkout's: git says
    damaged = _dist(tmp_path / "d", WHEEL)
    (tmp_path / "d" / "searchgym-0.1.0.dist-info" / "direct_url.json").write_text("{cut")
    assert installed_package(damaged)["version"] == "0.1.0"  # provenance never fails a run
    assert installed_package("no-such-distribution-xyz")["version"] == "not installed"


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_the_assets_are_a_declared_package_with_their_data() -> None:
    config = _setuptools()
    assert "searchgym.assets" in config["packages"]
    patterns = config["package-data"]["searchgym.assets"]
    for name in ASSETS:
        assert (ROOT / "searchgym" / "assets" / name).is_file()
        assert any(fnmatch.fnmatch(name, p) for p in patterns), f"{name} is not package data"


@pytest.mark.slow
def test_the_wheel_builds_without_the_absent_package_warning(tmp_path) -> None:
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "runs", "*.egg-info", "__pycache__", ".pytest_cache", ".searchgym_cache",
        "tests", "leaderboard", "docs", "benchmarks"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    built = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path / "d"),
                            str(source)], check=False, capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert built.returncode == 0, built.stderr[-3000:]
    assert "absent from the `packages` configuration" not in built.stdout + built.stderr
    (wheel,) = (tmp_path / "d").glob("searchgym-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert all(f"searchgym/assets/{name}" in names for name in ASSETS)
