"""The gain table finds the base by its method, and says why it is missing when the base's runs are not there.

Before: under any label but ``sft`` (``base=sft,grpo``), and with ``report --methods grpo,cw_grpo``, the
"Gain over the supervised base" table silently disappeared."""

from __future__ import annotations

from dataclasses import dataclass, field

from searchgym.harness.methods import BASELINE_METHODS
from searchgym.harness.report_gain import SFT_METHOD_PATH, base_label, gain_section

SHA = {"sha256": "ab" * 32}
SFT = {"method_path": SFT_METHOD_PATH, "options": {"init": "sft"}, "trains": False, "base": SHA}
GRPO = {"method_path": "searchgym.harness.method_specs:grpo", "options": {"init": "sft"}, "base": SHA}


@dataclass
class Run:
    label: str
    seed: int
    predictions: list
    config: dict = field(default_factory=dict)


def _preds(successes):
    return [{"task_id": f"bridge-{i}", "family": "bridge", "success": s} for i, s in enumerate(successes)]


def _records(base_label_: str = "base"):
    greedy = {**SFT, "options": {"init": "sft", "decoding": "greedy"}}
    return [*(Run(base_label_, k, _preds([0, 1, 0]), SFT) for k in (0, 1)),
            *(Run("sharp", k, _preds([1, 1, 0]), greedy) for k in (0, 1)),
            *(Run("grpo", k, _preds([1, 1, 1]), GRPO) for k in (0, 1))]


def test_the_path_is_the_sft_methods():
    assert SFT_METHOD_PATH == BASELINE_METHODS["sft"]


def test_a_base_under_another_label_still_has_its_gain_table():
    assert base_label(_records()) == "base"  # the sampled sft runs, not the greedy ones
    lines = gain_section(_records(), resamples=50)
    assert lines and lines[0] == "## Gain over the supervised base (base), paired by seed and task"
    assert "\n| grpo | 2 | +0.667 [" in "\n".join(lines)
    assert gain_section(_records("sft"), resamples=50)[0].startswith("## Gain over the supervised base (sft)")


def test_learners_from_a_base_without_the_base_get_a_note():
    learners = [r for r in _records() if r.label == "grpo"]
    lines = gain_section(learners, resamples=50)
    assert len(lines) == 2 and lines[0].startswith("No gain over the supervised base: grpo started from one")
    assert "add it to --methods" in lines[0]
    scratch = [Run("grpo", 0, _preds([1]), {"method_path": GRPO["method_path"]})]
    assert gain_section(scratch, resamples=50) == []  # nothing started from a base: nothing to say


def test_the_copies_of_the_base_method_path_name_the_registered_method():
    """report_gain and run_agent name the sft method's path without importing the methods (a copy each)."""
    from searchgym.harness import report_gain, run_agent
    from searchgym.harness.methods import BASELINE_METHODS

    assert report_gain.SFT_METHOD_PATH == run_agent.SFT_PATH == BASELINE_METHODS["sft"]
