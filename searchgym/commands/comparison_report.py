"""What ``compare`` and ``report`` say alike of the report they write: its ``--reference`` (the default,
the help and the check) and the earlier report's curves it removed.

Why a module of its own: ``report`` took these from the ``compare`` command's module, and so loaded all
``compare`` needs to run a comparison to write a report of finished runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

#: The default --reference; when it is not among --methods the report takes the first learning method.
REFERENCE = "cw_grpo"
#: --reference's help, as results.md chooses it (report.choose_reference).
REFERENCE_HELP = (f"method the significance table tests against every other (default: {REFERENCE}; where it has no "
                  "finished run, the first method listed that trains, else the first that is not privileged); "
                  "another must be one of the methods compared")


def check_reference(reference: str | None, labels: list[str]) -> str:
    """The reference: a --reference given must be one of --methods (before: silently another reference;
    and ``--reference cw_grpo`` passed unchecked, argparse giving the default's value); without one, the
    default, :data:`REFERENCE`, which the report replaces where it has no finished run."""
    if reference is not None and reference not in labels:
        raise ValueError(f"--reference {reference!r} is not one of --methods ({', '.join(labels)}); the default, "
                         f"{REFERENCE}, gives way to the first learning method when it is not among them")
    return REFERENCE if reference is None else reference


def print_removed(out: Path, removed: Sequence[Path]) -> None:
    """Name the earlier report's curves this report removed (of methods it does not draw), and how to draw them."""
    if removed:
        print(f"removed {', '.join(str(p) for p in removed)}: an earlier report's curves of methods this report "
              f"does not draw (`searchgym report --out {out}` draws every method's again)")
