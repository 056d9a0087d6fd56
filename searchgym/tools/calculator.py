"""``calculator(expression)``: arithmetic by walking a whitelisted AST, never ``eval``.

Accepted: numbers, ``+ - * / // % **``, unary ``+ -``, parentheses and the functions
abs, round, min, max, sqrt (positional arguments). Everything is bounded before it can cost
time or memory: the length of the expression (checked before parsing), its nesting depth
(parentheses counted on the string first, then the AST), exponents, and the magnitude of every
operand and intermediate result, so hostile input is rejected in microseconds.
"""

from __future__ import annotations

import ast
import math
import re
import warnings
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from searchgym.tools.base import Tool, ToolResult
from searchgym.tools.tool_registry import CalculateFigures, TagForm, ToolSpec, register_tool

MAX_CHARS = 200
MAX_DEPTH = 20
MAX_EXPONENT = 64
MAX_MAGNITUDE = 1e15

ACCEPTED = "numbers, + - * / // % **, parentheses, abs(), round(), min(), max(), sqrt()"


class CalculatorError(ValueError):
    """A message for the agent: what was wrong with the expression."""


def format_number(value: int | float) -> str:
    """Integral values without ".0"; others rounded to 6 decimals, no exponent, no float noise.

    Why these forms: a reader copies the number into an answer or the next expression, so it is
    written as the decimal it means ("333333333333333.3", not the binary's "...3.3125"), and a
    nonzero value never reads as 0 (below 0.0000005 it keeps 6 significant digits: 1e-9 is
    "0.000000001")."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not math.isfinite(value):
        return str(value)
    if float(value).is_integer():
        return str(int(value))
    rounded = round(value, 6)
    shown = Decimal(f"{value:.6g}") if rounded == 0 else Decimal(repr(rounded))
    text = format(shown, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _sqrt(x: float) -> float:
    if x < 0:
        raise CalculatorError(f"sqrt of a negative number ({format_number(x)}) is not a real number")
    return math.sqrt(x)


def _round(x: float, ndigits: float | None = None) -> float:
    if ndigits is None:
        return round(x)
    if not float(ndigits).is_integer() or abs(ndigits) > 15:
        raise CalculatorError("round's second argument must be a whole number of digits between -15 and 15")
    return round(x, int(ndigits))


# name -> (function, min args, max args or None for unbounded)
FUNCTIONS: dict[str, tuple[Callable[..., Any], int, int | None]] = {
    "abs": (abs, 1, 1),
    "round": (_round, 1, 2),
    "min": (lambda *args: min(args), 1, None),
    "max": (lambda *args: max(args), 1, None),
    "sqrt": (_sqrt, 1, 1),
}

_BINARY: dict[type, str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
}

_CONSTRUCT_NAMES: dict[str, str] = {
    "Attribute": "attribute access", "Subscript": "subscripts", "Name": "names", "Lambda": "lambda",
    "ListComp": "list comprehensions", "SetComp": "set comprehensions", "DictComp": "dict comprehensions",
    "GeneratorExp": "generator expressions", "JoinedStr": "f-strings", "FormattedValue": "f-strings",
    "NamedExpr": "the walrus operator (:=)", "Compare": "comparisons", "BoolOp": "and/or",
    "IfExp": "conditional expressions", "Tuple": "tuples", "List": "lists", "Dict": "dicts", "Set": "sets",
    "Starred": "starred arguments", "Await": "await", "Yield": "yield", "YieldFrom": "yield",
    "Slice": "slices", "BitXor": "'^' (use ** for powers)", "BitAnd": "'&'", "BitOr": "'|'",
    "LShift": "'<<'", "RShift": "'>>'", "MatMult": "'@'", "Invert": "'~'", "Not": "'not'",
}

_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def _describe(node: ast.AST) -> str:
    return _CONSTRUCT_NAMES.get(type(node).__name__, type(node).__name__)


def _paren_depth(text: str) -> int:
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth -= 1
    return deepest


def _strip_thousands(text: str) -> str:
    """Remove thousands separators ("1,200") except inside a function call's argument list."""
    out: list[str] = []
    stack: list[bool] = []  # True for a call's parentheses
    for i, char in enumerate(text):
        if char == "(":
            before = text[:i].rstrip()
            stack.append(bool(before) and (before[-1].isalnum() or before[-1] == "_"))
        elif char == ")" and stack:
            stack.pop()
        elif char == "," and not (stack and stack[-1]) and _THOUSANDS.match(text, i):
            continue
        out.append(char)
    return "".join(out)


