"""searchgym inside the frameworks LLM researchers train and evaluate with.

One module per framework, each an optional extra; importing this package imports no framework
(each module imports its framework inside its functions):

- :mod:`searchgym.integrations.trl`: TRL's ``GRPOTrainer(environment_factory=...)``: an env class
  whose methods are the suite's tools and ``answer``, the dataset, the env's own reward
  (``pip install 'searchgym[trl]'``).
- :mod:`searchgym.integrations.verifiers`: ``load_environment(suite=..., split=...)`` for
  verifiers (``pip install 'searchgym[verifiers]'``).
"""
