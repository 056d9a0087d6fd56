"""benchmarks/*.py: bad arguments are one usage line naming what is accepted, not a traceback (before:
an unknown --suite, a zero count, a file as --out or a word in a comma list each ended in a traceback,
or ran with nonsense numbers)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest
import suite_arg

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.mark.parametrize("kind, text", [(suite_arg.count, "0"), (suite_arg.count, "-2"), (suite_arg.count, "x"),
                                        (suite_arg.natural, "-1"), (suite_arg.probability, "1.5"),
                                        (suite_arg.probability, "nan"), (suite_arg.seconds, "-1"),
                                        (suite_arg.counts, "1,x"), (suite_arg.counts, "0"), (suite_arg.counts, ""),
                                        (suite_arg.deadlines, "0"), (suite_arg.deadlines, "x"),
                                        (suite_arg.splits, "train,nope"), (suite_arg.seconds, "inf"),
                                        (suite_arg.deadlines, "1,inf"), (suite_arg.seed_list, "0,x"),
                                        (suite_arg.seed_list, "-1"), (suite_arg.seed_list, ","),
                                        (suite_arg.names, " , "), (suite_arg.json_object, "[1]"),
                                        (suite_arg.json_object, "{x"), (suite_arg.world_size, "nope"),
                                        (suite_arg.world_size, "3"), (suite_arg.suite_of("text"), "quick-v2"),
                                        (suite_arg.suite_of("multi-agent"), "searchqa-v2"),
                                        (suite_arg.suite_of("team-candidates"), "group-v2"),
                                        (suite_arg.suite_of("text"), "nope")])
def test_bad_values_are_refused(kind, text):
    with pytest.raises(argparse.ArgumentTypeError):
        kind(text)


def test_good_values_pass():
    assert suite_arg.count("3") == 3 and suite_arg.natural("0") == 0 and suite_arg.probability("1") == 1.0
    assert suite_arg.counts("1, 8") == [1, 8] and suite_arg.deadlines("1.5,5") == [1.5, 5.0]
    assert suite_arg.splits("dev,test") == "dev,test"
    assert suite_arg.seed_list("0, 3") == [0, 3] and suite_arg.names("a, b,") == ["a", "b"]
    assert suite_arg.json_object('{"a": 1}') == {"a": 1} and suite_arg.world_size("8") == 8
    assert suite_arg.suite_of("text")("team-text-v2") == "team-text-v2"
    assert suite_arg.suite_of("multi-agent")("group-v2") == "group-v2"
    assert suite_arg.suite_of("team-candidates")("team-v2") == "team-v2"


def test_a_suite_of_the_wrong_kind_names_the_suites_that_fit():
    with pytest.raises(argparse.ArgumentTypeError) as error:
        suite_arg.suite_of("text")("quick-v2")
    # the shipped text suites first; suites other tests of the run registered may follow (they fit too)
    assert str(error.value).startswith("'quick-v2' is not a text-mode suite; accepted: searchqa-text-v2, "
                                       "team-text-v2, group-text-v2")
    accepted = str(error.value).partition("accepted: ")[2].split(", ")
    assert "quick-v2" not in accepted and "team-v2" not in accepted


def test_a_checkout_holds_searchgym(tmp_path):
    with pytest.raises(argparse.ArgumentTypeError, match="is not a searchgym checkout"):
        suite_arg.checkout(str(tmp_path))
    assert suite_arg.checkout(str(BENCHMARKS.parent)) == str(BENCHMARKS.parent)


def test_a_file_is_not_an_out_folder(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(argparse.ArgumentTypeError, match="is a file"):
        suite_arg.new_folder(str(tmp_path / "f"))
    assert suite_arg.new_folder(str(tmp_path / "new")) == tmp_path / "new"


@pytest.mark.parametrize("argv, said", [(["cw_weights.py", "--suite", "nope"], "unknown suite 'nope'"),
                                        (["bench_endpoint.py", "--concurrency", "x"], "argument --concurrency"),
                                        (["claims.py", "--seeds", "0"], "runs no seed"),
                                        (["fuzz_step.py", "--actions", "0"], "argument --actions: '0'"),
                                        (["bench_train.py", "--floor", "--budget", "-3"], "argument --budget"),
                                        (["bench_mentions.py", "--sizes", "nope"], "unknown world size 'nope'")])
def test_scripts_answer_bad_arguments_with_one_usage_line(tmp_path, argv, said):
    result = subprocess.run([sys.executable, str(BENCHMARKS / argv[0]), *argv[1:]], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2, result.stderr
    assert said in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith(f"{argv[0]}: error:")
