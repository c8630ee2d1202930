"""The cost plot: multiply-adds of one head against L on log–log axes, full attention's L² beside the
mechanism's, the session's L marked."""
import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from explorer.widgets.palette import BLUE, ORANGE, VERMILLION
from explorer.i18n import translate
from explorer.widgets.plots import lesson_plot, set_title

from .words import legend

FULL_COLOR = VERMILLION
MINE_COLOR = BLUE
HERE_COLOR = ORANGE
L_MAX_EXP = 13  # the curves run to L = 2^13 = 8192
LENGTHS = tuple(2 ** e for e in range(1, L_MAX_EXP + 1))
X_TICKS = (2, 16, 128, 1024, 8192)


def curve_lengths(session_length):
    """L = 2, 4, …, 8192 and the session's own L (the mark sits on the curves)."""
    return sorted(set(LENGTHS) | {int(session_length)})


class CostPlot:
    """Two curves and a marker in a lesson plot; ``show(lengths, full, mine, here)`` draws them."""

    def __init__(self, parent, fg, bg):
        self.fg = fg
        self.widget = lesson_plot(parent, fg, bg, "", "L (tokens)", "per head", grid_alpha=0.12,
                                  min_size=(200, 170), fixed_ticks=True)
        item = self.widget.getPlotItem()
        item.getViewBox().disableAutoRange()
        item.getAxis("bottom").setTicks([[(float(np.log2(v)), f"{v}") for v in X_TICKS],
                                         [(float(e), "") for e in range(1, L_MAX_EXP + 1)]])
        self.full = pg.PlotDataItem([], [], pen=pg.mkPen(FULL_COLOR, width=2.5))
        self.mine = pg.PlotDataItem([], [], pen=pg.mkPen(MINE_COLOR, width=2.5))
        self.marks = pg.PlotDataItem([], [], pen=None, symbol="o", symbolSize=10, symbolBrush=pg.mkBrush(HERE_COLOR),
                                     symbolPen=pg.mkPen("#000000", width=1.0))
        self.line = pg.InfiniteLine(pos=0.0, angle=90, pen=pg.mkPen(HERE_COLOR, width=1.5, style=Qt.PenStyle.DashLine))
        self.line.setZValue(-5)
        for curve in (self.full, self.mine, self.marks):
            item.addItem(curve)
        item.addItem(self.line, ignoreBounds=True)
        self.shown = None  # (lengths, full, mine, here): what is drawn, in the data's own units

    def show(self, name, lengths, full, mine, here, bill=""):
        """Draw ``full`` and ``mine`` (multiply-adds, > 0 where drawn) over ``lengths``; mark L = ``here``."""
        self.shown = (list(lengths), np.asarray(full), np.asarray(mine), here)
        x = np.log2(np.asarray(lengths, dtype=np.float64))
        self.full.setData(x, np.log10(full))
        positive = np.asarray(mine) > 0
        self.mine.setData(x[positive], np.log10(np.asarray(mine)[positive]))
        at = list(lengths).index(here)
        ys = [np.log10(full[at])] + ([np.log10(mine[at])] if mine[at] > 0 else [])
        self.marks.setData([x[at]] * len(ys), ys)
        self.line.setPos(float(x[at]))
        lo = float(np.floor(np.log10(max(min(np.min(mine[positive]) if positive.any() else full[0], full[0]), 1.0))))
        hi = float(np.ceil(np.log10(full[-1])))
        step = max(1, int(np.ceil((hi - lo) / 5)))
        left = self.widget.getPlotItem().getAxis("left")
        left.setTicks([[(float(e), f"10{_superscript(e)}") for e in range(int(lo), int(hi) + 1, step)],
                       [(float(e), "") for e in range(int(lo), int(hi) + 1)]])
        self.widget.setXRange(min(0.6, float(x[at]) - 0.4), L_MAX_EXP + 0.4, padding=0)  # L = 1 too
        self.widget.setYRange(lo - 0.3, hi + 0.3, padding=0)
        key = legend(("━━", FULL_COLOR, translate("Efficient", "full L²")), ("━━", MINE_COLOR, name),
                     ("●", HERE_COLOR, translate("Efficient", "here")))
        set_title(self.widget, translate("Efficient", "multiply-adds: {bill}").format(bill=bill) + f"<br>{key}",
                  self.fg.name())
        item = self.widget.getPlotItem()
        item.getAxis("bottom").setLabel(translate("Efficient", "L (tokens)"), color=self.fg.name())
        item.getAxis("left").setLabel(translate("Efficient", "per head"), color=self.fg.name())


def _superscript(n):
    return str(int(n)).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
