"""results.md's training diagnostics: per learning method, what its metrics.jsonl rows say of its training
(does contribution weighting change any advantage?), and the fields a report keeps of each metrics row:
these and the learning curves' (a row padded with other values is not held until the report is written).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from searchgym.json_fields import NUMBER

#: metrics.jsonl keys summarised per learning method in results.md (mean over iterations and seeds)
DIAGNOSTICS = (
    ("estimator/differs_from_grpo_mean", "trajectories whose advantage differs from GRPO's"),
    ("estimator/differs_among_positive_mean", "the same among trajectories with a positive advantage"),
    ("groups/zero_variance_fraction", "zero-variance groups"),
    ("loss/entropy", "policy entropy"),
)

#: the same share among every group drawn, where dynamic sampling kept only some (agents/dynamic_sampling.py)
BEFORE_FILTERING = {"groups/zero_variance_fraction": "dynamic/zero_variance_fraction"}


def diagnostics_table(records: Sequence[Any]) -> str:
    """Per learning method, training diagnostics averaged over iterations (and seeds): above all the
    fraction of trajectories whose CW-GRPO advantage differs from their GRPO advantage (0 would
    mean the suite cannot tell CW-GRPO from GRPO), with the share of iterations where it was 0."""
    lines = ["| method | " + " | ".join(what for _, what in DIAGNOSTICS) + " | iterations with no difference |",
             "|---|" + "---|" * (len(DIAGNOSTICS) + 1)]
    for label in dict.fromkeys(r.label for r in records):  # in the order of the runs
        rows = [m for r in records if r.label == label for m in r.metrics
                if "iteration" in m and m.get("iteration", 0) > 0]
        if not rows:
            continue
        cells = []
        for key, _ in DIAGNOSTICS:
            drawn = BEFORE_FILTERING.get(key, key)  # dynamic sampling updates on groups with signal only
            values = [float(m[drawn] if drawn in m else m[key]) for m in rows if key in m or drawn in m]
            cells.append(f"{np.mean(values):.3f}" if values else "—")
        differs = [float(m[DIAGNOSTICS[0][0]]) for m in rows if DIAGNOSTICS[0][0] in m]
        cells.append(f"{np.mean([d == 0 for d in differs]):.2f} of {len(differs)}" if differs else "—")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if len(lines) == 2:  # before: a header with no rows, as if the diagnostics had been lost
        return "No finished run logged training iterations (no method here trained)."
    return "\n".join(lines)


def metric_fields() -> dict[str, Any]:
    """The metrics rows' fields the curves and the diagnostics table read: finite numbers."""
    names = ("step", "iteration", "dev_success", *(key for key, _ in DIAGNOSTICS), *BEFORE_FILTERING.values())
    return dict.fromkeys(names, NUMBER)
