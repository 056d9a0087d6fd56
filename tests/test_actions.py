"""Text actions: parsing both formats robustly, formatting as the exact inverse, never raising."""

from __future__ import annotations

import pytest

from searchgym.action_types import Action, ParseError
from searchgym.actions import (
    MAX_ACTION_CHARS,
    accepted_forms,
    format_action,
    format_tool_result,
    parse_action,
)

TOOLS = ("web_search", "knowledge_base", "calculator", "current_time", "ask_for_clarification")
SEARCH_X = Action.call("web_search", query="Vexa Corp")


def hermes(text: str, team: bool = False, tools=TOOLS):
    return parse_action(text, "hermes", tools, allow_team_actions=team)


def tags(text: str, team: bool = False, tools=TOOLS):
    return parse_action(text, "tags", tools, allow_team_actions=team)


# ------------------------------------------------------------------------------------ Action
def test_action_equality_ignores_provenance_and_argument_order():
    a = Action(kind="tool", tool="web_search", arguments=(("query", "x"), ("k", 3)), provenance="from p1")
    b = Action.call("web_search", k=3, query="x")
    assert a == b and hash(a) == hash(b)
    assert a.arguments == (("k", 3), ("query", "x"))
    assert a.args == {"k": 3, "query": "x"}
    assert Action.answer("  Mara Quell ").text == "Mara Quell"
    assert Action.call("t", items=["a", {"b": 1}]).arguments == (("items", ("a", (("b", 1),))),)
    assert len({Action.wait(), Action.wait(), Action.post("n"), Action.post("n", provenance="p")}) == 2


def test_render_and_describe():
    assert SEARCH_X.render() == 'web_search(query="Vexa Corp")'
    assert Action.call("calculator", expression="12 + 30").render() == 'calculator(expression="12 + 30")'
    assert Action.call("current_time").render() == "current_time()"
    assert Action.answer("Mara Quell").render() == 'answer("Mara Quell")'
    assert Action.post('say "hi"').render() == 'post("say \\"hi\\"")'
    assert Action.wait().render() == "wait()"
    assert Action.call("web_search", query="x", k=3).render() == 'web_search(k=3, query="x")'
    cand = Action.answer("Mara Quell", provenance="p12: Vexa Corp was founded by Mara Quell.")
    assert cand.describe() == 'answer("Mara Quell")  <- p12: Vexa Corp was founded by Mara Quell.'
    assert SEARCH_X.describe() == SEARCH_X.render()
    found = SEARCH_X.with_provenance("name seen in p3")
    assert found == SEARCH_X and found.describe() == 'web_search(query="Vexa Corp")  <- name seen in p3'


@pytest.mark.parametrize(
    "kwargs",
    [
        {"kind": "jump"},
        {"kind": "tool"},
        {"kind": "answer", "text": "  "},
        {"kind": "wait", "text": "x"},
        {"kind": "answer", "text": "x", "tool": "web_search"},
        {"kind": "post", "text": "x", "arguments": (("a", 1),)},
        {"kind": "tool", "tool": "t", "arguments": (("a", 1), ("a", 2))},
    ],
)
def test_action_rejects_inconsistent_fields(kwargs):
    with pytest.raises(ValueError):
        Action(**kwargs)


# ---------------------------------------------------------------------------- hermes parsing
CALL = '{"name": "web_search", "arguments": {"query": "Vexa Corp"}}'


