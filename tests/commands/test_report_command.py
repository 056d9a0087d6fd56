"""``searchgym report --out DIR`` writes a comparison's results.md and summary.csv again from its
run folders alone. Before: only ``compare`` wrote them, so rebuilding a report meant typing the whole
compare command again (there was no ``report`` command: ``searchgym report`` was an argparse error)."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from harness_helpers import TINY_QA, compare_args, compared_folder

from searchgym.cli import main
from searchgym.damaged import DamagedFileWarning

ARGS = compare_args("oracle,random", seeds=2)


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    return compared_folder(tmp_path_factory, ARGS, "report")


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
    """Of a folder whose report is gone (compare's order, oracle then random, is kept where it is there)."""
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    (out / "summary.csv").unlink()
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
    # before: seed1's folder copied as seed0 was reported as two seeds of random
    ("copied_seed", "records seed 1 where its folder, random/seed0, is seed 0: a copy of another run's folder"),
    ("copied_method", "records method 'random' where its folder, oracle/seed0, is method 'oracle'"),
    # before: "the runs of OUT disagree on the suite (None, test-tiny-qa-v0)", and with --methods random
    # "unknown suite 'None'", naming no file
    ("not_a_config", ("random/seed0/config.json: has no text 'suite_id' or 'suite_hash', which every run of a "
                      "comparison records; restore it, or delete")),
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
    elif change == "copied_seed":
        shutil.rmtree(out / "runs" / "random" / "seed0")
        shutil.copytree(out / "runs" / "random" / "seed1", out / "runs" / "random" / "seed0")
    elif change == "copied_method":
        shutil.rmtree(out / "runs" / "oracle" / "seed0")
        shutil.copytree(out / "runs" / "random" / "seed0", out / "runs" / "oracle" / "seed0")
    elif change == "not_a_config":
        (out / "runs" / "random" / "seed0" / "config.json").write_text('{"not": "a config"}')
    else:
        (out / "runs" / "random" / "seed0" / "config.json").write_text('{"cut')
    capsys.readouterr()
    assert main(["report", "--out", str(out), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("searchgym report: ") and said in err and "\n" not in err
    assert not (out / "results.md").exists()


def _rewrite(path, change):
    """``change`` applied to a JSON file's object, or to the first row of a JSONL file."""
    if path.suffix == ".jsonl":
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        rows[0] = change(rows[0])
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    else:
        path.write_text(json.dumps(change(json.loads(path.read_text()))))


BAD_FIELDS = [  # (file, change, what the line says); before: the error in the comment, naming no file
    ("predictions.jsonl", lambda r: {**r, "success": "yes"},  # could not convert string to float: 'yes'
     "prediction 1: its 'success' is a string ('yes') where a finite number or true/false belongs"),
    ("predictions.jsonl", lambda r: {**r, "f1": [1]}, "prediction 1: its 'f1' is a list where a finite number"),
    ("predictions.jsonl", lambda r: {**r, "steps": None}, "prediction 1: its 'steps' is null where a finite number"),
    ("predictions.jsonl", lambda r: {**r, "score": "yes"}, "prediction 1: its 'score' is a string ('yes')"),
    # rc 0, with "nan [nan, nan]" and "inf [...]" written into results.md and summary.csv
    ("predictions.jsonl", lambda r: {**r, "f1": float("nan")}, "prediction 1: its 'f1' is NaN where a finite"),
    ("predictions.jsonl", lambda r: {**r, "f1": float("inf")}, "prediction 1: its 'f1' is infinity where a finite"),
    ("result.json", lambda r: {**r, "train_seconds": "1"},  # Unknown format code 'f' for object of type 'str'
     "its 'train_seconds' is a string ('1') where a finite number belongs"),
    ("result.json", lambda r: {**r, "dev": [1]}, "its 'dev' is a list where an object belongs"),  # AttributeError
    ("config.json", lambda r: {**r, "trains": "no"}, "its 'trains' is a string ('no') where true or false belongs"),
]


@pytest.mark.parametrize(("name", "change", "said"), BAD_FIELDS)
def test_a_bad_field_of_a_finished_run_is_one_line_naming_its_file(compared, tmp_path, capsys, name, change, said):
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    run = out / "runs" / "random" / "seed0"
    _rewrite(run / name, change)
    capsys.readouterr()
    assert main(["report", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"searchgym report: damaged file: {run / name}: ") and said in err and "\n" not in err
    assert err.endswith(f"; delete {run / 'DONE'} and re-run the command that made the run (compare, train or "
                        "evaluate) to evaluate it again")


@pytest.mark.parametrize("name", ["result.json", "config.json"])
def test_an_int_too_long_to_read_is_one_line_naming_its_file(compared, tmp_path, capsys, name):
    """Before: "Exceeds the limit (4300 digits) for integer string conversion", naming no file."""
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    path = out / "runs" / "random" / "seed0" / name
    path.write_text(path.read_text().replace('"attempt": 1', '"attempt": ' + "1" * 5000, 1))
    capsys.readouterr()
    assert main(["report", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"searchgym report: damaged file: {path}: holds a number of more than 4300 digits, which no searchgym file holds")
    assert "\n" not in err


def test_a_metrics_value_that_is_no_finite_number_is_left_out_with_a_warning(compared, tmp_path, capsys):
    """Before: a NaN step ended in "cannot convert float NaN to integer" (1e999: an OverflowError
    traceback), and a NaN diagnostic was written into results.md as "nan"."""
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    metrics = out / "runs" / "random" / "seed0" / "metrics.jsonl"
    metrics.write_text('{"step": NaN, "dev_success": 0.5}\n{"step": 1e999, "dev_success": 0.5}\n'
                       '{"step": 4, "iteration": 1, "loss/entropy": NaN, "dev_success": 0.25}\n')
    capsys.readouterr()
    with pytest.warns(DamagedFileWarning, match=rf"{re.escape(str(metrics))}: row 1: its 'step' is NaN where a "
                                                r"finite number belongs \(and 2 more rows\); .* leave such values out"):
        assert main(["report", "--out", str(out)]) == 0
    for name in ("results.md", "summary.csv"):
        assert not re.search(r"\b(nan|inf)\b", (out / name).read_text(), re.IGNORECASE)


def test_results_md_says_how_many_env_steps_the_learning_runs_used(tmp_path):
    """A begun iteration ends, so a run trains past its budget (by up to one iteration); before, results.md
    gave the budget alone."""
    import json as json_

    out = tmp_path / "out"
    assert main(["compare", "--suite", TINY_QA.id, "--methods", "cw_grpo,random", "--budget", "40", "--device", "cpu",
                 "--no-progress", "--option", "group_size=2", "--option", "tasks_per_iteration=2",
                 "--option", "eval_every=2", "--option", "eval_tasks=1", "--out", str(out)]) == 0
    rows = [json_.loads(line) for line in (out / "runs" / "cw_grpo" / "seed0" / "metrics.jsonl").read_text().splitlines()]
    used = max(r["step"] for r in rows if "step" in r)
    assert used >= 40
    assert f"training budget 40 env steps (methods that train); the learning runs used {used} (a begun iteration " \
           "ends)." in (out / "results.md").read_text()


def test_compare_with_fewer_methods_says_the_report_leaves_the_others_out(compared, tmp_path, capsys):
    """Before: results.md and summary.csv were rewritten with this command's methods alone, without a word
    about the finished runs of the others in the same folder."""
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    capsys.readouterr()
    assert main(["compare", "--suite", TINY_QA.id, "--methods", "oracle", "--seeds", "2", "--budget", "0",
                 "--device", "cpu", "--no-progress", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert (f"{out / 'runs'} also holds random, which this report leaves out: `searchgym report --out {out}` "
            "reports every finished run there") in printed
    assert main([*ARGS, "--out", str(out)]) == 0  # every method named: no such line
    assert "also holds" not in capsys.readouterr().out


def test_runs_of_different_budgets_say_so_in_results_md(tmp_path, capsys):
    """Before: results.md read "training budget None env steps" where the runs' budgets differed."""
    out = tmp_path / "out"
    base = ["compare", "--suite", TINY_QA.id, "--methods", "random", "--device", "cpu", "--no-progress",
            "--out", str(out)]
    assert main([*base, "--budget", "100", "--seeds", "0,"]) == 0
    assert main([*base, "--budget", "200", "--seeds", "1,"]) == 0
    assert main(["report", "--out", str(out)]) == 0
    header = (out / "results.md").read_text().splitlines()[2]
    assert "None" not in header
    assert "training budgets differ between the runs (each run's config.json records its own)" in header


def test_a_comparison_on_a_suite_made_in_python_is_reported_again(tmp_path, capsys):
    """Before: `report` of a comparison made with an unregistered Suite (docs/ECOSYSTEM.md's example)
    was "unknown suite", though every run's config.json defines its suite."""
    from searchgym.harness.compare import Comparison, run_comparison
    from searchgym.harness.methods import parse_methods
    from searchgym.suites import Suite

    suite = Suite("test-report-unregistered-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4}, world_size="tiny",
                  dev_size=2, test_size=4, description="tests: a suite made in Python")
    out = tmp_path / "out"
    run_comparison(Comparison(suite=suite, methods=parse_methods("random"), seeds=[0], budget=0, out=out,
                              device="cpu", progress=False))
    written = (out / "results.md").read_bytes()
    assert main(["report", "--out", str(out)]) == 0
    assert (out / "results.md").read_bytes() == written
    assert "Success on test-report-unregistered-v0" in capsys.readouterr().out
    config = json.loads((out / "runs" / "random" / "seed0" / "config.json").read_text())
    config["suite"]["test_size"] = 3  # a definition that is not the suite the runs were scored on
    (out / "runs" / "random" / "seed0" / "config.json").write_text(json.dumps(config))
    assert main(["report", "--out", str(out)]) == 2
    assert "unknown suite 'test-report-unregistered-v0'" in capsys.readouterr().err
