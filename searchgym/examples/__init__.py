"""Runnable examples that ship with the package, so a pip user can run what the docs name:
``python -m searchgym.examples.cleanrl_ppo --total-steps 20000`` (PPO with action masking on the
numeric wrapper) and ``python -m searchgym.examples.cw_grpo_in_one_file`` (CW-GRPO on the public
API, top to bottom, in one file)."""