@pytest.mark.parametrize(
    "text",
    [
        f"<tool_call>{CALL}</tool_call>",
        f"<tool_call>\n{CALL}\n</tool_call>",
        f"Let me search for it.\n<tool_call>{CALL}</tool_call>\nI will wait for results.",
        f"<tool_call>{CALL}",  # missing closing tag
        f"<tool_call>{CALL}<|im_end|>",
        # double-encoded arguments
        '<tool_call>{"name": "web_search", "arguments": "{\\"query\\": \\"Vexa Corp\\"}"}</tool_call>',
        "<tool_call>{'name': 'web_search', 'arguments': {'query': 'Vexa Corp'}}</tool_call>",  # python dict
        '<tool_call>{"name": "web_search", "parameters": {"query": "Vexa Corp"}}</tool_call>',
        f"<tool_call>\n```json\n{CALL}\n```\n</tool_call>",  # code fence
        # trailing commas
        '<tool_call>{"name": "web_search", "arguments": {"query": "Vexa Corp",},}</tool_call>',
        '<tool_call>{"name": "web_search", "arguments": {"query": "Vexa Corp"}</tool_call>',  # a brace short
        '<tool_call>{"name": "web_search", "query": "Vexa Corp"}</tool_call>',  # flat arguments
        '<tool_call>{"function": {"name": "web_search", "arguments": {"query": "Vexa Corp"}}}</tool_call>',
        '<tool_call>{"name": "Web_Search", "arguments": {"query": "Vexa Corp"}}</tool_call>',  # case
        f"<TOOL_CALL>{CALL}</TOOL_CALL>",
        f"<think>I should use <answer>guess</answer>?</think>\n<tool_call>{CALL}</tool_call>",
        f"Reasoning the template opened...</think>\n\n<tool_call>{CALL}</tool_call>",
        f"```json\n{CALL}\n```",  # bare, fenced, no tags
        CALL,
        f"<tool_call>{CALL}</tool_call>\n<tool_call>" + '{"name": "calculator", "arguments": {}}</tool_call>',
        f"<tool_call>{CALL}</tool_call> <answer>Mara</answer>",  # tool call first wins
    ],
)
def test_hermes_reads_tool_calls_robustly(text):
    assert hermes(text) == SEARCH_X


def test_hermes_triple_encoded_and_empty_arguments():
    inner = '{"query": "Vexa Corp"}'
    import json

    twice = json.dumps(json.dumps(inner))
    assert hermes('<tool_call>{"name": "web_search", "arguments": ' + twice + "}</tool_call>") == SEARCH_X
    assert hermes('<tool_call>{"name": "current_time", "arguments": ""}</tool_call>') == Action.call(
        "current_time"
    )
    assert hermes('<tool_call>{"name": "current_time"}</tool_call>') == Action.call("current_time")
    assert hermes("<tool_call>{'name': 'web_search', 'arguments': {'query': 'x', 'k': 3,}}") == Action.call(
        "web_search", query="x", k=3
    )


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("<answer>Mara Quell</answer>", "Mara Quell"),
        ("So the founder is clear. <answer> Mara Quell </answer> Done.", "Mara Quell"),
        ("<answer>Mara Quell", "Mara Quell"),  # missing closing tag
        ("<answer>Mara Quell\n\nI hope this helps!", "Mara Quell"),
        ("<answer>Mara Quell<|im_end|>", "Mara Quell"),
        ("<answer>A, B\nC</answer>", "A, B\nC"),
        ('<tool_call>{"name": "answer", "arguments": {"answer": "Mara Quell"}}</tool_call>', "Mara Quell"),
        ('<tool_call>{"name": "answer", "arguments": {"text": "Mara Quell"}}</tool_call>', "Mara Quell"),
        ('<tool_call>{"name": "answer", "arguments": {"answer": 1200}}</tool_call>', "1200"),
        ('<tool_call>{"name": "answer", "arguments": {"answer": ["A", "B"]}}</tool_call>', "A, B"),
        (f"<answer>Mara</answer> <tool_call>{CALL}</tool_call>", "Mara"),  # answer first wins
    ],
)
def test_hermes_reads_answers(text, answer):
    assert hermes(text) == Action.answer(answer)


