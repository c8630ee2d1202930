"""The Readout's stacked bars: each key's share w_ij·v_j of every output dimension, and their total O_i."""
import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtGui import QColor

from explorer.core.plural import count
from explorer.core.readout import shares_for_bars
from explorer.widgets.nice import FINE_STEPS, label_every, nice_ceiling
from explorer.widgets.number_text import format_fixed, format_weight
from explorer.widgets.palette import BLACK
from explorer.widgets.plots import pooled
from explorer.i18n import translate

from .colours import OTHERS_COLOR, key_colour

BAR_WIDTH = 0.62
OUTPUT_COLOR = BLACK
TICK_LABEL_PX = 34.0  # room for one dimension's label under the bars


def stepped_range(lo, hi):
    """(lo, hi) of the stacked bars, each end widened to a nice step (0 stays 0), plus a small margin."""
    top = nice_ceiling(hi, FINE_STEPS) if hi > 0 else 0.0
    bottom = -nice_ceiling(-lo, FINE_STEPS) if lo < 0 else 0.0
    if top == bottom:
        top, bottom = 1.0, 0.0
    pad = 0.06 * (top - bottom)
    return bottom - pad, top + pad


class SharesBars:
    """Part of ReadoutPanel: builds, draws and explains (tooltips) the stacked bars of the selected row."""

    def _build_bars(self, fg, bg):
        self._stacks = None  # (keys, stacked shares, their bases) as drawn, for the tooltips
        self._bar_ticks = None  # the bottom axis's ticks as set
        self.bars = self._new_plot(bg)
        for side, text in (("left", QT_TRANSLATE_NOOP("Readout", "share  w·v")),
                           ("bottom", QT_TRANSLATE_NOOP("Readout", "output dimension"))):
            self.keep_text(lambda said, axis=self.bars.getAxis(side), fg=fg.name(): axis.setLabel(said, color=fg),
                           "Readout", text)
        self.zero_line = pg.InfiniteLine(pos=0.0, angle=0, pen=pg.mkPen(fg, width=1))
        self.bars.addItem(self.zero_line, ignoreBounds=True)
        self.bar_items = []  # one BarGraphItem per drawn key (then "others", if any)
        self.bar_keys = []  # the key index of each item in bar_items (None for "others")
        self.total_ticks = pg.PlotCurveItem(pen=pg.mkPen(OUTPUT_COLOR, width=2.5), connect="pairs")
        self.total_dots = pg.ScatterPlotItem(symbol="o", size=8, brush=pg.mkBrush(OUTPUT_COLOR),
                                             pen=pg.mkPen("w", width=1.2))
        for item in (self.total_ticks, self.total_dots):
            item.setZValue(10)
            self.bars.addItem(item)
        self.bars.scene().sigMouseMoved.connect(self._hover_bars)
        self.bars.getViewBox().sigResized.connect(self._tick_bars)

    def _draw_bars(self, ro, keys):
        plot = self.bars
        parts = ro.parts
        d = parts.shape[1]
        x = np.arange(d, dtype=float)
        rest = len(ro.attended()) > len(keys)  # the others: positives and negatives apart, so stacks stay truthful
        stacked, bases = shares_for_bars(parts, keys)
        bars = [(x, bases[slot], stacked[slot], key_colour(slot)) for slot in range(len(keys))]
        if rest:
            bars.append((np.concatenate([x, x]), np.concatenate(bases[-2:]), np.concatenate(stacked[-2:]),
                         QColor(OTHERS_COLOR)))
        edge = pg.mkPen(QColor(255, 255, 255), width=1)
        self.bar_items = pooled(plot, self.bar_items, len(bars),
                                      lambda: pg.BarGraphItem(x=x, height=np.zeros(d), width=BAR_WIDTH, pen=edge))
        for item, (bx, y0, height, colour) in zip(self.bar_items, bars):
            item.setOpts(x=bx, y0=y0, height=height, width=BAR_WIDTH, brush=colour)
        self.bar_keys = list(keys) + ([None] if rest else [])

        total = ro.output
        if ro.masked:
            self.total_ticks.setData([], [])
            self.total_dots.setData([], [])
        else:
            half = BAR_WIDTH / 2 + 0.08
            self.total_ticks.setData(np.repeat(x, 2) + np.tile([-half, half], d), np.repeat(total, 2))
            self.total_dots.setData(x, total)

        self._tick_bars()
        self._stacks = (keys, stacked, bases)
        plot.setXRange(-0.6, d - 0.4, padding=0)
        plot.setYRange(*stepped_range(float(np.min(bases + np.minimum(stacked, 0))),
                                      float(np.max(bases + np.maximum(stacked, 0)))), padding=0)

    def _tick_bars(self):
        """Label the bars' dimensions, thinned so the labels never overprint at this width."""
        ro = self._readout
        if ro is None:
            return
        d = len(ro.columns)
        step = label_every(d, max(self.bars.getViewBox().width(), 60.0), TICK_LABEL_PX)
        ticks = [[(k, f"d{int(ro.columns[k])}") for k in range(0, d, step)], []]
        if ticks != self._bar_ticks:  # set again, pyqtgraph would lay the axis out and paint it anew
            self.bars.getAxis("bottom").setTicks(ticks)
            self._bar_ticks = ticks

    def bar_tooltip(self, x, y):
        """What the bar segment under view point (x, y) is: the key, its weight, its value and their product."""
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

    def _hover_bars(self, scene_pos):
        vb = self.bars.getViewBox()
        if not vb.sceneBoundingRect().contains(scene_pos):
            self.bars.setToolTip("")
            return
        p = vb.mapSceneToView(scene_pos)
        self.bars.setToolTip(self.bar_tooltip(p.x(), p.y()))

