"""The comparison harness: methods x seeds on a frozen suite, recorded, resumable and plotted.

Modules: ``methods`` (registry and the method/Actor protocol), ``runner`` (one run's files),
``compare`` (many runs in worker processes, resume), ``evaluate`` (evaluation loops),
``stats`` (bootstrap intervals, paired tests), ``plots`` (learning curves), ``report``
(summary.csv, results.md), ``io`` (atomic writes, JSONL), ``provenance`` (versions, device).
"""
