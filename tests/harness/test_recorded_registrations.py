"""What a run's recorded registrations (its suite definition) name that this process lacks, and the tools
a worker lacks of its parent's: compared by name and class, a "spawn" worker's copy of the script
(``__mp_main__``) counting as the script (``__main__``)."""

from __future__ import annotations

from types import SimpleNamespace

from harness_helpers import WORD_COUNT_CALLS, word_count_spec

from searchgym.harness.recorded_registrations import (
    registrations_lacking,
    tool_records,
    tools_lacking,
    tools_unrecorded,
)
from searchgym.suites import get_suite, tool_record
from searchgym.tools import register_tool, scoped_tools

OWN = tool_records()  # searchgym's own tools: no test here registers one


def test_a_tool_missing_or_of_another_class_is_lacking_and_the_workers_copy_of_the_script_is_not():
    assert tools_lacking([*OWN, "word_count=mypkg.tools.WordCount"], OWN) == ["word_count (mypkg.tools.WordCount)"]
    calculator = next(r for r in OWN if r.startswith("calculator="))
    assert tools_lacking(["calculator=mypkg.MyCalculator"], OWN) == ["calculator (mypkg.MyCalculator)"]
    assert tools_lacking([calculator], OWN) == []
    # a worker's copy of the script (__mp_main__) is recorded as the script, so the two records are equal
    in_script = type("WordCount", (), {"__module__": "__main__"})
    in_worker = type("WordCount", (), {"__module__": "__mp_main__"})
    records = [tool_record(SimpleNamespace(name="word_count", tool_class=c)) for c in (in_script, in_worker)]
    assert records == ["word_count=__main__.WordCount"] * 2 and tools_lacking(records[:1], records[1:]) == []


def test_a_definition_names_its_tools_env_id_and_families_this_process_lacks():
    definition = get_suite("searchqa-v2").definition()
    assert registrations_lacking(definition) == [] and tools_unrecorded(definition) == []
    definition |= {"registered_tools": [*OWN, "word_count=mypkg.WordCount"], "env_id": "Mine-v0",
                   "families": ["lookup", "riddles"], "train_families": ["riddles", "puns"]}
    assert registrations_lacking(definition) == ["tool word_count (mypkg.WordCount)", "env id 'Mine-v0'",
                                                 "task family 'riddles'", "task family 'puns'"]


def test_a_damaged_record_of_tools_or_families_names_nothing():
    definition = get_suite("searchqa-v2").definition() | {"registered_tools": "word_count", "families": [1]}
    assert registrations_lacking(definition) == [] and tools_unrecorded(definition) == []




def test_a_tool_this_process_registers_beyond_a_definitions_is_unrecorded():
    with scoped_tools():
        register_tool(word_count_spec(candidates=WORD_COUNT_CALLS))
        assert tools_unrecorded(get_suite("searchqa-v2").definition()) == []  # recorded now: it is registered
        played_without = {k: v for k, v in get_suite("searchqa-v2").definition().items() if k != "registered_tools"}
        assert tools_unrecorded(played_without) == ["word_count (harness_helpers.WordCount)"]
    assert tools_unrecorded(played_without) == []


def test_a_built_in_tool_registered_with_other_settings_is_unrecorded_in_a_run_without_them():
    import dataclasses

    from searchgym.tools import tool_spec

    played_without = get_suite("searchqa-v2").definition()  # searchgym's own tools, as it registers them
    with scoped_tools():
        register_tool(dataclasses.replace(tool_spec("calculator"), order=tool_spec("calculator").order + 1),
                      replace=True)
        unrecorded = tools_unrecorded(played_without)
    assert len(unrecorded) == 1 and unrecorded[0].startswith("calculator (searchgym.tools.calculator.Calculator[order=")
