"""Where a number came from: package versions, git revision, device, Python and platform."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

from searchgym.devices import check_device, resolve_device

#: Distributions whose versions a run records (missing ones are recorded as "not installed").
PACKAGES = ("searchgym", "numpy", "torch", "gymnasium", "pettingzoo", "bm25s", "rank-bm25", "rapidfuzz",
            "sentence-transformers", "transformers", "matplotlib", "pandas", "jsonschema", "tqdm")



def package_versions(packages: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    versions = {}
    for name in packages:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


#: The searchgym package folder this module belongs to.
PACKAGE = Path(__file__).resolve().parents[1]


def git_revision(folder: str | os.PathLike | None = None) -> dict[str, object]:
    """``{"revision": sha or "unknown", "dirty": bool | None}`` of the repo holding searchgym.

    Without ``folder``, only a repository whose own ``searchgym/`` is this package counts. Why: an
    installed package lives in a virtualenv, often inside some project's repository, and that
    project's revision was recorded as searchgym's (and submitted to the leaderboard as such).
    Read-only: ``--no-optional-locks`` keeps ``git status`` from refreshing the index.
    """
    own = folder is None
    folder = Path(folder) if folder else PACKAGE.parent
    try:
        sha, *top = subprocess.run(["git", "rev-parse", "HEAD", "--show-toplevel"], cwd=folder, capture_output=True,
                                   text=True, timeout=10, check=True).stdout.split("\n")
        sha = sha.strip()
        if own and not (top and top[0].strip() and (Path(top[0].strip()) / "searchgym").resolve() == PACKAGE):
            return {"revision": "unknown", "dirty": None}
        status = subprocess.run(["git", "--no-optional-locks", "status", "--porcelain", "--untracked-files=no"],
                                cwd=folder, capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {"revision": "unknown", "dirty": None}
    return {"revision": sha or "unknown", "dirty": bool(status.strip())}


def installed_package(distribution: str | importlib.metadata.Distribution = "searchgym") -> dict[str, object]:
    """What the installed package is, beside :func:`git_revision` (``"unknown"`` for an install from a
    wheel): its version (importlib.metadata; ``"not installed"`` for a source tree on sys.path),
    whether it is an editable install, the commit pip installed it from (a ``git+`` URL's, from
    PEP 610's ``direct_url.json``; ``""`` otherwise), and ``files_sha256``, a SHA-256 over the
    hashes its ``RECORD`` lists for the package's own files (``""`` for an editable install, whose
    files are the checkout's). Why: every commit is version 0.1.0, so two wheels of different
    code were told apart by nothing. Never fails a run: an unreadable part is left empty."""
    try:
        dist = (importlib.metadata.distribution(distribution) if isinstance(distribution, str) else distribution)
    except importlib.metadata.PackageNotFoundError:
        return {"version": "not installed", "editable": False, "vcs_commit": "", "files_sha256": ""}
    record: dict[str, object] = {"version": str(dist.version), "editable": False, "vcs_commit": "",
                                 "files_sha256": ""}
    try:
        direct = json.loads(dist.read_text("direct_url.json") or "{}")
        record["editable"] = bool((direct.get("dir_info") or {}).get("editable"))
        record["vcs_commit"] = str((direct.get("vcs_info") or {}).get("commit_id") or "")
    except (ValueError, AttributeError, OSError):
        pass
    try:  # the package's files with a hash (not the .pyc files pip compiled, listed without one)
        package = f"{str(dist.metadata['Name']).replace('-', '_')}/"
        rows = sorted(line for line in (dist.read_text("RECORD") or "").splitlines()
                      if line.startswith(package) and line.split(",")[1:2] not in ([""], []))
        if rows and not record["editable"]:
            record["files_sha256"] = hashlib.sha256("\n".join(rows).encode()).hexdigest()
    except (OSError, KeyError, TypeError, AttributeError):
        pass
    return record


def run_device(device: str, trains: bool) -> str:
    """The device a run uses: :func:`resolve_device`'s, except that a method that trains nothing (the
    baselines, an agent played through an endpoint) runs on the CPU where ``cuda`` was asked for and no
    GPU is visible. Why: Ray gives such a run no GPU and hides every GPU from its task, so under
    ``--executor ray --device cuda`` each baseline run failed with "torch sees no CUDA GPU", as a
    failure a re-run could not fix; its method never asked for a GPU."""
    check_device(device)  # a misspelt device is refused, whatever the method
    try:
        return resolve_device(device)
    except ValueError:
        if trains or not device.startswith("cuda"):
            raise
        return "cpu"


def device_name(device: str) -> str:
    """A human name of the device: the GPU's name, or the CPU model and core count."""
    if device.startswith("cuda"):
        try:
            import torch

            index = int(device.split(":")[1]) if ":" in device else 0
            return torch.cuda.get_device_name(index)
        except Exception:  # noqa: BLE001 - provenance must never fail a run
            return device
    return f"{cpu_model()} ({os.cpu_count()} logical cores)"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def compute_record() -> dict[str, object]:
    """What decides the bits of a run's floating-point results on this machine.

    Same seed and same code give byte-identical runs on one machine; across machines, torch may
    dispatch its CPU kernels to another instruction set (``cpu_capability``: AVX2, AVX512,
    default...) or run them on another number of threads, which changes sums in the last bits
    (about 1e-7 in a loss); sampling then diverges after tens of iterations. Recorded so that
    two runs that differ can be told apart from a bug.
    """
    record: dict[str, object] = {"cpu_model": cpu_model(), "logical_cores": os.cpu_count()}
    try:
        import numpy
        import torch

        record.update({
            "torch": torch.__version__, "numpy": numpy.__version__,
            "cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "torch_threads": torch.get_num_threads(), "torch_interop_threads": torch.get_num_interop_threads(),
            "ATEN_CPU_CAPABILITY": os.environ.get("ATEN_CPU_CAPABILITY", ""),
            "cuda": torch.version.cuda or "",
            "cudnn": str(torch.backends.cudnn.version() or "") if torch.cuda.is_available() else "",
        })
    except Exception as exc:  # noqa: BLE001 - provenance must never fail a run
        record["error"] = f"{type(exc).__name__}: {exc}"
    return record


def provenance(device: str) -> dict[str, object]:
    """Everything a config.json records about the machine and the code."""
    return {
        "device": device,
        "device_name": device_name(device),
        "compute": compute_record(),
        "packages": package_versions(),
        "git": git_revision(),
        "install": installed_package(),  # a wheel's version and fingerprint, where git says "unknown"
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "plugins": recorded_plugins(),  # a report elsewhere names the modules to load (commands/report.py)
    }


def recorded_plugins() -> list[str]:
    """The user's modules this process imported for its registrations (``--plugin``, ``SEARCHGYM_PLUGINS``),
    as config.json records them; [] where the variable names none or is not a list of module names."""
    from searchgym.plugins import PluginError, environment_plugins

    try:
        return environment_plugins()
    except PluginError:
        return []
