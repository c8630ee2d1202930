"""F14 The √d lesson: random q, k of dimension d — the spread of q·k grows like √d, and without the
1/√d softmax hands the whole budget to one key.

The chapter: "d 维随机向量的点积,典型大小随 √d 增长;不除掉它,d=128 时分数动辄几十,softmax 的指数会把
预算全部砸给最高分(温度过低的贫富分化),梯度随之死亡。除以 √d = 把温度校准回「有分辨力但不极端」的区间".
The numbers come from ``explorer.core.scaling``; this file only draws them. It draws its own random
q and k, so the model's Q, K, V do not matter here: the d slider and the seed drive it.
"""
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QSpinBox, QVBoxLayout, QWidget

from explorer.core.scaling import N_KEYS, N_SAMPLES, dimension_grid, sharpness_curve, sqrt_d_point
from explorer.widgets.html_escape import escape
from explorer.widgets.labelled_slider import LabelledSlider
from explorer.widgets.palette import BLUE, BLUISH_GREEN, ORANGE, VERMILLION
from explorer.widgets.plots import lesson_plot, set_title
from explorer.widgets.tile_grid import TileGrid

from explorer.i18n import current_language, translate

from .base import Panel

D_MIN, D_MAX, D_START = 1, 1024, 128
UNSCALED_COLOR = VERMILLION  # q·k as it is
SCALED_COLOR = BLUE  # q·k / √d
MEASURED_COLOR = "#222222"
SQRT_COLOR = BLUISH_GREEN  # the law √d
CURRENT_COLOR = ORANGE  # the current d
BAR_WIDTH = 0.4
X_TICKS = (1, 4, 16, 64, 256, 1024)
SPREAD_TICKS = (1, 2, 4, 8, 16, 32)
SQRT_CURVE_POINTS = 97  # the √d line: smooth at any width, cheap to draw
POINT_CACHE = 2048  # points kept (about 1 kB each); when full, the cache starts afresh
NARROW = 620  # px: below this width the four tiles stack in one column

QUOTE_ZH = ("d 维随机向量的点积,典型大小随 √d 增长;不除掉它,d=128 时分数动辄几十,softmax 的指数会把预算全部砸给"
            "最高分(温度过低的贫富分化),梯度随之死亡。除以 √d = 把温度校准回「有分辨力但不极端」的区间")
QUOTE_EN = ("The dot product of two random d-dimensional vectors typically grows like √d. Leave it in, and at "
            "d = 128 the scores easily run to several tens: softmax's exponential throws the whole budget at "
            "the top score (the rich–poor gap of a temperature set too low), and the gradients die with it. "
            "Dividing by √d recalibrates the temperature back into the range that is “discriminating but not "
            "extreme”.")


def log2_axis(values):
    """Positions on a log₂ axis (the plots below draw d and the spread on log₂ axes)."""
    return np.log2(np.asarray(values, dtype=np.float64))


def _sig3(x):
    """Three significant digits, trailing zeros kept ("11.3", "1.00", "32.0")."""
    return f"{x:#.3g}".rstrip(".")


def _legend(*entries):
    """A one-line legend in HTML: (symbol, colour, text) per entry."""
    return " &nbsp; ".join(f"<span style='color:{c}'>{sym}</span>&nbsp;{escape(text)}" for sym, c, text in entries)


def _pen(color, width=2.0, style=Qt.PenStyle.SolidLine):
    return pg.mkPen(color, width=width, style=style)


