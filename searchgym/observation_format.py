"""The lines of an observation's text: written by the envs, read back by policies and baselines.

Why one module: the envs write a ``Question: ...`` line, a ``Step k: action`` line before each
result, ``[round r] author: text`` blackboard notes and a team member's ``You are NAME in a team
of N: ...`` header (docs/OBSERVATIONS.md). The features that read them back (lexical overlap,
hop features, the attention policy's tokens, the hashed-feature wrapper, the reader) must agree
with the writer, so the envs write these lines with the functions here and the readers match
them with the prefixes and patterns here. A policy that would rather not
parse text has ``env.observation_data()``.
"""

from __future__ import annotations

import re

QUESTION_PREFIX = "Question:"
#: ``Step k: action`` (groups: k, the action's rendered line).
STEP_LINE = re.compile(r"^Step (\d+): (.*)$")
#: ``[round r] author: text`` (groups: r, the author, the note's text); authors are role names.
NOTE_LINE = re.compile(r"^\[round (\d+)\] ([^:]+): (.*)$")
#: A team member's header, ``You are NAME in a team of N: ...`` (group: the member's name).
MEMBER_PREFIX = "You are "
MEMBER_HEADER = re.compile(rf"^{MEMBER_PREFIX}(\S+)")
#: What follows the team's description in a member's header: how the team shares what it finds.
TEAM_RULES = ("Only you see your tool results; share what teammates need with <post>a note</post> "
              "(everyone reads the blackboard), or <wait/>.")
#: The whole header (groups: the member's name, the team's description, ``NAME (tools; ...)`` per member).
MEMBER_TEAM = re.compile(rf"^{MEMBER_PREFIX}(\w+) in a team of \d+: (.*?)\. {re.escape(TEAM_RULES.split(';')[0])}")


def question_line(text: str, missing: str = "") -> str:
    """What follows ``Question:`` on the text's question line (unstripped), else ``missing``."""
    for line in text.splitlines():
        if line.startswith(QUESTION_PREFIX):
            return line[len(QUESTION_PREFIX):]
    return missing


def question_text(question: str) -> str:
    """The question's line as the envs write it."""
    return f"{QUESTION_PREFIX} {question}"


def member_header(name: str, team_size: int, team: str) -> str:
    """The start of a team member's header: who it is and who its teammates are."""
    return f"{MEMBER_PREFIX}{name} in a team of {team_size}: {team}."


def team_member_header(name: str, team_size: int, team: str) -> str:
    """A team member's whole header: ``member_header`` and the team's rules (``TEAM_RULES``)."""
    return f"{member_header(name, team_size, team)} {TEAM_RULES}"


def step_block(number: int, action_line: str, result: str) -> str:
    """One step as the transcript shows it: its ``Step k:`` line, then the result's lines."""
    return f"Step {number}: {action_line}\n{result}\n"


def note_line(round_number: int, author: str, text: str) -> str:
    """One blackboard note as the notes section shows it."""
    return f"[round {round_number}] {author}: {text}"
