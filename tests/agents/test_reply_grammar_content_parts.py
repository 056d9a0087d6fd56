"""The guided-decoding grammar reads a message's content as the rest of the code does
(``chat_replies.message_text``). Before: ``str()`` made a list of OpenAI content parts its Python repr,
so the question was not found and names such as "type" and "text" came from the markup."""

from __future__ import annotations

from agents.llm_reply_grammar import admissible_replies, visible_texts

TOOLS = [{"type": "function", "function": {"name": "knowledge_base", "parameters": {
    "properties": {"entity": {"type": "string"}}, "required": ["entity"]}}}]
CALL = '<tool_call>\n{"name": "knowledge_base", "arguments": {"entity": "Vexa Corp"}}\n</tool_call>'


def _parts(text: str) -> list[dict]:
    return [{"type": "text", "text": text}]


def test_content_parts_read_as_their_text_and_none_as_nothing():
    plain = [{"role": "user", "content": "Question: Who founded Vexa Corp?"},
             {"role": "tool", "content": "Vexa Corp (company)\n- founder: Mara Quell"},
             {"role": "tool", "content": ""}]
    parted = [{"role": "user", "content": [{"type": "text", "text": "Question: Who founded "}, "Vexa Corp?"]},
              {"role": "tool", "content": _parts("Vexa Corp (company)\n- founder: Mara Quell")},
              {"role": "tool", "content": None}]
    assert visible_texts(parted) == visible_texts(plain) == [
        "Who founded Vexa Corp?", "Vexa Corp (company)\n- founder: Mara Quell", ""]
    assert admissible_replies(parted, TOOLS) == admissible_replies(plain, TOOLS)


def test_a_call_made_in_content_parts_is_not_offered_again():
    messages = [{"role": "user", "content": _parts("Question: Who founded Vexa Corp?")}]
    assert CALL in admissible_replies(messages, TOOLS).calls
    messages += [{"role": "assistant", "content": _parts(CALL)}, {"role": "tool", "content": _parts("Vexa Corp")}]
    assert CALL not in admissible_replies(messages, TOOLS).calls
