"""The simulated world: seeded, procedural, fictional (no pretrained model knows it)."""

from __future__ import annotations

from functools import lru_cache

from searchgym.world.generate import SIZES, check_seed, resolve_size
from searchgym.world.loaders import load_corpus, load_tasks, world_from_files
from searchgym.world.model import Entity, EvidenceHop, Fact, Page, Sentence, Task, WorldStats
from searchgym.world.tasks import FAMILIES
from searchgym.world.world import SPLITS, World


@lru_cache(maxsize=8)
def _cached_world(seed: int, size: str | int, bridge_shortcut_rate: float) -> World:
    return World.generate(seed=seed, size=size, bridge_shortcut_rate=bridge_shortcut_rate)


def shared_world(seed: int = 0, size: str | int = "small", bridge_shortcut_rate: float = 0.0) -> World:
    """The world for (seed, size, knobs), built once per process and shared by every env that asks."""
    seed = check_seed(seed)
    resolve_size(size)
    return _cached_world(seed, size, float(bridge_shortcut_rate))


__all__ = [
    "FAMILIES", "SIZES", "SPLITS", "Entity", "EvidenceHop", "Fact", "Page", "Sentence", "Task", "World",
    "WorldStats", "load_corpus", "load_tasks", "shared_world", "world_from_files",
]