def prepare(expression: str) -> str:
    """Length/depth checks on the raw string, then thousands separators and a trailing = or ?."""
    if len(expression) > MAX_CHARS:
        raise CalculatorError(f"expression is {len(expression)} characters long; the limit is {MAX_CHARS}")
    text = expression.strip().rstrip("=?").strip()
    if not text:
        raise CalculatorError(f"empty expression; accepted: {ACCEPTED}")
    if _paren_depth(text) > MAX_DEPTH:
        raise CalculatorError(f"expression nests deeper than {MAX_DEPTH} levels")
    text = text.replace("×", "*").replace("÷", "/").replace("−", "-").translate(_FULLWIDTH)
    return _strip_thousands(text)


#: Fullwidth ASCII forms (U+FF01..U+FF5E: "１＋１" from a CJK keyboard) as their ASCII characters. Before:
#: "could not parse '1+1'", the observation's charset having mapped back what the parser refused.
_FULLWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}


def _nesting(tree: ast.AST) -> int:
    """AST nesting depth; a left-associative chain (1+2+3+...) counts as one level, not many."""
    deepest = 0
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.operator | ast.unaryop | ast.expr_context):
                continue
            flat = isinstance(node, ast.BinOp) and child is node.left and isinstance(child, ast.BinOp)
            stack.append((child, depth if flat else depth + 1))
    return deepest


def _checked(value: int | float) -> int | float:
    if isinstance(value, complex):
        raise CalculatorError("the result is not a real number")
    if isinstance(value, float) and not math.isfinite(value):
        raise CalculatorError("the result is not a finite number")
    if abs(value) > MAX_MAGNITUDE:
        # every digit while they are few: "1e+15" read as within "the limit of 1e15" for 1e15 + 1
        shown = format_number(value) if abs(value) < 1e21 else f"{float(value):.3g}" if abs(value) < 1e300 else "over 1e300"
        raise CalculatorError(f"a number exceeds the limit of 1e15 in absolute value ({shown})")
    return value


def _power(base: int | float, exponent: int | float) -> int | float:
    if abs(exponent) > MAX_EXPONENT:
        raise CalculatorError(f"exponent {format_number(exponent)} is too large; |exponent| must be <= {MAX_EXPONENT}")
    if base == 0 and exponent < 0:
        raise CalculatorError("zero cannot be raised to a negative power")
    if base != 0 and exponent * math.log10(abs(base)) > 15.5:
        raise CalculatorError("the result of ** would exceed the limit of 1e15")
    if base < 0 and not float(exponent).is_integer():
        raise CalculatorError("a negative number to a fractional power is not a real number")
    return base**exponent


def _binary(op: ast.operator, left: int | float, right: int | float) -> int | float:
    if isinstance(op, ast.Add):
        return left + right
    if isinstance(op, ast.Sub):
        return left - right
    if isinstance(op, ast.Mult):
        return left * right
    if isinstance(op, ast.Pow):
        return _power(left, right)
    if right == 0:
        raise CalculatorError(f"division by zero ('{_BINARY[type(op)]}' by 0)")
    if isinstance(op, ast.Div):
        return left / right
    if isinstance(op, ast.FloorDiv):
        return left // right
    return left % right


