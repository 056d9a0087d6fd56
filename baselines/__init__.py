"""Baselines: GRPO, Dr.GRPO, MAPPO, COMA, and the random and oracle agents that bound every table."""

from __future__ import annotations

from searchgym.baselines.oracle import OracleAgent, OracleMiss
from searchgym.baselines.random_agent import RandomAgent

__all__ = ["OracleAgent", "OracleMiss", "RandomAgent"]
