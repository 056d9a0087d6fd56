"""searchgym: seeded fictional search worlds for training and comparing LLM search agents with RL.

>>> import searchgym
>>> env = searchgym.make("SearchQA-v0")            # Gymnasium, text tool calls
>>> env = searchgym.make("SearchQA-Candidates-v0")  # Gymnasium, candidate actions
>>> team = searchgym.make("TeamSearch-v0")          # PettingZoo ParallelEnv
"""

from __future__ import annotations

from searchgym.registry import EnvSpec, make, make_aec, make_parallel, register, registered, spec

__version__ = "0.1.0"

__all__ = ["EnvSpec", "__version__", "make", "make_aec", "make_parallel", "register", "registered", "spec"]
