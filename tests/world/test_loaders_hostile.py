"""User JSONL files: every line a schema would reject is an error naming ``file:line`` and what is
accepted; nothing is coerced into text, no id is shadowed, no line crashes the decoder."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from searchgym.world import load_corpus, load_tasks, world_from_files
from searchgym.world.jsonl_records import RecordError

PAGE = {"id": "d1", "title": "Alpha", "text": "Alpha is red. It is big."}
TASK = {"id": "q1", "question": "What colour is Alpha?", "answers": ["red"]}
NAME_FORM = "a string with a non-blank character (at most 1000 characters)"
ANSWERS_FORM = "a non-empty list of non-blank strings (or one non-blank string)"
NON_TEXT = [None, 5, 0, -1.5, True, False, [], ["x"], {}, {"a": "b"}]


def _write(tmp_path: Path, *lines: str | dict, name: str = "data.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join((json.dumps(x) if isinstance(x, dict) else x) + "\n" for x in lines), encoding="utf-8")
    return path


def _error(loader, path: Path, line: int, message: str) -> None:
    with pytest.raises(RecordError) as caught:
        loader(path)
    assert str(caught.value) == f"{path}:{line}: {message}"


def _shown(value: object) -> str:
    return repr(value) if isinstance(value, str) else json.dumps(value)


@pytest.mark.parametrize("field", ["id", "title", "text", "url"])
@pytest.mark.parametrize("value", NON_TEXT)
def test_a_page_field_that_is_not_text_is_refused_not_coerced(tmp_path, field, value):
    path = _write(tmp_path, PAGE, {**PAGE, "id": "d2", field: value})
    form = NAME_FORM if field in ("id", "url") else "a string"
    _error(load_corpus, path, 2, f"{field!r} must be {form}, got {_shown(value)}")


@pytest.mark.parametrize("field", ["id", "question", "family"])
@pytest.mark.parametrize("value", [*NON_TEXT, "", "   ", "\n\t"])
def test_a_task_field_that_is_not_text_is_refused_not_coerced(tmp_path, field, value):
    path = _write(tmp_path, {**TASK, field: value})
    form = "a string with a non-blank character" if field == "question" else NAME_FORM
    _error(load_tasks, path, 1, f"{field!r} must be {form}, got {_shown(value)}")


@pytest.mark.parametrize("answers", [None, 5, 0, 1.5, True, [], {}, {"a": "red"}, "", " ", [""], ["red", None],
                                     ["red", 5], [["red"]], [{"a": 1}], ["red", " "], [True]])
def test_answers_must_be_a_non_empty_list_of_non_blank_strings(tmp_path, answers):
    path = _write(tmp_path, TASK, {**TASK, "id": "q2", "answers": answers})
    _error(load_tasks, path, 2, f"'answers' must be {ANSWERS_FORM}, got {_shown(answers)}")


@pytest.mark.parametrize(("field", "value", "form"), [
    ("split", "val", "one of train, dev, test"), ("split", None, "one of train, dev, test"),
    ("split", "TEST", "one of train, dev, test"), ("split", ["test"], "one of train, dev, test"),
    ("answer_type", "date", "one of entity, number, list, text"),
    ("answer_type", 1, "one of entity, number, list, text"),
])
def test_enumerated_task_fields_name_what_is_accepted(tmp_path, field, value, form):
    _error(load_tasks, _write(tmp_path, {**TASK, field: value}), 1, f"{field!r} must be {form}, got {_shown(value)}")


@pytest.mark.parametrize(("loader", "good", "missing", "required"), [
    (load_corpus, PAGE, ["title"], ["id", "title", "text"]),
    (load_corpus, PAGE, ["id", "text"], ["id", "title", "text"]),
    (load_tasks, TASK, ["answers"], ["id", "question", "answers"]),
    (load_tasks, TASK, ["id", "question", "answers"], ["id", "question", "answers"]),
])
def test_missing_keys_are_listed(tmp_path, loader, good, missing, required):
    row = {k: v for k, v in good.items() if k not in missing}
    _error(loader, _write(tmp_path, good, row), 2, f"missing key(s) {missing}; expected {required}")


@pytest.mark.parametrize("line", ["[1, 2]", '"text"', "5", "null", "true", "[]"])
@pytest.mark.parametrize("loader", [load_corpus, load_tasks])
def test_a_line_that_is_not_an_object_is_refused(tmp_path, loader, line):
    required = ["id", "title", "text"] if loader is load_corpus else ["id", "question", "answers"]
    _error(loader, _write(tmp_path, line), 1, f"expected a JSON object with keys {required}, got {_shown(json.loads(line))}")


@pytest.mark.parametrize("depth", [65, 200, 1000, 100_000])
@pytest.mark.parametrize("bracket", ["[]", "{}"])
@pytest.mark.parametrize("loader", [load_corpus, load_tasks])
def test_deeply_nested_lines_are_refused_without_recursion_error(tmp_path, loader, depth, bracket):
    inner = "[]" if bracket == "[]" else "{}"
    nested = bracket[0] * depth + bracket[1] * depth if bracket == "[]" else '{"a":' * (depth - 1) + inner + "}" * (depth - 1)
    good = PAGE if loader is load_corpus else TASK
    line = json.dumps(good)[:-1] + ', "extra": ' + nested + "}"
    _error(loader, _write(tmp_path, good | {"id": "first"}, line), 2,
           "not accepted JSON: the JSON nests more than 64 brackets deep; at most 64 are accepted")


def test_brackets_inside_strings_do_not_count_as_nesting(tmp_path):
    page = {**PAGE, "text": "[" * 5000 + "{" * 5000}
    assert load_corpus(_write(tmp_path, page))[0].sentences[0].text == "[" * 5000 + "{" * 5000


@pytest.mark.parametrize(("loader", "row", "kind"), [(load_corpus, PAGE, "page"), (load_tasks, TASK, "task")])
@pytest.mark.parametrize("gap", [0, 1, 3])
def test_duplicate_ids_are_refused_naming_the_first_line(tmp_path, loader, row, kind, gap):
    others = [{**row, "id": f"other{i}"} for i in range(gap)]
    path = _write(tmp_path, row, *others, {**row, "title": "Beta"} if kind == "page" else {**row, "question": "Q?"})
    _error(loader, path, gap + 2, f"duplicate {kind} id {row['id']!r} (first on line 1); every {kind} id must be unique")


@pytest.mark.parametrize(("raw", "byte"), [(b"\xff", 0), (b"\xc3\x28", 0), (b"\xed\xa0\x80", 0), (b"\xe2\x82", 0)])
@pytest.mark.parametrize("line_number", [1, 3])
def test_invalid_utf8_names_the_file_and_line(tmp_path, raw, byte, line_number):
    good = (json.dumps(TASK) + "\n").encode()
    lines = [json.dumps({**TASK, "id": f"q{i}"}).encode() + b"\n" for i in range(line_number - 1)]
    bad = b'{"id": "x", "question": "' + raw + b'", "answers": ["a"]}\n'
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"".join(lines) + bad + good)
    with pytest.raises(RecordError, match=rf"^{re.escape(str(path))}:{line_number}: not UTF-8 text \(.* at byte 25 of the line\)$"):
        load_tasks(path)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(tmp_path, constant):
    line = json.dumps(TASK)[:-1] + f', "score": {constant}}}'
    _error(load_tasks, _write(tmp_path, line), 1, f"not accepted JSON: {constant} is not a JSON value")


@pytest.mark.parametrize("key", ["id", "answers", "extra"])
def test_a_key_repeated_in_one_object_is_refused(tmp_path, key):
    line = json.dumps(TASK)[:-1] + f', "{key}": 1, "{key}": "again"}}'
    _error(load_tasks, _write(tmp_path, line), 1, f"not accepted JSON: key(s) [{key!r}] appear more than once in one object")


@pytest.mark.parametrize(("field", "escape", "position"), [("question", "\\ud800", 3), ("question", "\\udfff", 3),
                                                           ("answers", "\\udc00", 3), ("text", "\\uD83D", 3)])
def test_unpaired_surrogates_are_refused(tmp_path, field, escape, position):
    loader = load_corpus if field == "text" else load_tasks
    row = PAGE if field == "text" else TASK
    value = json.dumps(["abc" + "SURR"]) if field == "answers" else json.dumps("abc" + "SURR")
    line = json.dumps({k: v for k, v in row.items() if k != field})[:-1] + f', "{field}": {value}}}'
    code = escape[2:].upper()
    _error(loader, _write(tmp_path, line.replace("SURR", escape)), 1,
           f"{field!r} holds an unpaired surrogate U+{code} at position {position}; text must be valid Unicode")


def test_a_surrogate_pair_is_one_valid_character(tmp_path):
    line = json.dumps(TASK).replace("Alpha?", "Alpha \\ud83d\\ude00?")
    assert load_tasks(_write(tmp_path, line))[0].question == "What colour is Alpha \U0001F600?"


@pytest.mark.parametrize("line", ['{"id": "q1", "question": ', "{'id': 'q1'}", '{"id": "q1",}', "not json"])
def test_invalid_json_names_the_line_and_column(tmp_path, line):
    with pytest.raises(RecordError, match=rf"^{re.escape(str(tmp_path))}.*data.jsonl:2: not valid JSON \(.* at column \d+\)$"):
        load_tasks(_write(tmp_path, TASK, line))


@pytest.mark.parametrize(("loader", "kind"), [(load_corpus, "page"), (load_tasks, "task")])
@pytest.mark.parametrize("content", ["", "\n\n", "   \n\t\n"])
def test_a_file_with_no_records_is_refused(tmp_path, loader, kind, content):
    path = tmp_path / "empty.jsonl"
    path.write_text(content)
    with pytest.raises(RecordError, match=rf"^{re.escape(str(path))}: no {kind}s: expected one JSON object per line$"):
        loader(path)


def test_valid_files_load_exactly_with_optional_fields_blank_lines_a_bom_and_extra_keys(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes(b"\xef\xbb\xbf" + (json.dumps(PAGE) + "\n\n" + json.dumps(
        {"id": "d2", "title": "", "text": "Beta. Gamma!", "url": "https://x.test/b", "meta": {"n": [1]}}) + "\r\n").encode())
    pages = load_corpus(corpus)
    assert [(p.id, p.url, p.title, [s.text for s in p.sentences]) for p in pages] == [
        ("d1", "doc://d1", "Alpha", ["Alpha is red.", "It is big."]), ("d2", "https://x.test/b", "", ["Beta.", "Gamma!"])]
    tasks = _write(tmp_path, TASK, {"id": "q2", "question": "How many?", "answers": "3", "split": "dev",
                                    "family": "count", "answer_type": "number"}, name="tasks.jsonl")
    loaded = load_tasks(tasks)
    assert [(t.id, t.answers, t.split, t.family, t.answer_type) for t in loaded] == [
        ("q1", ("red",), "test", "external", "text"), ("q2", ("3",), "dev", "count", "number")]
    world = world_from_files(corpus, tasks)
    assert [p.id for p in world.pages] == ["d1", "d2"] and [t.id for t in world.tasks] == ["q1", "q2"]


def test_world_from_files_reports_the_bad_file(tmp_path):
    corpus = _write(tmp_path, PAGE, name="corpus.jsonl")
    tasks = _write(tmp_path, TASK, {**TASK, "id": "q2", "answers": None}, name="tasks.jsonl")
    with pytest.raises(RecordError, match=rf"^{re.escape(str(tasks))}:2: 'answers' must be"):
        world_from_files(corpus, tasks)


def test_a_bad_default_split_and_a_missing_file_are_clear(tmp_path):
    with pytest.raises(ValueError, match="default_split must be one of train, dev, test, got 'val'"):
        load_tasks(_write(tmp_path, TASK), default_split="val")
    with pytest.raises(FileNotFoundError, match="no such JSONL file"):
        load_corpus(tmp_path / "missing.jsonl")
    for there in (tmp_path, Path("/dev/zero")):  # before: "no such JSONL file" for what is there
        with pytest.raises(FileNotFoundError, match=rf"^not a regular file \(a JSONL file is read from a file\): "
                                                    rf"{re.escape(str(there))}$"):
            load_corpus(there)


def test_an_env_on_your_own_files_says_which_split_holds_the_tasks(tmp_path):
    """Before: "no tasks in split 'train' for families=None difficulty=None", with no word that the
    loaded tasks went to ``test`` (the default split of lines that name none)."""
    import searchgym

    world = world_from_files(_write(tmp_path, PAGE, name="corpus.jsonl"), _write(tmp_path, TASK, name="tasks.jsonl"))
    with pytest.raises(ValueError, match=r"no tasks in split 'train' .*; tasks by split: test 1; choose one with split="):
        searchgym.make("SearchQA-v0", world=world)
    obs, _ = searchgym.make("SearchQA-v0", world=world, split="test").reset(seed=0)
    assert "What colour is Alpha?" in obs


@pytest.mark.parametrize("answers", [["twelve"], "about half", ["n/a", "none"]])
def test_a_number_task_whose_answers_hold_no_number_is_refused(tmp_path, answers):
    """Before: it loaded, and no answer could ever score (numbers are matched by their first number)."""
    row = {**TASK, "id": "q2", "answer_type": "number", "answers": answers}
    shown = json.dumps([answers] if isinstance(answers, str) else answers)
    _error(load_tasks, _write(tmp_path, TASK, row), 2, "'answers' of a number task must hold a number written in "
           f"digits (answers are matched by their first number), got {shown}")


def test_a_number_task_with_one_numeric_alias_loads(tmp_path):
    row = {**TASK, "answer_type": "number", "answers": ["twelve", "12"]}
    assert load_tasks(_write(tmp_path, row))[0].answers == ("twelve", "12")
