"""How heads look and how their scale is written, shared by the Heads, Split-and-merge and Scores panels."""
from PySide6.QtGui import QColor

from explorer.widgets.number_text import format_number

# Okabe & Ito's colour-blind-safe qualitative palette (without black), in head order; the split/merge
# drawing colours Q's and the concat's columns with the same colours.
HEAD_COLOURS = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")


def head_colour(h):
    """The colour of head ``h`` (0-based): Okabe–Ito, then darker variants of it for heads 8, 9, …"""
    base = QColor(HEAD_COLOURS[h % len(HEAD_COLOURS)])
    return base if h < len(HEAD_COLOURS) else base.darker(100 + 45 * (h // len(HEAD_COLOURS)))


def scale_symbol(settings, results):
    """The scale as the formula writes it: "1/√3", "1", or the custom number."""
    return {"inv_sqrt_d": f"1/√{results.d_head}", "none": "1"}.get(settings.scale_mode, format_number(results.scale))


def scale_text(settings, results):
    """How each head's scores are scaled, in the chapter's words: "1/√2 = 0.707", "none (× 1)", …"""
    dh = results.d_head
    if settings.scale_mode == "inv_sqrt_d":
        text = f"1/√{dh} = {format_number(results.scale)}" if dh != 1 else "1/√1 = 1"
    elif settings.scale_mode == "none":
        text = "none (× 1)"
    else:
        text = f"{format_number(results.scale)} (custom)"
    if results.temperature != 1:
        text += f", ÷ T = {format_number(results.temperature)}"
    return text
