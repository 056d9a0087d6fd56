"""Adapters that put searchgym inside LLM training frameworks (OpenEnv, GEM, rLLM, verl, ...).

Each adapter is its own module and imports its framework only when it is imported itself, so
``import searchgym`` never pulls a framework in; docs/INTEGRATIONS.md shows each one in use.
"""
