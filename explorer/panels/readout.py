"""③ read by rows: O_i = Σ_j w_ij·v_j — each key's share as a stacked bar, and O_i inside the hull of V's rows.

The chapter: "O 的第 i 行 = 权重行 · V 矩阵 = 各词 value 的凸组合 … 输出不会跑出各 V 围成的凸包".
The numbers come from ``explorer.core.readout``; this file only draws them.
"""
from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QSignalBlocker, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPalette, QPen, QPolygonF
from PySide6.QtWidgets import (QApplication, QBoxLayout, QComboBox, QFrame, QGraphicsPolygonItem, QHBoxLayout,
                               QLabel, QScrollArea, QVBoxLayout, QWidget)

from explorer.core.readout import (boxes_around, convex_hull_2d, drawn_keys, in_convex_hull, keys_by_weight,
                                   padded_range, place_label, row_readout, shares_for_bars)
from explorer.widgets.plot_cache import cache_axes

from .base import Panel

# Okabe & Ito's colour-blind-safe qualitative palette (without its black, which marks the output here).
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")
OTHERS_COLOR = "#BBBBBB"
OUTPUT_COLOR = "#000000"
HULL_FILL = QColor(120, 140, 170, 45)
HULL_EDGE = QColor(120, 140, 170, 160)
MAX_KEYS = 12  # keys drawn one by one; any further keys share one grey "others" bar (signs kept apart)
MAX_TERMS = 5  # weights spelled out in the header formula
BAR_WIDTH = 0.62
SIDE_BY_SIDE_ASPECT = 1.25  # width / height above which the two views sit side by side
PLOT_MIN_HEIGHT = 160  # below this the panel scrolls rather than squash the plots
PLOT_MIN_WIDTH = 200
# Room (pixels) around the plane's points, so a label next to the outermost point still fits.
PAD_PX = {"left": 18.0, "right": 18.0, "bottom": 16.0, "top": 26.0}
DOT_PX = 6.0  # half the size of a key's dot on the plane
STAR_PX = 12.0  # half the size of the star O_i
LABEL_GAP = 3.0  # pixels between a dot and its label's box
STAR_RING_COST = 0.12  # of the O label's area: the cost of each step further from the star
STAR_LINE_COST = 8.0  # the O label hides lines more readily than a token label does: it may move away
HULL_EDGE_VISIBILITY = 0.6  # the pale hull edge counts less than a full weight line


