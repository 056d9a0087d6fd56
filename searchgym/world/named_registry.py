"""An ordered registry of named entries, with a live view of its names and a scope that undoes.

Tools and task families are registered in one place each (where they are defined), and every
list of their names derives from that registry. Modules import the names once
(``from searchgym.world import FAMILIES``), so :class:`NameView` reads the registry on every
use: an entry registered later is seen everywhere, and no copy of the list can go stale.
:meth:`NamedRegistry.scoped` restores the registry afterwards (for tests and experiments).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Generic, TypeVar, overload

Entry = TypeVar("Entry")


class NamedRegistry(Generic[Entry]):
    """Entries by name, listed in ``sort_key`` order (registration order among equal keys)."""

    def __init__(self, what: str, sort_key: Callable[[Entry], Any] | None = None) -> None:
        self.what = what
        self._sort_key = sort_key
        self._entries: dict[str, Entry] = {}
        self._ordered: tuple[tuple[str, Entry], ...] = ()
        #: Bumped on every change, so a cache of something derived can tell it is stale.
        self.version = 0
        self.names = NameView(self)

    def add(self, name: str, entry: Entry, replace: bool = False) -> Entry:
        """Register ``entry`` as ``name``; a taken name is an error unless ``replace``."""
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"a {self.what} name must be a Python identifier (letters, digits, '_'), got {name!r}")
        if name in self._entries and not replace:
            raise ValueError(f"{self.what} {name!r} is registered already; pass replace=True to replace it")
        self._entries[name] = entry
        self._changed()
        return entry

    def remove(self, name: str) -> None:
        self.get(name)
        del self._entries[name]
        self._changed()

    def get(self, name: str) -> Entry:
        found = self._entries.get(name)
        if found is None:
            raise ValueError(f"unknown {self.what} {name!r}; registered: {', '.join(self.names) or '(none)'}")
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def items(self) -> tuple[tuple[str, Entry], ...]:
        """(name, entry) pairs in order."""
        return self._ordered

    def values(self) -> tuple[Entry, ...]:
        return tuple(entry for _, entry in self._ordered)

    @contextmanager
    def scoped(self) -> Iterator[NamedRegistry[Entry]]:
        """Changes made inside the ``with`` block are undone when it ends."""
        saved = dict(self._entries)
        try:
            yield self
        finally:
            self._entries = saved
            self._changed()

    def _changed(self) -> None:
        pairs = list(self._entries.items())
        if self._sort_key is not None:
            pairs.sort(key=lambda pair: self._sort_key(pair[1]))  # stable: registration order breaks ties
        self._ordered = tuple(pairs)
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
