"""Turn what a person types into a finite float, and a float into compact display text.

Qt-free on purpose, so it is usable (and testable) without a display; its refusals are marked for translation
(explorer/core/translatable.py) and said in the interface's language where they are shown.
"""
from __future__ import annotations

import math
import re
import unicodedata

from explorer.core.state_diff import ROUNDING
from explorer.core.translatable import QT_TRANSLATE_NOOP

MAX_ABS = 1e6
"""Largest magnitude a typed value may have; bigger numbers are refused, not clamped."""

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_NAN = {"nan", "+nan", "-nan"}
_INF = {"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "∞", "+∞", "-∞"}
_SHOWN_MAX = 24


def _shown(text: str) -> str:
    """The text quoted for a message, shortened if it is long."""
    if len(text) > _SHOWN_MAX:
        text = text[: _SHOWN_MAX - 1] + "…"
    return f"'{text}'"


def _normalise(text: str) -> str:
    """Full-width forms (from a Chinese input method) and the Unicode minus become ASCII."""
    if text.isascii():
        return text.strip()
    text = unicodedata.normalize("NFKC", text).strip()
    return text.replace("\u2212", "-").replace("\u2013", "-")


def parse_number(text: str, bounded: bool = True) -> float:
    """Parse one typed number ("1.5", " -2 ", "3e-2", "+4", full-width "１．５") into a finite float.

    A comma is taken as the decimal point ("1,5" is 1.5) only when the text has exactly one comma
    and no other separator (no '.', no space, no second comma); so "1,000" is 1.0, and "1,000.5"
    or "1,2,3" are refused. Raises ValueError naming the problem for empty text, non-numbers,
    NaN, infinities, values that overflow, and (``bounded``) magnitudes above MAX_ABS (1e6); a field with a
    range of its own passes ``bounded=False`` and names its range instead.
    """
    if not isinstance(text, str):
        raise ValueError(f"{text!r} is not text")
    cleaned = _normalise(text)
    if not cleaned:
        return _fail(QT_TRANSLATE_NOOP("Numbers", "empty text is not a number"))
    lowered = cleaned.lower()
    if lowered in _NAN:
        return _fail(QT_TRANSLATE_NOOP("Numbers", "{text} is not a number (NaN is not allowed)").format(
            text=_shown(cleaned)))
    if lowered in _INF:
        return _fail(QT_TRANSLATE_NOOP("Numbers", "{text} is infinite; type a finite number").format(text=_shown(cleaned)))
    candidate = cleaned
    if candidate.count(",") == 1 and "." not in candidate:
        candidate = candidate.replace(",", ".")
    if not _NUMBER.fullmatch(candidate):
        if "," in cleaned:
            return _fail(QT_TRANSLATE_NOOP("Numbers", "{text} is not a number (a comma is read as the decimal point "
                                                      "only when it is the only separator)").format(text=_shown(cleaned)))
        return _fail(QT_TRANSLATE_NOOP("Numbers", "{text} is not a number").format(text=_shown(cleaned)))
    value = float(candidate)
    if math.isinf(value):
        return _fail(QT_TRANSLATE_NOOP("Numbers", "{text} overflows: it is too large to represent").format(
            text=_shown(cleaned)))
    if bounded and abs(value) > MAX_ABS:
        return _fail(QT_TRANSLATE_NOOP("Numbers", "{text} is larger than 1e6 in magnitude").format(text=_shown(cleaned)))
    return value + 0.0  # -0.0 becomes 0.0


def _fail(message: str) -> float:
    raise ValueError(message)


def check_number(value: float) -> float:
    """Validate a number that did not come from text (a drag, a program): finite and within MAX_ABS."""
    try:
        value = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(QT_TRANSLATE_NOOP("Numbers", "{text} is not a number").format(text=repr(value))) from None
    if math.isnan(value):
        raise ValueError(QT_TRANSLATE_NOOP("Numbers", "NaN is not allowed"))
    if math.isinf(value):
        raise ValueError(QT_TRANSLATE_NOOP("Numbers", "{text} is infinite; type a finite number").format(text=repr(value)))
    if abs(value) > MAX_ABS:
        raise ValueError(QT_TRANSLATE_NOOP("Numbers", "{text} is larger than 1e6 in magnitude").format(
            text=format_number(value)))
    return value + 0.0


def format_number(v: float, significant: int = 4) -> str:
    """Compact display text: up to `significant` significant digits ("0.5774", "-2", "1.2e+05")."""
    v = float(v)
    if v == 0.0:
        return "0"  # also hides the sign of -0.0
    text = f"{v:.{significant}g}"
    return "0" if text in ("-0", "0") else text


def format_change(x: float, significant: int = 2, scale: float = 0.0) -> str:
    """A change (ΔS, B − A, …): its sign always written, ``significant`` significant digits, a true minus and
    "0" for none — "+0.1", "+0.025", "−0.0021", "+1.2e−5"; below ``ROUNDING`` of ``scale`` it is float rounding: "0"."""
    x = float(x)
    if not math.isfinite(x):
        return "NaN" if math.isnan(x) else ("+∞" if x > 0 else "−∞")
    if x == 0.0 or abs(x) <= ROUNDING * abs(scale):
        return "0"
    text = f"{x:+.{significant}g}".replace("e+0", "e+").replace("e-0", "e-")
    return text.replace("-", "−")


def format_fixed(x: float, decimals: int = 2) -> str:
    """``x`` with ``decimals`` decimals, a true minus sign and no "−0.00" (the texts that explain a sum)."""
    text = f"{float(x):.{decimals}f}"
    if text.startswith("-") and text.strip("-0.") == "":
        text = text[1:]
    return text.replace("-", "−")


def format_weight(w: float, decimals: int = 2) -> str:
    """A weight as the heatmaps print it (two decimals, or ``decimals``); a weight too small to show but
    not zero reads "<0.01" rather than a misleading "0.00" — the one wording of every panel."""
    w = float(w)
    if 0 < w < 0.5 * 10.0 ** -decimals:
        return f"<{10.0 ** -decimals:.{decimals}f}"
    return format_fixed(w, decimals)


def format_bytes(n: float) -> str:
    """A size in bytes the way people read it: 48 bytes, 1.5 KiB, 512 KiB, 2.0 GiB."""
    n = float(n)
    for unit, size in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= size:
            value = n / size
            return f"{value:.3g} {unit}" if value < 1000 else f"{value:.0f} {unit}"
    return (QT_TRANSLATE_NOOP("Numbers", "{n} byte") if n == 1 else QT_TRANSLATE_NOOP("Numbers", "{n} bytes")).format(
        n=f"{n:.0f}")  # (marked: the Qt side says it in the interface's language with i18n.in_language)


def format_count(n: float) -> str:
    """A large count with an SI prefix and three significant digits: 950, 12.3 k, 4.19 M, 1.1 G."""
    n = float(n)
    for unit, size in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f}"


TINY_DECIMALS = 4  # an axis of tiny numbers needing more decimals writes them as 2.5e−5


def tick_text(value, decimals):
    """A round tick's text: "0", "0.5", "−1.5" (a true minus, as every number the app writes)."""
    return "0" if value == 0 else format_fixed(value, decimals)


def tiny_tick_text(value, decimals):
    """A tick's text on an axis of tiny numbers: "2.5e−5", "1e−300" (the digits ``decimals`` resolves, a true minus)."""
    if value == 0:
        return "0"
    digits = max(0, math.floor(math.log10(abs(value))) + decimals)
    mantissa, exponent = f"{value:.{digits}e}".split("e")
    return f"{mantissa}e{int(exponent)}".replace("-", "−")


def tick_texts(values, decimals):
    """The round ticks' texts, in decimals ("0.25") — on an axis whose numbers are all below 0.001 and need
    more than TINY_DECIMALS decimals, as "2.5e−5" (at 1e−9 a plain number is 12 characters long)."""
    tiny = decimals > TINY_DECIMALS and max((abs(v) for v in values), default=0.0) < 1e-3
    return [(tiny_tick_text if tiny else tick_text)(v, decimals) for v in values]
