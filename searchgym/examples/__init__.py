"""Runnable examples that ship with the package, so a pip user can run what the docs name:
``python -m searchgym.examples.cleanrl_ppo --total-steps 20000``."""
