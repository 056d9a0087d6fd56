"""searchgym: seeded fictional search worlds for training and comparing LLM search agents with RL."""

from __future__ import annotations

__version__ = "0.1.0"
