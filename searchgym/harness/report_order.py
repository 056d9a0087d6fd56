"""The order of the methods in a comparison folder's last report, read back from its ``summary.csv``.

Why: ``searchgym report`` with no ``--methods`` listed the methods in its own default order (learners
first, then reader, random, oracle), so rewriting the report of ``compare --methods random,oracle,cw_grpo``
reordered its tables. ``summary.csv`` holds the methods' rows in the order the report that wrote it was
given (compare's ``--methods``), so that order is read from it; a folder with no readable one has none.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Collection
from pathlib import Path

from searchgym.damaged import DamagedFile, read_bounded

#: The most of a summary.csv read for its order (one of ten methods, six families and ten seeds is ~100 KB).
MAX_SUMMARY_BYTES = 16 * 1024 * 1024
#: A method's row label when its runs differ in budget (:func:`~searchgym.harness.report_budgets.budget_label`).
_BUDGET_ROW = re.compile(r"^(?P<label>.+)@budget\d+$")


def reported_order(out: Path, labels: Collection[str]) -> list[str]:
    """The ``labels`` that ``out/summary.csv`` has rows of, in the order of their first rows (a method
    with a row per budget, ``<method>@budget<N>``, at its first); [] where the file is missing, a link,
    too large or not a CSV with a ``method`` column."""
    try:
        text = read_bounded(out / "summary.csv", MAX_SUMMARY_BYTES, follow_links=False).decode("utf-8")
        rows = csv.DictReader(io.StringIO(text))
        named = [row.get("method") for row in rows]
    except (OSError, DamagedFile, UnicodeDecodeError, csv.Error):
        return []
    order: list[str] = []
    for name in named:
        if not isinstance(name, str):
            continue
        split = _BUDGET_ROW.match(name)
        label = name if name in labels or split is None else split.group("label")
        if label in labels and label not in order:
            order.append(label)
    return order