def test_hermes_team_actions():
    assert hermes("<post>Vexa was founded in 1990</post>", team=True) == Action.post(
        "Vexa was founded in 1990"
    )
    assert hermes("<wait/>", team=True) == Action.wait()
    assert hermes("<wait></wait>", team=True) == Action.wait()
    assert hermes(
        '<tool_call>{"name": "post_note", "arguments": {"note": "hi"}}</tool_call>', team=True
    ) == Action.post("hi")
    assert hermes('<tool_call>{"name": "wait", "arguments": {}}</tool_call>', team=True) == Action.wait()
    # outside a team they are not actions; a later real action still counts
    assert hermes(f"<post>x</post><tool_call>{CALL}</tool_call>") == SEARCH_X
    err = hermes("<wait/>")
    assert isinstance(err, ParseError) and "team actions" in err.message
    err = hermes('<tool_call>{"name": "post_note", "arguments": {"note": "hi"}}</tool_call>')
    assert isinstance(err, ParseError) and "post_note is a team action, not available here" in err.message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '<tool_call>{"name": "browse", "arguments": {}}</tool_call>',
            "unknown tool 'browse'; accepted calls: web_search",
        ),
        ("I think the answer is Mara Quell.", "no <tool_call> or <answer> found"),
        ("<tool_call>search for Vexa</tool_call>", "could not read the JSON inside <tool_call>"),
        ('<tool_call>{"arguments": {"query": "x"}}</tool_call>', 'the tool call has no "name"'),
        ('<tool_call>["web_search", "x"]</tool_call>', "could not read the JSON"),
        (
            '<tool_call>{"name": "web_search", "arguments": "Vexa"}</tool_call>',
            'could not read the "arguments"',
        ),
        (
            '<tool_call>{"name": "web_search", "arguments": [1, 2]}</tool_call>',
            "must be a JSON object, got a list",
        ),
        ("<answer></answer>", "the <answer> is empty"),
        ('<tool_call>{"name": "answer", "arguments": {}}</tool_call>', "the answer call is empty"),
        ("<think>still thinking about <tool_call>", "never closed"),
        ("x" * (MAX_ACTION_CHARS + 1), f"at most {MAX_ACTION_CHARS}"),
    ],
)
def test_hermes_errors_say_what_was_wrong_and_what_is_accepted(text, expected):
    err = hermes(text)
    assert isinstance(err, ParseError)
    assert expected in err.message
    assert "Accepted actions (hermes format)" in err.message
    assert '<tool_call>{"name": "web_search", "arguments": {"query": "..."}}</tool_call>' in err.message


def test_long_thinking_does_not_count_against_the_length_bound():
    text = "<think>" + "hmm " * 50_000 + "</think><answer>Mara</answer>"
    assert hermes(text) == Action.answer("Mara")


def test_non_string_input_is_a_parse_error():
    assert isinstance(hermes(None), ParseError)
    assert isinstance(tags(12), ParseError)
    assert tags(b"<answer>caf\xc3\xa9</answer>") == Action.answer("caf\u00e9")


# ------------------------------------------------------------------------------ tags parsing
@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("<search>Vexa Corp</search>", SEARCH_X),
        ("<think>first find the maker</think>\n<search> Vexa Corp </search>", SEARCH_X),
        ("<search>Vexa Corp", SEARCH_X),
        ("<search>Vexa Corp\n<information>", SEARCH_X),
        ("<lookup>Mara Quell</lookup>", Action.call("knowledge_base", entity="Mara Quell")),
        ("<calculate>12 + 30</calculate>", Action.call("calculator", expression="12 + 30")),
        ("<time></time>", Action.call("current_time")),
        ("<time/>", Action.call("current_time")),
        ("<time />", Action.call("current_time")),
        (
            "<clarify>Which Mara Quell?</clarify>",
            Action.call("ask_for_clarification", question="Which Mara Quell?"),
        ),
        ("<answer>Mara Quell</answer>", Action.answer("Mara Quell")),
        ("<answer>Mara Quell", Action.answer("Mara Quell")),
        ("<SEARCH>Vexa Corp</SEARCH>", SEARCH_X),
        ("<search>Vexa Corp</search><answer>x</answer>", SEARCH_X),
        ("<answer>x</answer><search>Vexa Corp</search>", Action.answer("x")),
        ("<search>Vexa Corp</search><search>other</search>", SEARCH_X),
        ("<search_results>no</search_results> <search>Vexa Corp</search>", SEARCH_X),
    ],
)
def test_tags_reads_each_tag(text, action):
    assert tags(text) == action


def test_tags_team_actions_and_errors():
    assert tags("<post>note</post>", team=True) == Action.post("note")
    assert tags("<wait/>", team=True) == Action.wait()
    assert tags("<wait></wait>", team=True) == Action.wait()
    assert "team actions" in tags("<wait/>").message
    err = tags("<calculate>1+1</calculate>", tools=("web_search",))
    assert isinstance(err, ParseError) and "calculator, which is not available here" in err.message
    assert "<calculate>" not in err.message.split("Accepted actions")[1]  # only usable forms are shown
    err = tags(f"<tool_call>{CALL}</tool_call>")
    assert isinstance(err, ParseError) and "uses the tags format" in err.message
    err = tags("the answer is 5")
    assert "no action tag found" in err.message and "<search>search query</search>" in err.message
    assert "the <answer> is empty" in tags("<answer> </answer>").message