class SqrtDPanel(Panel):
    """F14: the spread of q·k against √d, one query's weights with and without 1/√d, entropy against d."""

    reads_results = False  # its own random q and k: never waits for the model's results
    snug = True  # the plots share what the dock has rather than scrolling out of it

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self._fg = self.palette().color(QPalette.ColorRole.WindowText)
        self._bg = self.palette().color(QPalette.ColorRole.Base)
        self.grid_dims = dimension_grid(D_MAX)
        self.curve = None  # the SharpnessCurve over grid_dims for the current seed
        self.point = None  # the SqrtDPoint at the current d and seed
        self._drawn = None  # (d, seed) of the point drawn
        self._points = {}  # (d, seed) → SqrtDPoint: dragging back over a d already seen costs nothing

        # ---- controls
        self.d_slider = LabelledSlider("d", D_MIN, D_MAX, D_START, log=True, parent=self)
        self.keep_text(self.d_slider.setToolTip, "SqrtD", "The dimension d of the random query and key vectors (log scale)")
        self.d_slider.valueChanged.connect(self._d_moved)
        self.d_slider.sliderReleased.connect(self._snap_slider)
        self.seed_box = QSpinBox(self)
        self.seed_box.setRange(0, 99999)
        self.seed_box.setValue(0)
        self.keep_text(self.seed_box.setToolTip, "SqrtD",
                       "The seed of the random queries and keys: the same seed draws the same numbers")
        self.seed_box.valueChanged.connect(self._seed_changed)
        seed_label = self.kept_label("SqrtD", "seed")
        seed_label.setBuddy(self.seed_box)
        controls = QHBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        controls.addWidget(self.d_slider, 1)
        controls.addSpacing(12)
        controls.addWidget(seed_label)
        controls.addWidget(self.seed_box)

        self.readout = QLabel(self)
        self.readout.setTextFormat(Qt.TextFormat.RichText)
        self.readout.setWordWrap(True)
        self.keep_text(lambda text, label=self.readout: label.setToolTip(text.format(samples=N_SAMPLES, keys=N_KEYS)), "SqrtD",
                       "Spread: the standard deviation of all {samples}×{keys} scores q·k. Max weight: the largest "
                       "softmax weight of a row, averaged over the {samples} random queries.")

        # ---- (a) the spread of q·k against d, with √d
        self.spread_plot = self._plot("", "d", "")
        self._log2_ticks(self.spread_plot.getAxis("bottom"), X_TICKS)
        self._log2_ticks(self.spread_plot.getAxis("left"), SPREAD_TICKS)
        self.spread_plot.setXRange(-0.4, 10.4, padding=0)
        self.spread_plot.setYRange(-0.7, 5.6, padding=0)
        dense = np.geomspace(D_MIN, D_MAX, SQRT_CURVE_POINTS)
        self.sqrt_curve = pg.PlotDataItem(log2_axis(dense), log2_axis(np.sqrt(dense)),
                                          pen=_pen(SQRT_COLOR, 2.5), name="√d")
        self.measured = pg.PlotDataItem([], [], pen=None, symbol="o", symbolSize=6,
                                        symbolBrush=pg.mkBrush(MEASURED_COLOR), symbolPen=None,
                                        name="measured std of q·k")
        self.spread_marker = self._marker()
        for item in (self.sqrt_curve, self.measured, self.spread_marker):
            self.spread_plot.addItem(item)
        self.spread_line = self._current_line(self.spread_plot)

        # ---- (b) one query's softmax weights over the keys, without and with 1/√d
        # (every legend sits in its plot's title, so no point, bar or curve can ever hide under it)
        self.bars_plot = self._plot("", "", "")
        self.bars_plot.setXRange(-0.7, N_KEYS - 0.3, padding=0)
        self.bars_plot.setYRange(-0.08, 1.06, padding=0)  # room below 0 for the "0" label
        self.bars_plot.getAxis("bottom").setTicks([[(j, str(j)) for j in range(0, N_KEYS, 3)],
                                                    [(j, "") for j in range(N_KEYS)]])
        self.bars_plot.getAxis("left").setTicks([[(v, f"{v:g}") for v in (0, 0.25, 0.5, 0.75, 1)], []])
        keys = np.arange(N_KEYS, dtype=np.float64)
        self.bars_unscaled = pg.BarGraphItem(x=keys - BAR_WIDTH / 2, height=np.zeros(N_KEYS), width=BAR_WIDTH,
                                             brush=pg.mkBrush(UNSCALED_COLOR), pen=pg.mkPen(None))
        self.bars_scaled = pg.BarGraphItem(x=keys + BAR_WIDTH / 2, height=np.zeros(N_KEYS), width=BAR_WIDTH,
                                           brush=pg.mkBrush(SCALED_COLOR), pen=pg.mkPen(None))
        self.even_line = pg.InfiniteLine(pos=1.0 / N_KEYS, angle=0, pen=_pen(self._fg, 1.0, Qt.PenStyle.DashLine))
        self.bars_plot.addItem(self.bars_unscaled)
        self.bars_plot.addItem(self.bars_scaled)
        self.bars_plot.addItem(self.even_line, ignoreBounds=True)

        # ---- (c) the mean entropy of the softmax rows against d
        ln_n = math.log(N_KEYS)
        self.entropy_plot = self._plot("", "d", "")
        self._log2_ticks(self.entropy_plot.getAxis("bottom"), X_TICKS)
        self.entropy_plot.getAxis("left").setTicks([[(v, f"{v:g}") for v in (0, 0.5, 1, 1.5, 2, 2.5)], []])
        self.entropy_plot.setXRange(-0.4, 10.4, padding=0)
        self.entropy_plot.setYRange(-0.25, ln_n + 0.2, padding=0)  # room below 0 for the "0" label
        self.entropy_unscaled = pg.PlotDataItem([], [], pen=_pen(UNSCALED_COLOR, 2.5), symbol="o", symbolSize=4,
                                                symbolBrush=pg.mkBrush(UNSCALED_COLOR), symbolPen=None)
        self.entropy_scaled = pg.PlotDataItem([], [], pen=_pen(SCALED_COLOR, 2.5), symbol="o", symbolSize=4,
                                              symbolBrush=pg.mkBrush(SCALED_COLOR), symbolPen=None)
        self.uniform_line = pg.InfiniteLine(pos=ln_n, angle=0, pen=_pen(self._fg, 1.0, Qt.PenStyle.DashLine))
        self.entropy_marker = self._marker()
        for item in (self.entropy_unscaled, self.entropy_scaled, self.entropy_marker):
            self.entropy_plot.addItem(item)
        self.entropy_plot.addItem(self.uniform_line, ignoreBounds=True)
        self.entropy_line = self._current_line(self.entropy_plot)

        # ---- the chapter's sentence
        self.quote_text = QWidget(self)
        quote_layout = QVBoxLayout(self.quote_text)
        quote_layout.setContentsMargins(8, 4, 4, 4)
        quote_layout.setSpacing(6)
        self.quote_zh = QLabel(f"「{escape(QUOTE_ZH)}」", self.quote_text)
        self.quote_en = QLabel(escape(QUOTE_EN), self.quote_text)
        self.hint = QLabel(self.quote_text)
        for label, style in ((self.quote_zh, "color: #1d232b;"), (self.quote_en, "color: #4a5360;"),
                             (self.hint, "color: #1d232b;")):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setStyleSheet(style)
            label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            quote_layout.addWidget(label)
        quote_layout.addStretch(1)
        # the chapter's sentence scrolls in its tile: its wrapped height never pushes the plots out of the dock
        self.quote = QScrollArea(self)
        self.quote.setWidgetResizable(True)
        self.quote.setFrameShape(QFrame.Shape.NoFrame)
        self.quote.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.quote.setWidget(self.quote_text)

        # spread, bars / entropy, the chapter: two by two, or one column when narrow
        self.tiles = TileGrid((self.spread_plot, self.bars_plot, self.entropy_plot, self.quote), (
            (NARROW, ((0, 0), (0, 1), (1, 0), (1, 1)), (1, 1)),
            (0, ((0, 0), (1, 0), (2, 0), (3, 0)), (1, 1, 1, 1))), spacing=6)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        layout.addLayout(controls)
        layout.addWidget(self.readout)
        layout.addLayout(self.tiles, 1)

        self._write_texts()
        self._seed_changed(self.seed_box.value())

    def _write_texts(self):
        """The plots' titles and axes, the hint, in the interface's language (the chapter's own sentence is
        Chinese already: in 中文 its English rendering is left out)."""
        fg = self._fg.name()
        set_title(self.spread_plot, translate("SqrtD", "the spread of q·k grows like √d") + "<br>" + _legend(
            ("━━", SQRT_COLOR, "√d"), ("●", MEASURED_COLOR, translate("SqrtD", "measured"))), fg)
        self.spread_plot.getPlotItem().getAxis("left").setLabel(translate("SqrtD", "std of q·k"), color=fg)
        self.bars_plot.getPlotItem().getAxis("bottom").setLabel(translate("SqrtD", "key j"), color=fg)
        self.bars_plot.getPlotItem().getAxis("left").setLabel(translate("SqrtD", "weight"), color=fg)
        self.bars_legend = _legend(("■", UNSCALED_COLOR, "q·k"), ("■", SCALED_COLOR, "q·k/√d"),
                                   ("┄┄", fg, translate("SqrtD", "even 1/{keys}").format(keys=N_KEYS)))
        set_title(self.entropy_plot, translate("SqrtD", "mean entropy of a softmax row (nats)") + "<br>" + _legend(
            ("━━", UNSCALED_COLOR, "q·k"), ("━━", SCALED_COLOR, "q·k/√d"),
            ("┄┄", fg, translate("SqrtD", "even ln {keys}").format(keys=N_KEYS))), fg)
        self.entropy_plot.getPlotItem().getAxis("left").setLabel(translate("SqrtD", "entropy"), color=fg)
        self.hint.setText(translate(
            "SqrtD", "Drag d. Without the scale ({unscaled}) one key soon takes almost the whole budget; with it "
                     "({scaled}) the weights stay spread, at any d.").format(
            unscaled=f"<span style='color:{UNSCALED_COLOR}'>■</span>", scaled=f"<span style='color:{SCALED_COLOR}'>■</span>"))
        self.quote_en.setVisible(current_language() != "zh")

    def language_changed(self):
        self._write_texts()
        if self.point is not None:
            self._draw_point()
        super().language_changed()

    # ----- building -----------------------------------------------------------------------------
    def _plot(self, title, bottom, left):
        plot = lesson_plot(self, self._fg, self._bg, title, bottom, left, grid_alpha=0.12, min_size=(200, 120),
                           fixed_ticks=True)
        plot.getPlotItem().getViewBox().disableAutoRange()
        return plot

    @staticmethod
    def _log2_ticks(axis, values):
        axis.setTicks([[(float(np.log2(v)), f"{v:g}") for v in values],
                       [(float(k), "") for k in range(0, 11)]])

    @staticmethod
    def _marker():
        return pg.PlotDataItem([], [], pen=None, symbol="o", symbolSize=13, symbolBrush=pg.mkBrush(CURRENT_COLOR),
                               symbolPen=pg.mkPen("#000000", width=1.2))

    @staticmethod
    def _current_line(plot):
        line = pg.InfiniteLine(pos=0.0, angle=90, pen=_pen(CURRENT_COLOR, 1.5, Qt.PenStyle.DashLine))
        line.setZValue(-5)
        plot.addItem(line, ignoreBounds=True)
        return line

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.tiles.fit(self.width())

    # ----- state ----------------------------------------------------------------------------------
    @property
    def d(self):
        """The current whole dimension d: the slider's value, rounded half up."""
        return int(min(max(math.floor(self.d_slider.value() + 0.5), D_MIN), D_MAX))

    @property
    def seed(self):
        return self.seed_box.value()

    def set_d(self, d):
        self.d_slider.setValue(d)

    def _d_moved(self, _value):
        if not self.d_slider.slider.isSliderDown():
            self._snap_slider()
        self._update_point()

    def _snap_slider(self):
        """Show the whole d that is drawn (a typed 127.6 or a slider step between integers reads 128)."""
        if self.d_slider.value() != self.d:
            with QSignalBlocker(self.d_slider):
                self.d_slider.setValue(self.d)

    def _seed_changed(self, _seed):
        self.curve = sharpness_curve(self.grid_dims, seed=self.seed)
        self._draw_curves()
        self._update_point()

    def _update_point(self):
        key = (self.d, self.seed)
        if self.point is not None and key == self._drawn:
            return
        point = self._points.get(key)
        if point is None:
            if len(self._points) >= POINT_CACHE:
                self._points.clear()
            point = self._points[key] = sqrt_d_point(self.d, row=0, seed=self.seed)
        self.point, self._drawn = point, key
        self._draw_point()

    # ----- drawing --------------------------------------------------------------------------------
    def render(self, flags):
        """Nothing to do: this lesson draws its own random q and k, so model changes leave it as it is."""

    def _draw_curves(self):
        c = self.curve
        x = log2_axis(c.dims)
        self.measured.setData(x, log2_axis(c.spread))
        self.entropy_scaled.setData(x, c.entropy_scaled)
        self.entropy_unscaled.setData(x, c.entropy_unscaled)

    def _draw_point(self):
        p = self.point
        x = float(np.log2(p.d))
        self.spread_marker.setData([x], [float(np.log2(p.spread))])
        self.entropy_marker.setData([x, x], [p.entropy_unscaled, p.entropy_scaled])
        self.spread_line.setPos(x)
        self.entropy_line.setPos(x)
        self.bars_unscaled.setOpts(height=p.row_unscaled)
        self.bars_scaled.setOpts(height=p.row_scaled)
        set_title(self.bars_plot, translate("SqrtD", "one query's {keys} weights at d = {d}").format(keys=N_KEYS, d=p.d)
                  + f"<br>{self.bars_legend}", self._fg.name())
        self.readout.setText(self.readout_text(p))

    @staticmethod
    def readout_text(p):
        """The live line under the controls, e.g. "d = 128: q·k spread ≈ 11.6 (√d = 11.3); unscaled max …"."""
        return translate(
            "SqrtD", "<b>d = {d}</b>: q·k spread ≈ <b>{spread}</b> (√d = {sqrt_d}); {unscaled} max weight "
                     "<b>{unscaled_max}</b>, {scaled} <b>{scaled_max}</b>{mean}").format(
            d=p.d, spread=_sig3(p.spread), sqrt_d=_sig3(p.sqrt_d),
            unscaled=f"<span style='color:{UNSCALED_COLOR}'>" + translate("SqrtD", "unscaled") + "</span>",
            scaled=f"<span style='color:{SCALED_COLOR}'>" + translate("SqrtD", "scaled") + "</span>",
            unscaled_max=f"{p.max_weight_unscaled:.2f}", scaled_max=f"{p.max_weight_scaled:.2f}",
            mean="<span style='color:#6b7480'> &nbsp;" + translate("SqrtD", "(mean over {samples} random queries)")
            .format(samples=N_SAMPLES) + "</span>")
