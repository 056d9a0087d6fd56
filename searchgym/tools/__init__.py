"""The tools an agent calls: web_search, knowledge_base, calculator, current_time, ask_for_clarification.

Each is a :class:`Tool` with an OpenAI-format ``schema()`` and a call that returns a
:class:`ToolResult` (never raises). :func:`build_tools` / :func:`shared_tools` assemble a world's set.
:func:`tool_schemas` gives the function schemas for ``apply_chat_template(tools=...)`` or an OpenAI
``tools`` list; :func:`chat_tools` adds ``answer`` and the team actions (``post_note``, ``wait``) as functions.
Every tool registers itself in its own module (:func:`register_tool`, :class:`ToolSpec`); a new
tool module is imported here, which is what puts it in the registry.
"""

from __future__ import annotations

from searchgym.tools.base import Tool, ToolResult, validate_arguments
from searchgym.tools.calculator import Calculator, CalculatorError, calculate, format_number
from searchgym.tools.clarify import CLARIFICATION_EVIDENCE_ID, AskForClarification
from searchgym.tools.clock import CLOCK_EVIDENCE_ID, CurrentTime
from searchgym.tools.knowledge_base import KnowledgeBase
from searchgym.tools.retrievers import (
    RETRIEVER_NAMES,
    RETRIEVERS,
    Bm25sRetriever,
    DenseRetriever,
    HybridRetriever,
    RankBm25Retriever,
    Retriever,
    make_retriever,
    page_document,
    tokenize,
)
from searchgym.tools.team_actions import ANSWER_SCHEMA, TEAM_ACTION_SCHEMAS, chat_tools
from searchgym.tools.tool_registry import (
    CalculateFigures,
    FixedCall,
    LookupNames,
    TagForm,
    ToolSpec,
    register_tool,
    scoped_tools,
    tool_spec,
    tool_specs,
)
from searchgym.tools.toolkit import TOOL_NAMES, build_tools, clarifier, shared_tools, task_tools, tool_schemas
from searchgym.tools.web_search import SearchHit, WebSearch, normalize_query

__all__ = [
    "ANSWER_SCHEMA",
    "CLARIFICATION_EVIDENCE_ID",
    "CLOCK_EVIDENCE_ID",
    "RETRIEVER_NAMES",
    "RETRIEVERS",
    "TEAM_ACTION_SCHEMAS",
    "TOOL_NAMES",
    "AskForClarification",
    "Bm25sRetriever",
    "CalculateFigures",
    "Calculator",
    "CalculatorError",
    "CurrentTime",
    "DenseRetriever",
    "FixedCall",
    "HybridRetriever",
    "KnowledgeBase",
    "LookupNames",
    "RankBm25Retriever",
    "Retriever",
    "SearchHit",
    "TagForm",
    "Tool",
    "ToolResult",
    "ToolSpec",
    "WebSearch",
    "build_tools",
    "calculate",
    "chat_tools",
    "clarifier",
    "format_number",
    "make_retriever",
    "normalize_query",
    "page_document",
    "register_tool",
    "scoped_tools",
    "shared_tools",
    "task_tools",
    "tokenize",
    "tool_schemas",
    "tool_spec",
    "tool_specs",
    "validate_arguments",
]
