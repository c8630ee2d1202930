"""The Readout's stacked bars: each key's share w_ij·v_j of every output dimension, and their total O_i."""
from itertools import repeat
from typing import NamedTuple

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, QT_TRANSLATE_NOOP
from PySide6.QtGui import QBrush, QColor, QPen

from explorer.core.plural import count
from explorer.core.readout import shares_for_bars
from explorer.widgets.nice import FINE_STEPS, label_every, nice_ceiling
from explorer.widgets.number_text import format_fixed, format_weight
from explorer.widgets.painted_plot import PaintedPlot
from explorer.widgets.palette import BLACK
from explorer.i18n import translate
from explorer.weak import weakly

from .colours import OTHERS_COLOR, key_colour

BAR_WIDTH = 0.62
OUTPUT_COLOR = BLACK
TICK_LABEL_PX = 34.0  # room for one dimension's label under the bars
TOTAL_DOT_PX = 8.0  # the diameter of the dot on O_i,d
TOTAL_TICK = BAR_WIDTH / 2 + 0.08  # half the width of the line across each bar at O_i,d


def stepped_range(lo, hi):
    """(lo, hi) of the stacked bars, each end widened to a nice step (0 stays 0), plus a small margin."""
    top = nice_ceiling(hi, FINE_STEPS) if hi > 0 else 0.0
    bottom = -nice_ceiling(-lo, FINE_STEPS) if lo < 0 else 0.0
    if top == bottom:
        top, bottom = 1.0, 0.0
    pad = 0.06 * (top - bottom)
    return bottom - pad, top + pad


class Stack(NamedTuple):
    """One colour of the stacked bars: a key (None: the other keys), its segments' x, bases and heights."""

    key: object
    x: np.ndarray
    y0: np.ndarray
    height: np.ndarray
    colour: QColor


class BarsPlot(PaintedPlot):
    """The stacked bars as drawn: ``stacks`` (one per key, then the others), ``totals`` O_i,d (or None)."""

    def __init__(self, parent, fg, bg):
        super().__init__(parent, fg, bg)
        self.stacks = []
        self.totals = None

    def set_bars(self, stacks, totals):
        self.stacks, self.totals = stacks, totals
        self.update()

    def paint_data(self, p):
        rect = self.data_rect()
        zero = self._y_px(0.0)
        p.setPen(QPen(self.fg, 1))
        p.drawLine(QPointF(rect.left(), zero), QPointF(rect.right(), zero))
        p.setPen(QPen(QColor(255, 255, 255), 1))
        for stack in self.stacks:
            drawn = stack.height != 0
            x, y0, y1 = stack.x[drawn], stack.y0[drawn], (stack.y0 + stack.height)[drawn]
            left = self.to_px(np.column_stack([x - BAR_WIDTH / 2, np.maximum(y0, y1)]))
            right = self.to_px(np.column_stack([x + BAR_WIDTH / 2, np.minimum(y0, y1)]))
            p.setBrush(QBrush(stack.colour))
            p.drawRects([QRectF(QPointF(*a), QPointF(*b)) for a, b in zip(left.tolist(), right.tolist())])
        if self.totals is None:
            return
        x, total = self.totals
        ends = self.to_px(np.column_stack([np.concatenate([x - TOTAL_TICK, x + TOTAL_TICK]), np.tile(total, 2)]))
        n = len(x)
        p.setPen(QPen(QColor(OUTPUT_COLOR), 2.5))
        p.drawLines([QLineF(*a, *b) for a, b in zip(ends[:n].tolist(), ends[n:].tolist())])
        p.setPen(QPen(QColor(255, 255, 255), 1.2))
        self.paint_discs(p, np.column_stack([x, total]), TOTAL_DOT_PX, repeat(QColor(OUTPUT_COLOR)))


class SharesBars:
    """Part of ReadoutPanel: builds, draws and explains (tooltips) the stacked bars of the selected row."""

    def _build_bars(self, fg, bg):
        self._stacks = None  # (keys, stacked shares, their bases) as drawn, for the tooltips
        self.bars = bars = BarsPlot(self, fg, bg)
        for axis, text in (("y", QT_TRANSLATE_NOOP("Readout", "share  w·v")),
                           ("x", QT_TRANSLATE_NOOP("Readout", "output dimension"))):
            self.keep_text(lambda said, axis=axis: bars.set_title(axis, said), "Readout", text)
        bars.set_ticks("x", weakly(self._bar_ticks, []))
        bars.set_tooltips(weakly(self.bar_tooltip, ""))
        self.bar_keys = []  # the key index of each stack drawn (None for "others")

    def _draw_bars(self, ro, keys):
        parts = ro.parts
        d = parts.shape[1]
        x = np.arange(d, dtype=float)
        rest = len(ro.attended()) > len(keys)  # the others: positives and negatives apart, so stacks stay truthful
        stacked, bases = shares_for_bars(parts, keys)
        stacks = [Stack(j, x, bases[slot], stacked[slot], key_colour(slot)) for slot, j in enumerate(keys)]
        if rest:
            stacks.append(Stack(None, np.concatenate([x, x]), np.concatenate(bases[-2:]),
                                np.concatenate(stacked[-2:]), QColor(OTHERS_COLOR)))
        self.bar_keys = [stack.key for stack in stacks]
        self._stacks = (keys, stacked, bases)
        self.bars.set_bars(stacks, None if ro.masked else (x, ro.output))
        self.bars.set_view((-0.6, d - 0.4), stepped_range(float(np.min(bases + np.minimum(stacked, 0))),
                                                          float(np.max(bases + np.maximum(stacked, 0)))))

    def _bar_ticks(self, pixels):
        """The bars' x ticks on an axis of ``pixels``: their dimensions (d0, d1, …), thinned so no label overprints."""
        ro = self._readout
        if ro is None:
            return []
        d = len(ro.columns)
        step = label_every(d, max(pixels, 60.0), TICK_LABEL_PX)
        return [(k, f"d{int(ro.columns[k])}") for k in range(0, d, step)]

    def bar_tooltip(self, x, y):
        """What the bar segment at data point (x, y) is: the key, its weight, its value and their product."""
        ro = self._readout
        if ro is None or self._stacks is None:
            return ""
        keys, stacked, bases = self._stacks
        d = int(round(x))
        if not (0 <= d < stacked.shape[1] and abs(x - d) <= BAR_WIDTH / 2):
            return ""
        col, tokens = f"d{int(ro.columns[d])}", self._key_names()
        for slot, (part, base) in enumerate(zip(stacked[:, d], bases[:, d])):
            if part != 0 and min(base, base + part) <= y <= max(base, base + part):
                if slot < len(keys):
                    j = keys[slot]
                    return (f"{tokens[j]} → O[{self.model.query_tokens[ro.row]}, {col}]: w {format_weight(ro.weights[j])} × "
                            f"v {format_fixed(ro.values[j, d])} = {format_fixed(part)}")
                others = len(ro.attended()) - len(keys)
                return (translate("Readout", "the other {others}: their positive shares of {col} make {part}")
                        if part > 0 else
                        translate("Readout", "the other {others}: their negative shares of {col} make {part}")).format(
                    others=count(others, "key"), n_others=others, col=col, part=format_fixed(part))
        return translate("Readout", "O[{q}, {col}] = {output} (the sum of the shares)").format(
            q=self.model.query_tokens[ro.row], col=col, output=format_fixed(ro.output[d]))
