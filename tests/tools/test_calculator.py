from __future__ import annotations

import time
import warnings

import pytest

from searchgym.tools.calculator import Calculator, format_number


@pytest.fixture(scope="module")
def calc():
    return Calculator()


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("1 + 2 * 3", "7"),
        ("(1 + 2) * 3", "9"),
        ("7 / 2", "3.5"),
        ("8 / 2", "4"),
        ("7 // 2", "3"),
        ("-7 // 2", "-4"),
        ("7 % 3", "1"),
        ("2 ** 10", "1024"),
        ("2 ** -1", "0.5"),
        ("-3 + +5", "2"),
        ("1 / 3", "0.333333"),
        ("2 / 3", "0.666667"),
        ("1,200 + 3,400", "4600"),
        ("1,234,567 - 1", "1234566"),
        ("(1,200 + 3,400) / 2", "2300"),
        ("max(1,200)", "200"),
        ("2031 - 1987 =", "44"),
        ("2031 - 1987?", "44"),
        ("abs(-4.5)", "4.5"),
        ("round(3.14159, 2)", "3.14"),
        ("round(2.7)", "3"),
        ("min(3, 1.5, 2)", "1.5"),
        ("max(3, 7, 2)", "7"),
        ("max(5)", "5"),
        ("max(" * 19 + "1" + ")" * 19 + " * 2", "2"),
        ("sqrt(2)", "1.414214"),
        ("sqrt(16) + 1", "5"),
        ("0.1 + 0.2", "0.3"),
        ("1200000000 - 800000000", "400000000"),
        ("10 ** 15", "1000000000000000"),
        ("1+" * 60 + "1", "61"),
        ("6 × 7 ÷ 2", "21"),
        ("１＋１", "2"),  # fullwidth forms, as a CJK keyboard types them (before: "could not parse '1+1'")
        ("（２０－３）＊４", "68"),
    ],
)
def test_results(calc, expression, expected):
    result = calc(expression=expression)
    assert result.ok, result.error
    assert result.text == expected
    assert result.evidence_ids == ()


@pytest.mark.parametrize(
    ("expression", "fragment"),
    [
        ("", "empty"),
        ("   =", "empty"),
        ("1 / 0", "division by zero"),
        ("5 % 0", "division by zero"),
        ("0 ** -1", "negative power"),
        ("2 ** 65", "exponent"),
        ("2 ** 50", "1e15"),
        ("10 ** 16", "1e15"),
        ("0.5 ** -60", "1e15"),
        ("9999999 * 9999999999", "1e15"),
        ("10000000000000000 - 1", "1e15"),
        ("(-8) ** 0.5", "not a real number"),
        ("sqrt(-1)", "not a real number"),
        ("x + 1", "names not allowed"),
        ("foo(1)", "function 'foo' not allowed"),
        ("max(*[1, 2])", "starred"),
        ("round(1.5, ndigits=1)", "positional"),
        ("round(1.5, 0.5)", "whole number"),
        ("abs(1, 2)", "takes 1 argument"),
        ("min()", "at least 1"),
        ("'abc'", "only numbers"),
        ("True + 1", "only numbers"),
        ("1j * 2", "only numbers"),
        ("[1, 2][0]", "subscripts"),
        ("lambda: 1", "lambda"),
        ("[i for i in (1, 2)]", "comprehension"),
        ("f'{1}'", "f-strings"),
        ("(y := 3)", "walrus"),
        ("1 < 2", "comparisons"),
        ("1 and 2", "and/or"),
        ("2 ^ 3", "use ** for powers"),
        ("1, 2", "tuples"),
        ("1 +", "could not parse"),
        ("(1 + 2", "could not parse"),
        ("-" * 30 + "1", "deeper than 20"),
        ("sqrt(" * 21 + "4" + ")" * 21, "deeper than 20"),
    ],
)
def test_errors_are_messages_not_exceptions(calc, expression, fragment):
    result = calc(expression=expression)
    assert not result.ok
    assert fragment in result.error


HOSTILE = [
    "__import__('os').system('ls')",
    "().__class__",
    "().__class__.__bases__[0].__subclasses__()",
    "9**9**9**9",
    "(" * 10_000 + "1" + ")" * 10_000,
    "1" * 1_000_000,
    "1e308*1e308",
    "10**10**10",
    "max(" * 19 + "1" + ")" * 19 + "**" + "9" * 90,
    "open('/etc/passwd').read()",
]


@pytest.mark.parametrize("expression", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_inputs_are_rejected_quickly(calc, expression):
    start = time.perf_counter()
    result = calc(expression=expression)
    elapsed = time.perf_counter() - start
    assert not result.ok and result.error
    assert elapsed < 0.5


def test_length_is_checked_before_parsing(calc):
    assert "limit is 200" in calc(expression="1" * 201).error
    assert calc(expression="1" * 15).ok


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [({"expression": 3}, "must be a string"), ({}, "missing"), ({"expression": "1", "x": 1}, "unknown")],
)
def test_bad_arguments(calc, arguments, fragment):
    result = calc(**arguments)
    assert not result.ok and fragment in result.error


@pytest.mark.parametrize(
    ("value", "text"),
    [(3, "3"), (3.0, "3"), (-0.0, "0"), (2.5, "2.5"), (1 / 3, "0.333333"), (-1234567.125, "-1234567.125"),
     # a nonzero value never reads as 0: below half a millionth, six significant digits
     (1e-9, "0.000000001"), (-1e-7, "-0.0000001"), (1 / 3e7, "0.0000000333333"), (1.5e-6, "0.000002"),
     # the decimal the float means, not its binary noise ("333333333333333.3125")
     (1e15 / 3, "333333333333333.3"), (0.1 + 0.2, "0.3"), (2 / 3, "0.666667")],
)
def test_format_number(value, text):
    assert format_number(value) == text


def test_a_tiny_result_is_shown_as_the_number_it_is(calc):
    assert calc(expression="1 / 10000000").text == "0.0000001"
    assert calc(expression="1000000000000000 / 3").text == "333333333333333.3"


@pytest.mark.parametrize("expression", ["2and 3", "1if 2 else 3", "0x1for", "3is 3"])
def test_a_number_glued_to_a_keyword_is_a_parse_error_and_prints_no_warning(calc, expression):
    """Python's parser warns on stderr ("invalid decimal literal") and then parses these; the
    calculator refuses them in its message instead of letting the warning reach the user's terminal."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = calc(expression=expression)
    assert not result.ok and "could not parse" in result.error and "literal" in result.error
    assert [w for w in caught if issubclass(w.category, SyntaxWarning)] == []
