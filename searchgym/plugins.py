"""A user's own modules that register tools, task families, env ids, methods or suites, imported by name.

A registration lives in the process that ran it. The ``searchgym`` command, and the worker processes
of ``compare --workers N`` (started with "spawn": they run only searchgym and the top level of the
caller's script), see a user's additions only when they import the module that makes them. The
modules named in :data:`PLUGINS_VARIABLE` (comma-separated) or with ``searchgym --plugin MODULE``
are those; only named modules are imported (no entry-point scanning). The command puts its
``--plugin`` modules into the variable, so that its child processes, which inherit it, import them too.
"""

from __future__ import annotations

import importlib
import os
import re
import traceback
from collections.abc import Iterable

#: The environment variable naming the modules to import: ``SEARCHGYM_PLUGINS=mypkg.tools,mypkg.methods``.
PLUGINS_VARIABLE = "SEARCHGYM_PLUGINS"
#: A dotted module name (``mypkg.methods``), what ``import`` accepts.
MODULE_NAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
#: How a process imports a user's registering module: what an error about a missing registration says.
LOAD_PLUGIN = f"searchgym --plugin MODULE, or {PLUGINS_VARIABLE}=MODULE"


class PluginError(ValueError):
    """A named module that is not a module name or that raised while it was imported (one line)."""


def plugin_names(text: str | None, source: str = PLUGINS_VARIABLE) -> list[str]:
    """The module names of a comma-separated ``text`` (empty entries skipped), each checked to be a
    dotted module name; ``source`` (where the text came from) is named in the error."""
    names = [name.strip() for name in (text or "").split(",") if name.strip()]
    for name in names:
        if not MODULE_NAME.match(name):
            raise PluginError(f"plugin {name!r} (from {source}) is not a module name; give a dotted Python "
                              f"module name such as mypkg.plugin (several: comma-separated)")
    return names


def environment_plugins() -> list[str]:
    """The modules named in :data:`PLUGINS_VARIABLE` of this process's environment."""
    return plugin_names(os.environ.get(PLUGINS_VARIABLE))


def import_plugins(names: Iterable[str], source: str = PLUGINS_VARIABLE) -> None:
    """Import each module of ``names`` in order (one already imported is not run again). A module
    that cannot be imported, or raises while it registers, is a :class:`PluginError` naming it and
    the error, and where the error was raised when that was inside the module's own code."""
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as exc:  # a plugin's own error is one line, never a traceback
            raise PluginError(f"plugin {name!r} (from {source}) cannot be imported: {_one_line(exc)}"
                              f"{_raised_at(exc, name)}") from exc


def export_plugins(names: Iterable[str]) -> None:
    """Add ``names`` to :data:`PLUGINS_VARIABLE` in this process's environment (after the modules it
    already names, without repeats), so that child processes import them too."""
    merged = list(dict.fromkeys([*environment_plugins(), *names]))
    if merged:
        os.environ[PLUGINS_VARIABLE] = ",".join(merged)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _raised_at(exc: BaseException, name: str) -> str:
    """`` (at FILE:LINE)``, the last frame of the traceback outside importlib, unless the module itself
    was not found (then where to put it)."""
    missing = exc.name if isinstance(exc, ModuleNotFoundError) else None
    if missing is not None and (name + ".").startswith(missing + "."):
        return "; install it, or put its folder on PYTHONPATH"
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if "importlib" not in f.filename and f.filename != __file__]
    return f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
