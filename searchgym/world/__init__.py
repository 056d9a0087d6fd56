"""The simulated world: seeded, procedural, fictional (no pretrained model knows it)."""

from __future__ import annotations

from functools import lru_cache

from searchgym.world.generate import SIZES, check_seed, resolve_size
from searchgym.world.loaders import load_corpus, load_tasks, world_from_files
from searchgym.world.model import Entity, EvidenceHop, Fact, Page, Sentence, Task, WorldStats
from searchgym.world.tasks import FAMILIES
from searchgym.world.world import SPLITS, World


@lru_cache(maxsize=8)
def _cached_world(seed: int, size: str | int) -> World:
    return World.generate(seed=seed, size=size)


_ADOPTED: dict[tuple[int, str | int], World] = {}


def shared_world(seed: int = 0, size: str | int = "small") -> World:
    """The world for (seed, size), built once per process and shared by every env that asks."""
    seed = check_seed(seed)
    resolve_size(size)
    adopted = _ADOPTED.get((seed, size))
    return adopted if adopted is not None else _cached_world(seed, size)


def adopt_world(world: World, seed: int, size: str | int) -> None:
    """Serve ``world`` (built by another process, e.g. from Ray's object store) as (seed, size)."""
    if world.seed != check_seed(seed):
        raise ValueError(f"adopt_world: the world has seed {world.seed}, not {seed}")
    _ADOPTED[(seed, size)] = world


__all__ = [
    "FAMILIES", "SIZES", "SPLITS", "Entity", "EvidenceHop", "Fact", "Page", "Sentence", "Task", "World",
    "WorldStats", "adopt_world", "load_corpus", "load_tasks", "shared_world", "world_from_files",
]
