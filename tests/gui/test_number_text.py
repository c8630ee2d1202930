"""parse_number / format_number: what a person types becomes a finite float, or a clear refusal.

Lives under tests/gui only because tests/core is reserved for explorer.core; it needs no Qt.
"""
import os
import subprocess
import sys

import pytest

from explorer.widgets.number_text import MAX_ABS, check_number, format_change, format_number, parse_number


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1.5", 1.5),
        (" -2 ", -2.0),
        ("3e-2", 0.03),
        ("+4", 4.0),
        ("1,5", 1.5),
        (".5", 0.5),
        ("5.", 5.0),
        ("-1E3", -1000.0),
        ("１．５", 1.5),  # full-width, as a Chinese input method types it
        ("\u22123", -3.0),  # Unicode minus sign
        ("1e6", 1e6),
        ("-1e6", -1e6),
        ("1e-400", 0.0),  # underflow is a harmless zero
    ],
)
def test_accepts_what_people_type(text, expected):
    assert parse_number(text) == expected


def test_negative_zero_becomes_zero():
    value = parse_number("-0")
    assert value == 0.0 and str(value) == "0.0"


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("abc", "'abc' is not a number"),
        ("nan", "NaN"),
        ("NaN", "NaN"),
        ("inf", "infinite"),
        ("-inf", "infinite"),
        ("Infinity", "infinite"),
        ("1e400", "overflows"),
        ("2e6", "is larger than 1e6 in magnitude"),
        ("-1000001", "is larger than 1e6 in magnitude"),
        ("1,000.5", "comma"),
        ("1,2,3", "comma"),
        ("1_000", "not a number"),
        ("0x10", "not a number"),
        ("1e", "not a number"),
        ("--1", "not a number"),
        ("1 2", "not a number"),
    ],
)
def test_refuses_with_a_message_that_names_the_problem(text, fragment):
    with pytest.raises(ValueError, match=fragment):
        parse_number(text)


def test_comma_decimal_only_when_it_is_the_only_separator():
    assert parse_number("1,000") == 1.0  # documented: a lone comma is the decimal point
    with pytest.raises(ValueError):
        parse_number("1, 5")


def test_long_text_is_shortened_in_the_message():
    with pytest.raises(ValueError) as info:
        parse_number("x" * 500)
    assert len(str(info.value)) < 80


def test_check_number_validates_non_text_values():
    assert check_number(2) == 2.0
    for bad in (float("nan"), float("inf"), 2 * MAX_ABS, "abc"):
        with pytest.raises(ValueError):
            check_number(bad)


@pytest.mark.parametrize(
    "value, text",
    [
        (0.5773502691896258, "0.5774"),
        (-2.0, "-2"),
        (120000.0, "1.2e+05"),
        (0.0, "0"),
        (-0.0, "0"),
        (1e-5, "1e-05"),
        (123.456, "123.5"),
    ],
)
def test_format_number_is_compact(value, text):
    assert format_number(value) == text


@pytest.mark.parametrize(
    "value, significant, scale, text",
    [
        (0.1, 2, 0.0, "+0.1"),  # a change always carries its sign
        (0.02481, 2, 0.0, "+0.025"),
        (-0.002052, 2, 0.0, "−0.0021"),  # a true minus, as in the cells
        (-0.002052, 4, 0.0, "−0.002052"),
        (0.0, 2, 0.0, "0"),  # unmoved: no sign
        (-0.0, 2, 0.0, "0"),
        (1.2e-5, 2, 0.0, "+1.2e−5"),  # a short exponent
        (-3e-17, 2, 0.0, "−3e−17"),  # a real (if tiny) change…
        (-3e-17, 2, 1.0, "0"),  # …or, on a map of changes up to 1, float rounding
        (1.5 * 2 / 3 ** 0.5, 2, 0.0, "+1.7"),
        (float("nan"), 2, 0.0, "NaN"),
        (float("-inf"), 2, 0.0, "−∞"),
    ],
)
def test_format_change_writes_the_sign_and_few_digits(value, significant, scale, text):
    assert format_change(value, significant, scale) == text


def test_number_text_does_not_import_qt():
    code = (
        "import sys, explorer.widgets.number_text; "
        "sys.exit(any(m.startswith('PySide6') for m in sys.modules))"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert subprocess.run([sys.executable, "-c", code], cwd=root).returncode == 0
