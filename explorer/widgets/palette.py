"""The application's colours in one place: the qualitative series, text greys, marks and masked cells.

Okabe & Ito's colour-blind-safe palette names what the panels tell apart (heads, keys, q and k, curves);
the greys and the highlight mean the same thing in every panel.
"""
import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor

# Okabe & Ito's qualitative palette, without its black
ORANGE = "#E69F00"
SKY_BLUE = "#56B4E9"
BLUISH_GREEN = "#009E73"
YELLOW = "#F0E442"
BLUE = "#0072B2"
VERMILLION = "#D55E00"
REDDISH_PURPLE = "#CC79A7"
OKABE_ITO = (ORANGE, SKY_BLUE, BLUISH_GREEN, YELLOW, BLUE, VERMILLION, REDDISH_PURPLE)
BLACK = "#000000"

INK = "#1f1f1f"  # text and outlines drawn by hand
MUTED = "#6b6b6b"  # headers, secondary text
GLOSS = "#555555"  # a hint or a gloss beside a name (the editor's hint, "Q — looks for")
FAINT = "#9a9a9a"  # text of what is out of focus
BAND = "#eef1f5"  # light band behind titles and the selected tile
FRAME = "#d3d7de"  # thin frames around tiles
GOOD = "#1b7f3b"  # a check that holds
BAD = "#b00020"  # a check that fails, a fully masked row
WEIGHT_BLUE = "#2171b5"  # the dark blue of the weights' colour map
FOCUS_BLUE = "#deebf7"  # the pale blue of the weights' colour map: behind a focused token
HIGHLIGHT = "#ff0099"  # magenta: the learner's guess, never a colour of either map
MASK_GREY = "#969696"  # masked cells: neutral mid grey, no colour of either map
MASK_HATCH = "#505050"
FLAG_RED = "#d62728"  # a cell flagged as suspicious


def blended(colour, over):
    """The opaque colour a translucent ``colour`` shows over ``over``: painted as it, a wide or crossing line
    costs Qt no blending pass (a translucent 2-pixel line took ~100 µs to draw, an opaque one ~3 µs)."""
    colour, over = QColor(colour), QColor(over)
    a = colour.alphaF()
    return QColor.fromRgbF(*(a * c + (1 - a) * o for c, o in zip(colour.getRgbF()[:3], over.getRgbF()[:3])))


def qualitative_colour(i, darken_step):
    """The ``i``-th colour of the series: Okabe–Ito, then darker variants of it (``darken_step`` % per round)."""
    base = QColor(OKABE_ITO[i % len(OKABE_ITO)])
    return base if i < len(OKABE_ITO) else base.darker(100 + darken_step * (i // len(OKABE_ITO)))


def head_colour(h):
    """The colour of head ``h`` (0-based) in every panel that tells heads apart."""
    return qualitative_colour(h, 45)


# Preset name -> (pyqtgraph colour map, reversed?). Both are Kovesi's colour-blind-safe CET maps.
# Sequential is CBL2 reversed: near-white at 0 (reads as "nothing"), cream, blue, near-black at 1.
# ColorBrewer "Blues": single hue, so colour-blind safe; white reads as "nothing", navy as "all".
BLUES = ((247, 251, 255), (198, 219, 239), (107, 174, 214), (33, 113, 181), (8, 48, 107))
CMAPS = {"diverging": ("CET-CBD1", False), "sequential": (BLUES, False)}


def colour_map(cmap: str) -> pg.ColorMap:
    """The pyqtgraph colour map of a preset name of ``CMAPS``."""
    name, reverse = CMAPS[cmap]
    if isinstance(name, str):
        colormap = pg.colormap.get(name)
    else:
        colormap = pg.ColorMap(np.linspace(0.0, 1.0, len(name)), np.array(name, dtype=np.ubyte))
    if reverse:
        colormap.reverse()
    return colormap
