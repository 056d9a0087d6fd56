"""searchgym inside the frameworks LLM researchers train and evaluate with.

One module per framework, each an optional extra; importing this package imports no framework
(a module imports its framework inside its functions, or when it is itself imported: openenv,
gem, verifiers; rllm and verl fall back to named stand-in base classes without theirs):

- :mod:`searchgym.integrations.trl`: TRL's ``GRPOTrainer(environment_factory=...)``: an env class
  whose methods are the suite's tools and ``answer``, the dataset, the env's own reward
  (``pip install 'searchgym[trl]'``).
- :mod:`searchgym.integrations.verifiers`: ``load_environment(suite=..., split=...)`` for
  verifiers (``pip install 'searchgym[verifiers]'``).
- :mod:`searchgym.integrations.openenv`: an OpenEnv server (``python -m
  searchgym.integrations.openenv --suite S``) with its Action, Observation, State and client
  (``pip install 'searchgym[openenv]'``).
- :mod:`searchgym.integrations.gem`: ``gem.make("searchgym:<suite>")``, a ``gem.Env`` taking the
  model's text (``pip install 'searchgym[gem]'``).
- :mod:`searchgym.integrations.rllm`: an rLLM ``BaseEnv`` built per row by ``from_dict``, and the
  rows (rLLM installs from its repository; without it a named stand-in base class is used).
- :mod:`searchgym.integrations.verl`: verl ``BaseTool`` s playing the task, with
  :mod:`~searchgym.integrations.verl_reward` (the env's return as verl's reward) and
  :mod:`~searchgym.integrations.verl_dataset` (``searchgym export --format verl``).
"""
