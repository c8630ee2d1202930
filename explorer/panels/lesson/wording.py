"""How the lesson writes numbers and names into its sentences: weights with enough decimals to tell them
apart, token names joined with "and", output rows as the Output heatmap prints them, ✓ and ✗."""
from explorer.widgets.html_escape import escape

import numpy as np

from explorer.core.lesson import distinguishing_decimals
from explorer.i18n import translate
from explorer.widgets.cell_text import format_value
from explorer.widgets.number_text import format_weight
from explorer.widgets.palette import BAD, GOOD


def mark(ok):
    """A green ✓ or a red ✗."""
    return f"<span style='color:{GOOD if ok else BAD}; font-weight:600'>{'✓' if ok else '✗'}</span>"


def weight_texts(values, among=None):
    """Texts for ``values`` with two decimals, or more when two different numbers of ``among`` (default
    ``values``) would otherwise read the same — the numbers a card or verdict names side by side."""
    d = distinguishing_decimals(values if among is None else among)
    return [format_weight(x, d) for x in values]


def weight_html(values, among=None):
    """``weight_texts`` for rich text: escaped, so "<0.01" does not open a tag and hide what follows."""
    return [escape(t) for t in weight_texts(values, among)]


def tiny(x):
    """A deviation that should be 0 up to rounding: "0" or "3.1e-17"."""
    return "0" if x == 0 else f"{x:.1e}"


def names(labels, cols):
    """The labels of ``cols``, escaped and joined: "猫", "猫 and 红色", "猫, 追 and 红色"."""
    shown = [escape(labels[c]) for c in cols]
    return shown[0] if len(shown) == 1 else (translate("Lesson", ", ").join(shown[:-1]) + translate("Lesson", " and ")
                                             + shown[-1])


def vector(values):
    """An output row as the Output heatmap prints it: [0.45, 0.18, 0.41]."""
    values = np.asarray(values, dtype=float)
    magnitude = float(np.max(np.abs(values))) if values.size else 0.0
    return "[" + ", ".join(format_value(float(x), magnitude) for x in values) + "]"


def columns_text(columns):
    """A head's columns of V as a range: "d2" or "d2–d3"."""
    lo, hi = int(columns[0]), int(columns[-1])
    return f"d{lo}" if lo == hi else f"d{lo}–d{hi}"

