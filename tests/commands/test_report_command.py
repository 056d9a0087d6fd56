"""``searchgym report --out DIR`` writes a comparison's results.md and summary.csv again from its
run folders alone. Before: only ``compare`` wrote them, so rebuilding a report meant typing the whole
compare command again (there was no ``report`` command: ``searchgym report`` was an argparse error)."""

from __future__ import annotations

import json
import shutil

import pytest
from harness_helpers import TINY_QA

from searchgym.cli import main

ARGS = ["compare", "--suite", TINY_QA.id, "--methods", "oracle,random", "--seeds", "2", "--budget", "0",
        "--device", "cpu", "--no-progress"]


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "out"
    assert main([*ARGS, "--out", str(out)]) == 0
    return out


def test_report_rewrites_what_compare_wrote_byte_for_byte(compared, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    results, summary = (out / "results.md").read_bytes(), (out / "summary.csv").read_bytes()
    (out / "results.md").unlink()
    (out / "summary.csv").unlink()
    capsys.readouterr()
    assert main(["report", "--out", str(out), "--methods", "oracle,random"]) == 0
    assert (out / "results.md").read_bytes() == results
    assert (out / "summary.csv").read_bytes() == summary
    printed = capsys.readouterr().out
    assert "| oracle (privileged) | 2 |" in printed and f"results: {out / 'results.md'}" in printed


def test_default_order_puts_random_before_oracle(compared, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    assert main(["report", "--out", str(out)]) == 0
    table = capsys.readouterr().out
    assert table.index("| random |") < table.index("| oracle (privileged) |")


def test_an_unfinished_run_is_left_out_and_counted(compared, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    (out / "runs" / "random" / "seed1" / "DONE").unlink()
    assert main(["report", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "1 of 4 (method, seed) runs have not finished; they are left out" in printed
    assert "Finished runs: 3 of 4." in (out / "results.md").read_text()


@pytest.mark.parametrize(("change", "said"), [
    ("no_runs", "holds no runs folder; give the --out of a `searchgym compare` run"),
    ("methods", "--methods names no finished run: nope; finished runs: oracle, random"),
    # before: oracle's row twice, "Finished runs: 2 of 2", its pooled row "seeds 2" (one run counted twice)
    ("repeated", "--methods names a method more than once: oracle (as compare, each label once)"),
    ("suite_hash", "were made on test-tiny-qa-v0 with hash 000000000000, and this searchgym's test-tiny-qa-v0 has hash"),
    ("mixed", "disagree on the suite's hash"),
    ("config", "damaged file:"),
])
def test_bad_folders_are_one_line_before_anything_is_written(compared, tmp_path, capsys, change, said):
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    (out / "results.md").unlink()
    extra: list[str] = []
    if change == "no_runs":
        shutil.rmtree(out / "runs")
    elif change == "methods":
        extra = ["--methods", "oracle,nope"]
    elif change == "repeated":
        extra = ["--methods", "oracle,random,oracle"]
    elif change == "mixed":  # one run of another version of the suite among the others
        config = out / "runs" / "random" / "seed0" / "config.json"
        config.write_text(json.dumps({**json.loads(config.read_text()), "suite_hash": "0" * 64}))
    elif change == "suite_hash":  # every run made on another version of the suite
        for config in (out / "runs").glob("*/seed*/config.json"):
            config.write_text(json.dumps({**json.loads(config.read_text()), "suite_hash": "0" * 64}))
    else:
        (out / "runs" / "random" / "seed0" / "config.json").write_text('{"cut')
    capsys.readouterr()
    assert main(["report", "--out", str(out), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("searchgym report: ") and said in err and "\n" not in err
    assert not (out / "results.md").exists()