def evaluate(node: ast.AST) -> int | float:
    """Value of a whitelisted expression node; anything else raises :class:`CalculatorError`."""
    if isinstance(node, ast.Expression):
        return evaluate(node.body)
    if isinstance(node, ast.Constant):
        value = node.value
        if type(value) not in (int, float):
            raise CalculatorError(f"only numbers are allowed, got {type(value).__name__} {value!r:.40}")
        return _checked(value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        operand = evaluate(node.operand)
        return operand if isinstance(node.op, ast.UAdd) else -operand
    if isinstance(node, ast.BinOp):
        if type(node.op) not in _BINARY:
            raise CalculatorError(f"{_describe(node.op)} not allowed; accepted: {ACCEPTED}")
        return _checked(_binary(node.op, evaluate(node.left), evaluate(node.right)))
    if isinstance(node, ast.Call):
        return _call(node)
    if isinstance(node, ast.UnaryOp):
        raise CalculatorError(f"{_describe(node.op)} not allowed; accepted: {ACCEPTED}")
    if isinstance(node, ast.Name):
        raise CalculatorError(f"names not allowed (got {node.id!r}); accepted: {ACCEPTED}")
    raise CalculatorError(f"{_describe(node)} not allowed; accepted: {ACCEPTED}")


def _call(node: ast.Call) -> int | float:
    if not isinstance(node.func, ast.Name):
        raise CalculatorError(f"{_describe(node.func)} not allowed; call a function by name: {', '.join(FUNCTIONS)}")
    name = node.func.id
    if name not in FUNCTIONS:
        raise CalculatorError(f"function {name!r} not allowed; accepted: {', '.join(FUNCTIONS)}")
    if node.keywords:
        raise CalculatorError(f"{name}() takes positional arguments only")
    function, least, most = FUNCTIONS[name]
    count = len(node.args)
    if count < least or (most is not None and count > most):
        wanted = f"{least}" if least == most else f"{least} to {most}" if most else f"at least {least}"
        raise CalculatorError(f"{name}() takes {wanted} argument(s), got {count}")
    args = [evaluate(arg) for arg in node.args]
    return _checked(function(*args))


def calculate(expression: str) -> int | float:
    """Evaluate ``expression`` within the bounds; raises :class:`CalculatorError` with a message."""
    text = prepare(expression)
    try:
        with warnings.catch_warnings():  # "2and 3" warns on stderr ("invalid decimal literal"): refuse it instead
            warnings.simplefilter("error", SyntaxWarning)
            tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        reason = getattr(exc, "msg", None) or type(exc).__name__
        raise CalculatorError(f"could not parse {text!r} ({reason}); accepted: {ACCEPTED}") from None
    if _nesting(tree) > MAX_DEPTH + 1:
        raise CalculatorError(f"expression nests deeper than {MAX_DEPTH} levels")
    return evaluate(tree)


class Calculator(Tool):
    """Evaluate an arithmetic expression exactly (integers stay integers)."""

    name = "calculator"
    description = (
        "Evaluate an arithmetic expression, e.g. '(1200 + 3400) / 2' or 'sqrt(2) * 10'. "
        f"Accepted: {ACCEPTED}. Numbers up to 1e15."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "expression": {
                "type": "string",
                "description": f"The arithmetic expression (at most {MAX_CHARS} characters).",
            }
        },
        "required": ["expression"],
        "additionalProperties": False,
    }

    def cache_clear(self) -> None:
        """Forget the memoised results, every calculator's (benchmarks timing cold caches)."""
        _RESULTS.clear()

    def run(self, expression: str) -> ToolResult:
        found = _RESULTS.get(expression)
        if found is not None:
            return found
        try:
            value = calculate(expression)
        except CalculatorError as exc:
            return ToolResult.failure(f"calculator: {exc}")
        except (ArithmeticError, TypeError, ValueError) as exc:
            return ToolResult.failure(f"calculator could not compute this: {exc}")
        if len(_RESULTS) > RESULTS_LIMIT:
            _RESULTS.clear()
        result = _RESULTS[expression] = ToolResult(text=format_number(value))
        return result


#: expression -> its (successful) result: a value depends on the expression alone, and agents
#: calculate the same sums again and again; bounded.
RESULTS_LIMIT = 8192
_RESULTS: dict[str, ToolResult] = {}


register_tool(ToolSpec(
    "calculator", Calculator, build=lambda world, options: Calculator(),
    tag=TagForm("calculate", "expression", "arithmetic expression"), candidates=CalculateFigures("expression"),
    grounding="numbers", grounding_argument="expression", roles=("analyst",), order=30,
))