def key_colour(slot):
    """Colour of the ``slot``-th drawn key: the palette, then darker variants of it."""
    base = QColor(OKABE_ITO[slot % len(OKABE_ITO)])
    return base if slot < len(OKABE_ITO) else base.darker(100 + 60 * (slot // len(OKABE_ITO)))


def _fmt(x):
    return f"{x:.2f}".replace("-", "−")


def _fmt_weight(w):
    """A weight with two decimals, or enough to tell a small weight from zero ("0.004", "<0.001")."""
    if 0 < w < 0.005:
        return f"{w:.3f}" if w >= 0.0005 else "<0.001"
    return f"{w:.2f}"


def _tick_step(count, pixels, label_px=34.0):
    """Every how many bars to label: the smallest of 1, 2, 5, 10, 20, … that leaves ``label_px`` per label."""
    step = 1
    while count / step * label_px > pixels and step < count:
        base = 10 ** int(np.floor(np.log10(step)))
        step = next(f * base for f in (2, 5, 10) if f * base > step)
    return step


def _nice_ceil(x):
    """The next of 1, 1.5, 2, 3, 5, 7.5 × 10^k at or above x > 0: a bar axis that changes only in steps."""
    exp = 10.0 ** np.floor(np.log10(x))
    return next(f * exp for f in (1, 1.5, 2, 3, 5, 7.5, 10) if f * exp >= x * (1 - 1e-12))


def _stepped_range(lo, hi):
    """(lo, hi) of the stacked bars, each end widened to a nice step (0 stays 0), plus a small margin."""
    top = _nice_ceil(hi) if hi > 0 else 0.0
    bottom = -_nice_ceil(-lo) if lo < 0 else 0.0
    if top == bottom:
        top, bottom = 1.0, 0.0
    pad = 0.06 * (top - bottom)
    return bottom - pad, top + pad


def _same_points(a, b):
    """True if the (L, 2) arrays ``a`` (may be None) and ``b`` hold the same points."""
    return a is not None and a.shape == b.shape and np.array_equal(a, b)


def _label_groups(pts, keys, tokens):
    """Keys at the same place share one label ("追, 红色") so coincident names do not overprint."""
    groups = {}
    for j in keys:
        groups.setdefault(tuple(np.round(pts[j], 12)), []).append(j)
    return [(js[0], ", ".join(tokens[j] for j in js)) for js in groups.values()]


class ReadoutPanel(Panel):
    """F4: for the selected query row, each key's share of O_i (stacked bars) and O_i in the hull of V (2-D)."""

    stage = 3

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self._dims = (0, 1)  # which columns of the head's slice of V the plane shows (x, y)
        self._hull_cache = (None, None)  # (the plane's points, their hull's indices): redone when the points move
        self._drawn_pts = None  # the points the grey scatter and the hull polygon show now
        self._drawn_key_pts = None  # the points the coloured scatter shows now (slot k in colour k)
        self._plane_axes = None  # the plane's (bottom, left) axis titles as set
        self._combo_tokens = None  # the tokens row_combo lists
        self._readout = None
        self._shown = (None, [])  # (readout, the keys drawn one by one for it)
        self._stacks = None  # (keys, stacked shares, their bases) as drawn, for the tooltips
        self.inside = None  # the last hull check: O_i inside the hull of the V rows on the plane
        fg = self.palette().color(QPalette.ColorRole.WindowText)
        bg = self.palette().color(QPalette.ColorRole.Base)
        self._fg = fg

        self.header = QLabel(self)
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)

        self.row_combo = QComboBox(self)
        self.row_combo.setToolTip("The query row to read (or click a row in any heatmap)")
        self.row_combo.activated.connect(lambda i: self.model.set_selection(row=i))
        self.x_combo, self.y_combo = QComboBox(self), QComboBox(self)
        self.x_combo.setToolTip("The dimension of V on the plane's horizontal axis")
        self.y_combo.setToolTip("The dimension of V on the plane's vertical axis")
        self.x_combo.currentIndexChanged.connect(lambda i: self._set_dims(x=i))
        self.y_combo.currentIndexChanged.connect(lambda i: self._set_dims(y=i))
        self.dims_label = QLabel("plane:", self)
        self.vs_label = QLabel("×", self)
        controls = QHBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        controls.addWidget(QLabel("query", self))
        controls.addWidget(self.row_combo)
        controls.addSpacing(12)
        for w in (self.dims_label, self.x_combo, self.vs_label, self.y_combo):
            controls.addWidget(w)
        controls.addStretch(1)

        # ---- the stacked bars: one BarGraphItem per key, stacked per output dimension
        self.bars = pg.PlotWidget(self)
        self.bars.setBackground(bg)
        self._style_plot(self.bars.getPlotItem())
        self.bars.setLabel("left", "share  w·v", color=fg.name())
        self.bars.setLabel("bottom", "output dimension", color=fg.name())
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

        # ---- the plane: V rows, their hull, O_i and lines weighted by w_ij
        self.plane = pg.PlotWidget(self)
        self.plane.setBackground(bg)
        self._style_plot(self.plane.getPlotItem())
        self.hull_item = QGraphicsPolygonItem()
        self.hull_item.setBrush(QBrush(HULL_FILL))
        pen = QPen(HULL_EDGE, 1.5)
        pen.setCosmetic(True)
        self.hull_item.setPen(pen)
        self.hull_item.setZValue(-10)
        self.plane.addItem(self.hull_item)
        self.weight_lines = []  # one PlotCurveItem O_i → v_j per drawn key, alpha = w_ij
        # every V row as a grey dot; the keys drawn one by one again on top in their colours (few points,
        # so a long sequence costs one single-brush scatter rather than thousands of per-point brushes)
        self.points = pg.ScatterPlotItem(size=9, pen=pg.mkPen(fg, width=1), brush=pg.mkBrush(OTHERS_COLOR))
        self.points.setZValue(5)
        self.plane.addItem(self.points)
        self.key_points = pg.ScatterPlotItem(size=11, pen=pg.mkPen(fg, width=1))
        self.key_points.setZValue(6)
        self.plane.addItem(self.key_points)
        self.point_labels = []
        self.star = pg.ScatterPlotItem(symbol="star", size=22, brush=pg.mkBrush(OUTPUT_COLOR),
                                       pen=pg.mkPen("w", width=1.5))
        self.star.setZValue(20)
        self.plane.addItem(self.star)
        self.star_label = pg.TextItem("", color=OUTPUT_COLOR, anchor=(0, 0), fill=pg.mkBrush(255, 255, 255, 225))
        self.star_label.textItem.document().setDocumentMargin(1.5)  # a snug white backing
        self.star_label.setZValue(20)
        self.plane.addItem(self.star_label)
        self.star_leader = pg.PlotCurveItem(pen=pg.mkPen(OUTPUT_COLOR, width=1))  # star → its label, when apart
        self.star_leader.setZValue(19)
        self.plane.addItem(self.star_leader)
        self._label_points = []  # the data point each entry of point_labels names
        self.plane.getViewBox().sigResized.connect(self._layout_plane)
        for plot in (self.bars, self.plane):
            plot.setMinimumSize(PLOT_MIN_WIDTH, PLOT_MIN_HEIGHT)

        self.views = QWidget(self)
        self.views_layout = QBoxLayout(QBoxLayout.Direction.LeftToRight, self.views)
        self.views_layout.setContentsMargins(0, 0, 0, 0)
        self.views_layout.addWidget(self.bars, 1)
        self.views_layout.addWidget(self.plane, 1)

        self.legend = QLabel(self)
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.check_label = QLabel(self)
        self.check_label.setTextFormat(Qt.TextFormat.RichText)
        self.check_label.setWordWrap(True)
        self.hidden_label = QLabel("How each output row is mixed stays hidden until ③ is revealed", self)
        self.hidden_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hidden_label.setStyleSheet("color: #666; font-size: 120%;")

        # Everything sits in a scroll area: in a small dock the panel scrolls instead of squashing the plots
        # below PLOT_MIN_HEIGHT (side by side when wide, stacked when narrow — see resizeEvent).
        self.content = QWidget()
        self.content.setObjectName("readoutContent")
        layout = QVBoxLayout(self.content)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.header)
        layout.addLayout(controls)
        layout.addWidget(self.views, 1)
        layout.addWidget(self.hidden_label, 1)
        layout.addWidget(self.legend)
        layout.addWidget(self.check_label)
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidget(self.content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll)

    # ----- layout -------------------------------------------------------------------------------
    def _style_plot(self, plot):
        plot.hideButtons()
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.getViewBox().disableAutoRange()
        plot.showGrid(x=False, y=True, alpha=0.15)
        for side in ("left", "bottom"):
            axis = plot.getAxis(side)
            axis.setPen(self._fg)
            axis.setTextPen(self._fg)
            axis.enableAutoSIPrefix(False)
            axis.setStyle(hideOverlappingLabels=20)  # an end label may reach 20 px past the axis
        cache_axes(plot)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        # side by side when the panel is wide, or when stacking would not fit its height anyway
        # while two plots fit next to each other
        room = self.height() - 150  # about what the header, controls, legend and check take
        wide = self.width() >= 480 and (self.width() >= SIDE_BY_SIDE_ASPECT * self.height()
                                        or room < 2 * PLOT_MIN_HEIGHT + 20)
        direction = QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom
        if self.views_layout.direction() != direction:
            self.views_layout.setDirection(direction)

    def hidden(self):
        return self.model.revealed < self.stage

    # ----- model → widgets ----------------------------------------------------------------------
    def render(self, flags):
        r = self.model.results
        if r is None:
            return
        tokens = self.model.tokens
        s = self.model.settings
        with QSignalBlocker(self.row_combo):
            if self._combo_tokens != list(tokens):  # refilled only when the tokens change, not on every edit
                self.row_combo.clear()
                self.row_combo.addItems([f"{i}: {t}" for i, t in enumerate(tokens)])
                self._combo_tokens = list(tokens)
            self.row_combo.setCurrentIndex(s.selected_row)

        hidden = self.hidden()
        for w in (self.views, self.legend, self.check_label, self.dims_label, self.x_combo, self.vs_label,
                  self.y_combo):
            w.setVisible(not hidden)  # the 1-D case hides the y combo again in _sync_dim_combos
        self.hidden_label.setVisible(hidden)
        if hidden:
            self._readout = None
            self.header.setText(f"<b>③ readout for {escape(tokens[s.selected_row])}</b> — hidden until ③ is "
                                f"revealed")
            return

        ro = row_readout(r.heads, r.v, s.selected_row, s.selected_head if r.n_heads > 1 else 0)
        self._readout = ro
        self._sync_dim_combos(ro)
        self._draw()

    def _sync_dim_combos(self, ro):
        """Offer the head's columns; keep the chosen pair (clamped to fit) — untouched while d_v = 1."""
        names = [f"d{c}" for c in ro.columns]
        d = len(names)
        if d > 1:
            x, y = (min(i, d - 1) for i in self._dims)
            if x == y:  # clamping collapsed two chosen columns into one: the plane needs two
                x, y = (d - 2, d - 1) if y == d - 1 else (x, y + 1)
            self._dims = (x, y)
        for combo, i in zip((self.x_combo, self.y_combo), self._dims if d > 1 else (0, 0)):
            with QSignalBlocker(combo):
                if [combo.itemText(k) for k in range(combo.count())] != names:
                    combo.clear()
                    combo.addItems(names)
                combo.setCurrentIndex(i)
        self.x_combo.setEnabled(d > 1)
        self.vs_label.setVisible(d > 1)
        self.y_combo.setVisible(d > 1)

    def _set_dims(self, x=None, y=None):
        """A combo picked a column. The plane needs two different ones: picking the other axis's column
        swaps the two axes (d0 × d1, then x := d1 gives d1 × d0) — unless the head has one column."""
        dx, dy = self._dims
        nx = dx if x is None or x < 0 else x
        ny = dy if y is None or y < 0 else y
        one_d = self._readout is not None and len(self._readout.columns) == 1
        if nx == ny and not one_d:
            if x is not None and x >= 0:
                ny = dx  # the x combo took y's column: y takes x's old one
            else:
                nx = dy
            for combo, i in ((self.x_combo, nx), (self.y_combo, ny)):
                if combo.currentIndex() != i:
                    with QSignalBlocker(combo):
                        combo.setCurrentIndex(i)
        self._dims = (nx, ny)
        if self._readout is not None:
            self._draw()

    def dims(self):
        """The columns of V (and O) on the plane's x and y axes (y is None when d_v = 1)."""
        ro = self._readout
        if ro is None:
            return None
        cols = ro.columns
        if len(cols) == 1:
            return int(cols[0]), None
        return int(cols[self._dims[0]]), int(cols[self._dims[1]])

    def shown_keys(self):
        """The keys drawn one by one: all of them, or the MAX_KEYS − 1 heaviest (in token order)."""
        if self._shown[0] is not self._readout:  # ranked once per readout (the bars, the plane and the labels all ask)
            self._shown = (self._readout, drawn_keys(self._readout.weights, MAX_KEYS, self._readout.attended()))
        return list(self._shown[1])

    # ----- drawing ------------------------------------------------------------------------------
    def _draw(self):
        ro = self._readout
        tokens = self.model.tokens
        keys = self.shown_keys()
        self._draw_header(ro, tokens)
        self._draw_bars(ro, keys)
        self._draw_plane(ro, keys, tokens)
        self._draw_legend(ro, keys, tokens)

    def _draw_header(self, ro, tokens):
        r = self.model.results
        who = escape(tokens[ro.row])
        if ro.masked:
            self.header.setText(f"<b>③ readout for {who}</b>: <span style='color:#b00020'>row fully masked: "
                                f"no output (all weights 0)</span>")
            return
        order = ro.attended()  # a masked key adds nothing: it is not spelled out as 0·v
        if len(order) > MAX_TERMS:
            order = order[keys_by_weight(ro.weights[order])]
        terms = [f"{_fmt_weight(ro.weights[j])}·v({escape(tokens[j])})" for j in order[:MAX_TERMS]]
        if len(order) > MAX_TERMS:
            rest = float(ro.weights[order[MAX_TERMS:]].sum())  # display only: the weight not spelled out
            terms.append(f"… ({len(order) - MAX_TERMS} more, Σw = {_fmt(rest)})")
        text = (f"<b>③ readout for {who}</b>: O = {' + '.join(terms)} — a convex combination of the rows of V "
                f"(weights ≥ 0, Σ = 1)")
        if r.n_heads > 1:
            lo, hi = int(ro.columns[0]), int(ro.columns[-1])
            cols = f"d{lo}" if lo == hi else f"d{lo}–d{hi}"
            plural = "column" if lo == hi else "columns"
            text += (f"<br><span style='color:#555'>head {ro.head + 1}/{r.n_heads} (choose it in Controls): its "
                     f"weights mix its own slice V[:, {cols}], giving {plural} {cols} of O (heads are "
                     f"concatenated)</span>")
        self.header.setText(text)

    @staticmethod
    def _pooled(plot, items, count, make):
        """``count`` items on ``plot``: the ones already there reused, new ones from ``make()``, extras removed
        (at large L the same dozen items are updated on every edit instead of rebuilt)."""
        for item in items[count:]:
            plot.removeItem(item)
        items = items[:count]
        while len(items) < count:
            items.append(make())
            plot.addItem(items[-1])
        return items

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
        self.bar_items = self._pooled(plot, self.bar_items, len(bars),
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
        plot.setYRange(*_stepped_range(float(np.min(bases + np.minimum(stacked, 0))),
                                       float(np.max(bases + np.maximum(stacked, 0)))), padding=0)

    def _tick_bars(self):
        """Label the bars' dimensions, thinned so the labels never overprint at this width."""
        ro = self._readout
        if ro is None:
            return
        d = len(ro.columns)
        step = _tick_step(d, max(self.bars.getViewBox().width(), 60.0))
        self.bars.getAxis("bottom").setTicks([[(k, f"d{int(ro.columns[k])}") for k in range(0, d, step)], []])

    def bar_tooltip(self, x, y):
        """What the bar segment under view point (x, y) is: the key, its weight, its value and their product."""
        ro = self._readout
        if ro is None or self._stacks is None:
            return ""
        keys, stacked, bases = self._stacks
        d = int(round(x))
        if not (0 <= d < stacked.shape[1] and abs(x - d) <= BAR_WIDTH / 2):
            return ""
        col, tokens = f"d{int(ro.columns[d])}", self.model.tokens
        for slot, (part, base) in enumerate(zip(stacked[:, d], bases[:, d])):
            if part != 0 and min(base, base + part) <= y <= max(base, base + part):
                if slot < len(keys):
                    j = keys[slot]
                    return (f"{tokens[j]} → O[{tokens[ro.row]}, {col}]: w {_fmt_weight(ro.weights[j])} × "
                            f"v {_fmt(ro.values[j, d])} = {_fmt(part)}")
                sign = "positive" if part > 0 else "negative"
                return f"the other {len(ro.attended()) - len(keys)} keys' {sign} shares of {col}: {_fmt(part)}"
        return f"O[{tokens[ro.row]}, {col}] = {_fmt(ro.output[d])} (the sum of the shares)"

    def _hover_bars(self, scene_pos):
        vb = self.bars.getViewBox()
        if not vb.sceneBoundingRect().contains(scene_pos):
            self.bars.setToolTip("")
            return
        p = vb.mapSceneToView(scene_pos)
        self.bars.setToolTip(self.bar_tooltip(p.x(), p.y()))

    def _hull(self, pts):
        """The hull of the plane's points, recomputed only when they move (an edit of Q or K leaves V alone)."""
        cached, hull = self._hull_cache
        if not _same_points(cached, pts):
            hull = convex_hull_2d(pts)
            self._hull_cache = (pts.copy(), hull)
        return hull

    def plane_points(self):
        """The V rows on the plane (L, 2) and O_i there (2,): y = 0 for all when d_v = 1."""
        ro = self._readout
        if ro.values.shape[1] == 1:
            return (np.column_stack([ro.values[:, 0], np.zeros(len(ro.values))]),
                    np.array([ro.output[0], 0.0]))
        a, b = self._dims
        return ro.values[:, [a, b]], ro.output[[a, b]]

    def _draw_plane(self, ro, keys, tokens):
        plot = self.plane
        pts, o = self.plane_points()
        one_d = ro.values.shape[1] == 1
        hull = self._hull(pts)
        if not _same_points(self._drawn_pts, pts):  # L points: set only when they moved
            self.hull_item.setPolygon(QPolygonF([QPointF(*pts[i]) for i in hull]) if len(hull) > 1 else QPolygonF())
            self.points.setData(pos=pts)
            self._drawn_pts = pts.copy()
        key_pts = pts[keys]
        if not _same_points(self._drawn_key_pts, key_pts):
            self.key_points.setData(pos=key_pts, brush=[pg.mkBrush(key_colour(slot)) for slot in range(len(keys))])
            self._drawn_key_pts = key_pts

        font = QFont(QApplication.font())
        crowded = len(keys) < len(pts)  # grey dots of other keys behind: give the labels a light backing
        groups = _label_groups(pts, keys, tokens)
        self.point_labels = self._pooled(plot, self.point_labels, len(groups), self._new_point_label)
        fill = pg.mkBrush(255, 255, 255, 200) if crowded else pg.mkBrush(None)
        self._label_points = []
        for label, (j, text) in zip(self.point_labels, groups):
            label.setText(text)
            label.fill = fill
            if label.textItem.font() != font:
                label.setFont(font)
            label.setPos(*pts[j])
            label.update()
            self._label_points.append(np.array(pts[j], dtype=float))

        if ro.masked:
            self.weight_lines = self._pooled(plot, self.weight_lines, 0, None)
            self.star.setData([], [])
            self.star_label.setText("")
            self.star_label.setVisible(False)
            self.star_leader.setData([], [])
        else:
            self.weight_lines = self._pooled(plot, self.weight_lines, len(keys), self._new_weight_line)
            for line, j in zip(self.weight_lines, keys):
                alpha = int(round(255 * float(np.clip(ro.weights[j], 0, 1))))
                line.setData([o[0], pts[j, 0]], [o[1], pts[j, 1]])
                line.setPen(pg.mkPen(QColor(40, 40, 40, alpha), width=2))
            self.star.setData([o[0]], [o[1]])
            self.star_label.setText(f"O[{tokens[ro.row]}]")
            if self.star_label.textItem.font() != font:
                self.star_label.setFont(font)
            self.star_label.setPos(*o)
            self.star_label.setVisible(True)

        names = [f"d{int(c)}" for c in ro.columns]
        axes = (f"{names[0]} (V has one dimension: a line)", "") if one_d else \
            (names[self._dims[0]], names[self._dims[1]])
        if axes != self._plane_axes:  # relabelled only when the columns change (each label is a relayout)
            plot.setLabel("bottom", axes[0], color=self._fg.name())
            plot.setLabel("left", axes[1], color=self._fg.name())
            plot.getAxis("left").setTicks([[], []] if one_d else None)
            self._plane_axes = axes
        self._layout_plane()

        if ro.masked:
            self.check_label.setText("row fully masked: no output, so nothing to place in the hull")
            self.inside = None
            return
        inside = in_convex_hull(o, pts[hull])
        where = names[0] if one_d else f"{names[self._dims[0]]}, {names[self._dims[1]]}"
        mark = "<span style='color:#009E73'>✓</span>" if inside else "<span style='color:#b00020'>✗</span>"
        self.check_label.setText(f"O[{escape(tokens[ro.row])}] inside the hull of V's rows ({where}): <b>{mark}</b>")
        self.inside = inside

    def _new_point_label(self):
        """A token label for the plane (its text, backing and place are set on every draw)."""
        label = pg.TextItem("", color=self._fg)
        label.setZValue(5.5)  # above the grey dots, below the coloured ones and O_i
        label.textItem.document().setDocumentMargin(2)  # its box is what _place_labels keeps apart
        return label

    @staticmethod
    def _new_weight_line():
        """A line O_i → v_j (its ends and its weight's opacity are set on every draw)."""
        line = pg.PlotCurveItem()
        line.setZValue(5.2)  # above the grey dots, below the labels and coloured dots
        return line

    # ----- the plane's range and labels, in pixels (redone whenever the plot is resized) -----------------
    def _layout_plane(self):
        """Fit the range to the points with room for labels at the edges, then place every label."""
        ro = self._readout
        if ro is None or not self.point_labels:
            return
        vb = self.plane.getViewBox()
        width, height = max(vb.width(), 40.0), max(vb.height(), 40.0)
        pts, _ = self.plane_points()
        one_d = ro.values.shape[1] == 1
        x_range = padded_range(pts[:, 0].min(), pts[:, 0].max(), width, PAD_PX["left"], PAD_PX["right"])
        self.plane.setXRange(*x_range, padding=0)
        if one_d:
            self.plane.setYRange(-1, 1, padding=0)
        else:
            self.plane.setYRange(*padded_range(pts[:, 1].min(), pts[:, 1].max(), height, PAD_PX["bottom"],
                                               PAD_PX["top"]), padding=0)
        self._place_labels()

    def _to_pixels(self, xy):
        """Data point(s) (..., 2) → pixel position(s) in the plane's view box (y down)."""
        vb = self.plane.getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        w, h = max(vb.width(), 1.0), max(vb.height(), 1.0)
        xy = np.asarray(xy, dtype=float)
        return np.stack([(xy[..., 0] - x0) / (x1 - x0) * w, (y1 - xy[..., 1]) / (y1 - y0) * h], axis=-1)

    def _to_data(self, px):
        vb = self.plane.getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        w, h = max(vb.width(), 1.0), max(vb.height(), 1.0)
        return x0 + px[0] / w * (x1 - x0), y1 - px[1] / h * (y1 - y0)

    @staticmethod
    def _label_size(label):
        rect = label.textItem.boundingRect()
        return rect.width(), rect.height()

    def _place_labels(self):
        """Put the token labels and the O_i label where they hide the least.

        In 2-D each token label goes beside its point — outward from the points' centre first — where it
        covers neither the star, other points nor other labels, and stays inside the plot; then O_i's
        label (on a white backing) goes beside the star where it covers the fewest token labels, points,
        weight lines (a faint line counts little) and hull edges — close to the star unless that hides
        much more. On a line (d_v = 1) the labels sit below it, each on the first tier where it overlaps
        no earlier label, and O_i's label above the star.
        """
        if not self.point_labels or self._readout is None:
            return
        if self._readout.values.shape[1] == 1:
            self._place_labels_on_a_line()
            return
        vb = self.plane.getViewBox()
        bounds = (0.0, 0.0, max(vb.width(), 1.0), max(vb.height(), 1.0))
        pts, o = self.plane_points()
        pts_px = self._to_pixels(pts)
        dots = boxes_around(pts_px, DOT_PX)  # (L, 4): place_label scores only those near a label
        star_on = self.star_label.isVisible()
        star = self._to_pixels(o)
        lines = np.zeros((0, 5))
        if star_on:
            keys = self.shown_keys()
            weights = np.clip(self._readout.weights[keys], 0.0, 1.0)  # a line is as visible as its weight
            lines = np.column_stack([np.tile(star, (len(keys), 1)), pts_px[keys], np.maximum(weights, 0.1)])
        taken = [(star[0] - STAR_PX, star[1] - STAR_PX, star[0] + STAR_PX, star[1] + STAR_PX)] if star_on else []
        centre = pts_px.mean(axis=0)
        for label, point in sorted(zip(self.point_labels, self._label_points), key=lambda lp: lp[1][0]):
            anchor = self._to_pixels(point)
            w, h = self._label_size(label)
            g = DOT_PX + LABEL_GAP
            offsets = [(g - 2, -h + 2), (g - 2, -2), (-w - g + 2, -h + 2), (-w - g + 2, -2), (g, -h / 2),
                       (-w - g, -h / 2), (-w / 2, -h - g + 4), (-w / 2, g - 4)]
            out = anchor - centre
            if np.hypot(*out) > 1e-6:  # outward first: away from the hull, where O_i and the lines are not
                offsets.sort(key=lambda d: -float(np.dot(np.array([d[0] + w / 2, d[1] + h / 2]), out)))
            others = dots[np.hypot(*(pts_px - anchor).T) > 0.5]  # every dot but its own (and any on top of it)
            _, box = place_label(anchor, (w, h), offsets, boxes=np.concatenate([others, np.reshape(taken, (-1, 4))]),
                                 segments=lines, bounds=bounds, line_cost=1.0)
            label.setAnchor((0, 0))
            label.setPos(*self._to_data(box[:2]))
            taken.append(box)
        if not star_on:
            return
        hull = pts_px[self._hull(pts)]
        edges = np.column_stack([hull, np.roll(hull, -1, axis=0), np.full(len(hull), HULL_EDGE_VISIBILITY)]) \
            if len(hull) > 1 else np.zeros((0, 5))
        w, h = self._label_size(self.star_label)
        offsets, penalties = [], []
        for ring, g in enumerate((STAR_PX + 1, STAR_PX + 14, STAR_PX + 30)):  # beside the star, then further
            offsets += [(g, -h / 2), (g, -h - 2), (g, 2), (-w - g, -h / 2), (-w - g, -h - 2), (-w - g, 2),
                        (-w / 2, g - 4), (-w / 2, -h - g + 4)]
            penalties += [ring * STAR_RING_COST * w * h] * 8  # far from the star it names the star less
        _, box = place_label(star, (w, h), offsets, boxes=np.concatenate([dots, np.reshape(taken[1:], (-1, 4))]),
                             segments=np.concatenate([lines, edges]), bounds=bounds, line_cost=STAR_LINE_COST,
                             penalties=penalties)
        self.star_label.setAnchor((0, 0))
        self.star_label.setPos(*self._to_data(box[:2]))
        near = np.clip(star, box[:2], box[2:])  # the label's closest point to the star
        gap = near - star
        if np.hypot(*gap) > STAR_PX + 5:  # set apart: a thin leader says whose label it is
            start = star + gap / np.hypot(*gap) * (STAR_PX - 2)
            ends = np.array([self._to_data(start), self._to_data(near)])
            self.star_leader.setData(ends[:, 0], ends[:, 1])
        else:
            self.star_leader.setData([], [])

    def _place_labels_on_a_line(self):
        vb = self.plane.getViewBox()
        (x0, x1), _ = vb.viewRange()
        px_per_unit = max(vb.width(), 100.0) / max(x1 - x0, 1e-300)
        metrics = QFontMetricsF(self.point_labels[0].textItem.font())
        tiers = []  # per tier: the pixel spans already taken
        for label, point in sorted(zip(self.point_labels, self._label_points), key=lambda lp: lp[1][0]):
            label.setPos(*point)
            frac = float(np.clip((point[0] - x0) / max(x1 - x0, 1e-300), 0.0, 1.0))
            width = metrics.horizontalAdvance(label.textItem.toPlainText()) + 8.0
            left = frac * (x1 - x0) * px_per_unit - frac * width
            span = (left, left + width)
            tier = next((t for t, taken in enumerate(tiers) if all(span[0] >= b or span[1] <= a for a, b in taken)),
                        len(tiers))
            if tier == len(tiers):
                tiers.append([])
            tiers[tier].append(span)
            label.setAnchor((frac, -0.25 - 0.95 * tier))
        self.star_leader.setData([], [])
        if self.star_label.isVisible():
            _, o = self.plane_points()
            frac = float(np.clip((o[0] - x0) / max(x1 - x0, 1e-300), 0.0, 1.0))
            self.star_label.setPos(*o)
            self.star_label.setAnchor((frac, 1.3))

    def _draw_legend(self, ro, keys, tokens):
        entries = []
        for slot, j in enumerate(keys):
            entries.append(f"<span style='color:{key_colour(slot).name()}'>■</span>&nbsp;{escape(tokens[j])}"
                           f"&nbsp;{_fmt_weight(ro.weights[j])}")
        rest = len(ro.attended()) - len(keys)
        if rest:
            w = float(ro.weights.sum() - ro.weights[keys].sum())
            entries.append(f"<span style='color:{OTHERS_COLOR}'>■</span>&nbsp;{rest}&nbsp;others&nbsp;{_fmt(w)}")
        entries.append("<b>—●</b>&nbsp;total&nbsp;O<sub>i,d</sub>")
        entries.append("<b>★</b>&nbsp;O<sub>i</sub>")
        self.legend.setText("&nbsp;&nbsp; ".join(entries))