def test_accepted_forms_lists_tools_and_team_actions():
    forms = accepted_forms("hermes", ["web_search", "my_tool"], allow_team_actions=True)
    assert '{"name": "my_tool", "arguments": {"...": "..."}}' in forms
    assert "<post>a note for your team</post>" in forms and "<wait/>" in forms
    forms = accepted_forms("tags", ["web_search", "my_tool"])
    assert "(no tag exists for: my_tool)" in forms and "<wait/>" not in forms
    with pytest.raises(ValueError, match="accepted: hermes, tags"):
        accepted_forms("xml", TOOLS)
    with pytest.raises(ValueError, match="accepted: hermes, tags"):
        parse_action("<answer>x</answer>", "xml", TOOLS)


# ----------------------------------------------------------------------------- round trips
TEXTS = [
    "Mara Quell",
    'say "hi"',
    "caf\u00e9 \u2014 \u4e2d\u6587",
    "a, b\nc",
    "{not json}",
    "5 < 6 & 7 > 2",
    "it's",
    "back\\slash",
    "multi\n\nparagraph",
]
ROUND_TRIP = [
    SEARCH_X,
    Action.call("knowledge_base", entity="Mara Quell"),
    Action.call("calculator", expression="(12 + 30) * 2"),
    Action.call("current_time"),
    Action.call("ask_for_clarification", question="Which one?"),
    Action.wait(),
    Action.call("web_search", query="</tool_call> inside"),
    *(Action.call("web_search", query=t) for t in TEXTS),
    *(Action.answer(t) for t in TEXTS),
    *(Action.post(t) for t in TEXTS),
]
HERMES_ONLY = [
    Action.call("web_search", query="x", k=3),
    Action.call("web_search", query=" padded "),
    Action.call("custom_tool", flag=True, ratio=0.5, items=["a", "b"], nothing=None),
    Action.answer("a </answer> b"),  # hermes falls back to the JSON tool-call form
    Action.post("see <post> and </post>"),
]


@pytest.mark.parametrize("tool_format", ["hermes", "tags"])
@pytest.mark.parametrize("action", ROUND_TRIP, ids=lambda a: a.render()[:40])
def test_format_then_parse_is_identity(tool_format, action):
    text = format_action(action, tool_format)
    assert parse_action(text, tool_format, TOOLS, allow_team_actions=True) == action


@pytest.mark.parametrize("action", HERMES_ONLY, ids=lambda a: a.render()[:40])
def test_hermes_round_trips_any_json_arguments(action):
    tools = (*TOOLS, "custom_tool")
    assert parse_action(format_action(action, "hermes"), "hermes", tools, allow_team_actions=True) == action
    with pytest.raises(ValueError, match="cannot be written in the tags format"):
        format_action(action, "tags")


def test_format_outputs():
    assert format_action(SEARCH_X, "hermes") == (
        '<tool_call>\n{"name": "web_search", "arguments": {"query": "Vexa Corp"}}\n</tool_call>'
    )
    assert format_action(SEARCH_X, "tags") == "<search>Vexa Corp</search>"
    assert format_action(Action.call("current_time"), "tags") == "<time/>"
    assert format_action(Action.answer("x"), "hermes") == "<answer>x</answer>"
    assert format_action(Action.answer("a </answer>"), "hermes") == (
        '<tool_call>\n{"name": "answer", "arguments": {"answer": "a </answer>"}}\n</tool_call>'
    )
    with pytest.raises(ValueError, match="cannot be written in the hermes format"):
        format_action(Action.answer("<think> never closed"), "hermes")
    assert (
        format_tool_result("web_search", "1. Vexa", "hermes") == "<tool_response>\n1. Vexa\n</tool_response>"
    )
    assert format_tool_result("web_search", "1. Vexa", "tags") == "<information>\n1. Vexa\n</information>"
