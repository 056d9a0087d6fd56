"""benchmarks/claims.py: Holm's correction by hand, the ablation variants, and the smoke mode end to end
on tiny suites (RESULTS.md has the tables, the corrected p-values and a generated reading)."""

from __future__ import annotations

import claims
import claims_report
import pytest
from baselines_helpers import SMALL_RUN, TINY_TEAM

from searchgym.fileio import read_json
from searchgym.harness.methods import parse_methods
from searchgym.suites import Suite, register_suite

TINY_ROLES = register_suite(Suite("test-claims-roles-v0", 0, "TeamSearch-Candidates-v0", {"max_rounds": 4},
                                  world_size="tiny", dev_size=4, test_size=4,
                                  description="tests: lead, searcher and analyst, tiny world"))


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04, 0.20 -> x4 = 0.04, x3 = 0.09, x2 = 0.08 (raised to 0.09), x1 = 0.20
    assert claims_report.holm([0.01, 0.04, 0.03, 0.20]) == pytest.approx([0.04, 0.09, 0.09, 0.20])
    assert claims_report.holm([0.5, 0.6]) == pytest.approx([1.0, 1.0])  # capped at 1


def test_ablation_variants_are_plain_grpo_plus_their_flags():
    refs = {r.label: dict(r.options) for r in parse_methods(claims.ablation_entries(["plain", "all", "clip_higher"]))}
    assert refs["grpo_plain"] == {"loss.entropy_coef": 0.0}
    assert refs["grpo_clip_higher"] == {"loss.entropy_coef": 0.0, "loss.eps_low": 0.2, "loss.eps_high": 0.28}
    assert refs["grpo_all"]["loss.entropy_coef"] == 0.01 and refs["grpo_all"]["value_head"] is True
    assert refs["grpo_all"]["calibration.batch_standardize"] is True
    assert refs["grpo_all"]["calibration.learnable_baseline"] is True
    with pytest.raises(ValueError, match="unknown ablation variants \\['everything'\\]"):
        claims.ablation_entries(["everything"])


def test_the_entropy_reading_says_collapse_only_below_the_threshold():
    assert "IS seen" in claims_report.entropy_reading("x", 1.0, 0.1)
    assert "no entropy collapse" in claims_report.entropy_reading("x", 1.0, 0.5)


def test_smoke_mode_writes_the_tables_corrected_p_values_and_a_generated_reading(tmp_path):
    out = tmp_path / "claims"
    options = [f"{k}={v}" for k, v in SMALL_RUN.items()]
    argv = ["--smoke", "--suite", TINY_TEAM.id, "--role-suite", TINY_ROLES.id, "--budget", "16", "--workers", "1",
            "--methods", "cw_grpo,grpo,random", "--ablation", "plain,all", "--out", str(out)]
    for option in options:
        argv += ["--option", option]
    assert claims.main(argv) == 0
    text = (out / "RESULTS.md").read_text()
    for needle in ("## 1. cw_grpo against every method", "## 2. Role-aware grouping", "## 3. Calibration ablation",
                   "| Holm p |", "| cw_grpo_role - grpo_role |", "paired diff (method - grpo_plain)", "paired diff (cw_grpo - method)", "Per family",
                   "BELOW the 5 seeds x 150 tasks", "The sign of cw_grpo > grpo", "policy entropy goes from",
                   "- seeds: [0, 1]", "- start: every learning method from the supervised base `sft`",
                   "### Gain over the supervised base (sft), paired by seed and task", "| sft | 2 |", "- runs trained and scored at: `", "- report written at: `"):
        assert needle in text, needle
    # the options the runs took, the smoke base's and these among them: not "as in make main" (before, always)
    start = next(line for line in text.splitlines() if line.startswith("- start: "))
    assert "as in `make main`" not in start and "sft_tasks=" in start and options[0] in start
    last_run = max(done.stat().st_mtime_ns for done in out.glob("*/runs/*/seed*/DONE"))
    for name in ("main_dev_success", "roles_dev_success", "ablation_dev_success", "ablation_entropy"):
        assert (out / "figures" / f"{name}.png").stat().st_size > 0
        assert f"](figures/{name}.png)" in text
        # drawn after the last run finished: no part trains in a tree that an earlier part's figure changed
        assert (out / "figures" / f"{name}.png").stat().st_mtime_ns >= last_run
    team = read_json(out / "roles" / "runs" / "grpo_team" / "seed1" / "config.json")
    assert team["options"]["group_by"] == "team" and team["options"]["group_size"] == SMALL_RUN["group_size"]
    main_table = text.split("## 1.")[1].split("Per family")[0]
    grpo = [line.split(" | ") for line in main_table.splitlines() if line.startswith("| grpo | ")]
    assert grpo and len(grpo[0]) == 6 and grpo[0][1] == "2"  # method, seeds, success, diff [CI], raw p, Holm p
    assert grpo[0][3].startswith(("+", "-")) and "[" in grpo[0][3]


def test_the_claims_start_from_make_mains_options():
    """claims.py reruns `make main`'s comparison: its options are the Makefile's, word for word."""
    import shlex
    from pathlib import Path

    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    line = makefile.split("MAIN_OPTIONS ?=", 1)[1].split("\n\n", 1)[0].replace("\\\n", " ")
    words = shlex.split(line)
    assert words[0::2] == ["--option"] * len(claims.FROM_BASE)
    assert tuple(words[1::2]) == claims.FROM_BASE


def test_smoke_mode_builds_a_small_base_unless_the_options_say_otherwise():
    # before: --smoke built make main's base (16 epochs on every train task) per seed and suite: 12 minutes
    smoke = claims.parse_args(["--smoke"])
    assert {"sft_tasks=60", "sft_epochs=2"} <= set(smoke.option) and "init=sft" in smoke.option
    mine = claims.parse_args(["--smoke", "--option", "sft_epochs=3"])
    assert "sft_epochs=3" in mine.option and "sft_epochs=2" not in mine.option and "sft_tasks=60" in mine.option
    assert not {"sft_tasks=60", "sft_epochs=2"} & set(claims.parse_args([]).option)
