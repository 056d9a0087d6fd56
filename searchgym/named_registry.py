"""The one registry class of searchgym: every table of names (tools, task families, env ids,
suites, methods, estimators, losses, aggregations, encoders, loggers, agent providers) is one.

One collision rule (a taken name is an error unless ``replace=True``), one error for an unknown
name (it lists the accepted ones), lazy ``"module:attr"`` entries (:meth:`NamedRegistry.load`
imports one when it is first used, so a table can name what lives in a higher layer or an
optional install), and :meth:`NamedRegistry.scoped`, which undoes every change made inside it
(for tests and experiments). Modules import a registry's names once
(``from searchgym.world import FAMILIES``), so :class:`NameView` reads the registry on every
use: an entry registered later is seen everywhere, and no copy of the list can go stale.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Generic, TypeVar, overload

Entry = TypeVar("Entry")
#: What a lazy entry looks like: ``"package.module:attribute"``.
IMPORT_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
#: Names of tables whose names are not Python identifiers (``seq-mean-token-mean``, ``SearchQA-v0``).
SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")


class UnknownNameError(ValueError, KeyError):
    """An unknown name (a ValueError for callers, a KeyError for ``registry[name]``)."""

    __str__ = ValueError.__str__


class NamedRegistry(Generic[Entry]):
    """Entries by name, listed in ``sort_key`` order (registration order among equal keys).

    ``name_pattern``: the names it accepts (default: Python identifiers; :data:`SLUG` for names
    with dashes or dots).
    """

    def __init__(self, what: str, sort_key: Callable[[Entry], Any] | None = None,
                 name_pattern: re.Pattern[str] | None = None) -> None:
        self.what = what
        self._sort_key = sort_key
        self._name_pattern = name_pattern
        self._entries: dict[str, Entry] = {}
        self._ordered: tuple[tuple[str, Entry], ...] = ()
        #: Bumped on every change, so a cache of something derived can tell it is stale.
        self.version = 0
        self.names = NameView(self)

    def add(self, name: str, entry: Entry, replace: bool = False) -> Entry:
        """Register ``entry`` as ``name``; a taken name is an error unless ``replace``."""
        if self._name_pattern is None:
            if not isinstance(name, str) or not name.isidentifier():
                raise ValueError(f"a {self.what} name must be a Python identifier (letters, digits, '_'), got {name!r}")
        elif not isinstance(name, str) or not self._name_pattern.match(name):
            raise ValueError(f"a {self.what} name must match {self._name_pattern.pattern}, got {name!r}")
        if name in self._entries and not replace:
            raise ValueError(f"{self.what} {name!r} is already registered; pass replace=True to replace it")
        entries = {**self._entries, name: entry}
        ordered = self._order(entries)  # first: an entry its sort key cannot place is not left half-registered
        self._entries, self._ordered = entries, ordered
        self.version += 1
        return entry

    def remove(self, name: str) -> None:
        self.get(name)
        del self._entries[name]
        self._changed()

    def get(self, name: str) -> Entry:
        """The entry of ``name``; an unknown name is an error that lists the accepted ones."""
        if not isinstance(name, str) or name not in self._entries:
            raise UnknownNameError(f"unknown {self.what} {name!r}; accepted: {', '.join(self.names) or '(none)'}")
        return self._entries[name]

    __getitem__ = get

    def find(self, name: str) -> Entry | None:
        """The entry of ``name``, or None (for callers that have a fallback)."""
        return self._entries.get(name) if isinstance(name, str) else None

    def load(self, name: str) -> Any:
        """The entry of ``name``, a lazy ``"module:attr"`` entry imported (with an error saying what failed)."""
        entry = self.get(name)
        if not (isinstance(entry, str) and IMPORT_PATH.match(entry)):
            return entry
        module_name, _, attr = entry.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not (module_name == exc.name or module_name.startswith(exc.name + ".")):
                raise  # the module is there but needs a package that is not (an extra): say that
            raise ValueError(f"{self.what} {name!r} ({entry}) cannot be imported: {exc}") from exc
        if not hasattr(module, attr):
            raise ValueError(f"{self.what} {name!r} ({entry}): module {module_name!r} has no {attr!r}")
        return getattr(module, attr)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def items(self) -> tuple[tuple[str, Entry], ...]:
        """(name, entry) pairs in order."""
        return self._ordered

    def values(self) -> tuple[Entry, ...]:
        return tuple(entry for _, entry in self._ordered)

    def keys(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self._ordered)

    def __repr__(self) -> str:
        return f"NamedRegistry({self.what!r}: {', '.join(self.names)})"

    @contextmanager
    def scoped(self) -> Iterator[NamedRegistry[Entry]]:
        """Changes made inside the ``with`` block are undone when it ends."""
        saved = dict(self._entries)
        try:
            yield self
        finally:
            self._entries = saved
            self._changed()

    def _order(self, entries: dict[str, Entry]) -> tuple[tuple[str, Entry], ...]:
        pairs = list(entries.items())
        if self._sort_key is not None:
            pairs.sort(key=lambda pair: self._sort_key(pair[1]))  # stable: registration order breaks ties
        return tuple(pairs)

    def _changed(self) -> None:
        self._ordered = self._order(self._entries)
        self.version += 1


class NameView(Sequence[str]):
    """The registry's names in order, read afresh on every use (compares equal to that tuple)."""

    def __init__(self, registry: NamedRegistry[Any]) -> None:
        self._registry = registry

    def _names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self._registry.items())

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...
    def __getitem__(self, index):
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._registry.items())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __contains__(self, name: object) -> bool:
        return name in self._registry

    def __eq__(self, other: object) -> bool:
        if isinstance(other, NameView | tuple | list):
            return self._names() == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  (it changes when the registry does)

    def __add__(self, other: Sequence[str]) -> tuple[str, ...]:
        return self._names() + tuple(other)

    def __repr__(self) -> str:
        return repr(self._names())

    def __reduce__(self) -> tuple[type, tuple[tuple[str, ...]]]:
        return tuple, (self._names(),)  # pickled (for a worker process) as the names of now
