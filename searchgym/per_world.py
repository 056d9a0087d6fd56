"""One value per world for every env of the process: the memos whose content depends only on the
world, which the dozens of envs a trainer runs on one world share instead of each filling its own.

At most ``limit`` keys are kept; the oldest is dropped first. Keys hold their world, so a process
that builds many worlds keeps at most ``limit`` of them alive through these memos."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

Value = TypeVar("Value")


class PerWorld(Generic[Value]):
    """``get(key)`` builds ``make(key)`` once per key (a world, or a world and a setting)."""

    def __init__(self, make: Callable[[Hashable], Value], limit: int = 16) -> None:
        self._make, self._limit = make, limit
        self._values: dict[Hashable, Value] = {}

    def get(self, key: Hashable) -> Value:
        found = self._values.get(key)
        if found is None:
            if len(self._values) >= self._limit:
                del self._values[next(iter(self._values))]
            found = self._values[key] = self._make(key)
        return found

    def values(self) -> list[Value]:
        return list(self._values.values())
