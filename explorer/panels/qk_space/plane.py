"""The Query–key space panel's plot: queries and keys as two scatters, labels, and lines from the point in focus.

It draws what it is given (points, tokens, the lines' ends and weights) and finds the point under the
pointer; the panel decides what to give it from the model's results.
"""
import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QApplication

from explorer.widgets.lean_plot import LeanPlotItem
from explorer.widgets.palette import BLUE, VERMILLION
from explorer.widgets.plot_cache import cache_axes
from explorer.widgets.plots import pooled

Q_COLOR = BLUE  # the queries (as in the RoPE panel)
K_COLOR = VERMILLION  # the keys
Q_SYMBOL, K_SYMBOL = "o", "t1"  # a disc for a query, a triangle (pointing up) for a key
HIT_PX = 9  # the pointer finds a point within this many pixels
GRID_ALPHA = 0.15
LINE_WIDTH = 2.5
CROWDED = 40  # more points than this (queries + keys) are drawn smaller, their names on a white backing
LABEL_GAP_PX = 9  # a name starts this far from its point's centre: clear of the point and the focus ring


class QKPlot(QObject):
    """A PlotWidget with the query and key scatters; ``hovered`` says ("query" | "key", index) or None."""

    hovered = Signal(object)
    clicked = Signal(object)

    def __init__(self, parent, fg, bg):
        super().__init__(parent)
        self._fg = fg
        self.widget = pg.PlotWidget(parent, plotItem=LeanPlotItem())
        self.widget.setBackground(bg)
        item = self.widget.getPlotItem()
        item.hideButtons()
        item.setMenuEnabled(False)
        item.setMouseEnabled(x=False, y=False)
        for side in ("left", "bottom"):
            axis = item.getAxis(side)
            axis.setPen(fg)
            axis.setTextPen(fg)
            axis.enableAutoSIPrefix(False)
            axis.setGrid(int(GRID_ALPHA * 255))
        item.getAxis("bottom").setLabel("plane axis 1", color=fg.name())
        item.getAxis("left").setLabel("axis 2", color=fg.name())
        cache_axes(item)
        self.view = item.getViewBox()
        self.view.setAspectLocked(True)  # a distance is the same whichever way it points
        self.queries = pg.ScatterPlotItem(size=10, symbol=Q_SYMBOL, pen=pg.mkPen("w", width=1),
                                          brush=pg.mkBrush(Q_COLOR))
        self.keys = pg.ScatterPlotItem(size=12, symbol=K_SYMBOL, pen=pg.mkPen("w", width=1),
                                       brush=pg.mkBrush(K_COLOR))
        self.focus_ring = pg.ScatterPlotItem(size=17, symbol="o", pen=pg.mkPen(fg, width=2), brush=None)
        self.queries.setZValue(6)
        self.keys.setZValue(5)
        self.focus_ring.setZValue(7)
        for scatter in (self.keys, self.queries, self.focus_ring):
            self.widget.addItem(scatter)
        self.lines = []  # one PlotCurveItem per line from the point in focus, opacity by weight
        self.labels = []  # TextItems: token names next to points
        self.q_pts = self.k_pts = np.zeros((0, 2))
        self._hover = None
        self._crowded = False
        self.widget.scene().sigMouseMoved.connect(self._moved)
        self.widget.scene().sigMouseClicked.connect(self._clicked)

    # ----- drawing ---------------------------------------------------------------------------------
    def set_points(self, q_pts, k_pts, q_brushes=None, k_brushes=None):
        """The queries' and keys' places (each (n, 2)); the view fits them all. Many points are drawn smaller.
        ``q_brushes``/``k_brushes``: one QBrush per point (colour by position), else the query and key colours."""
        self.q_pts, self.k_pts = np.asarray(q_pts, float).reshape(-1, 2), np.asarray(k_pts, float).reshape(-1, 2)
        if self._hover is not None and self._hover[1] >= len(self.q_pts if self._hover[0] == "query" else self.k_pts):
            self._hover = None  # its point is gone (a token removed): the next move finds what is under the pointer
        crowded = len(self.q_pts) + len(self.k_pts) > CROWDED
        q_extra = {} if q_brushes is None else {"brush": q_brushes}
        k_extra = {} if k_brushes is None else {"brush": k_brushes}
        self.queries.setData(pos=self.q_pts, size=7 if crowded else 10, **q_extra)
        self.keys.setData(pos=self.k_pts, size=8 if crowded else 12, **k_extra)
        for label in self.labels:
            label.fill = pg.mkBrush(255, 255, 255, 210) if crowded else pg.mkBrush(None)
        self._crowded = crowded
        both = np.vstack([self.q_pts, self.k_pts]) if len(self.q_pts) + len(self.k_pts) else np.zeros((1, 2))
        lo, hi = both.min(axis=0), both.max(axis=0)
        spread = float((hi - lo).max())
        pad = spread * 0.12 if spread > 0 else 1.0  # nothing yet, or one place: a plain ±1, not ±1e-9
        self.view.setRange(xRange=(lo[0] - pad, hi[0] + pad), yRange=(lo[1] - pad, hi[1] + pad), padding=0)

    def set_lines(self, start, ends, weights, focus):
        """Lines from ``start`` (2,) to each of ``ends`` (n, 2), opacity by weight (the strongest opaque, the others
        in proportion); ``focus`` (2,) or None is ringed."""
        self.lines = pooled(self.widget, self.lines, len(ends), self._new_line)
        strongest = max((float(w) for w in weights), default=0.0)
        for line, end, w in zip(self.lines, ends, weights):
            alpha = int(round(60 + 195 * float(np.clip(w / strongest, 0, 1)))) if strongest > 0 else 60
            line.setData([start[0], end[0]], [start[1], end[1]])
            line.setPen(pg.mkPen(QColor(40, 40, 40, alpha), width=LINE_WIDTH))
        self.focus_ring.setData(pos=np.zeros((0, 2)) if focus is None else np.asarray([focus], float))

    def set_labels(self, entries):
        """Token names beside points: (x, y, text, colour, side) each — a query's on its right, a key's on its
        left, so that a query and the key it sits on keep their names apart."""
        self.labels = pooled(self.widget, self.labels, len(entries), self._new_label)
        font = QFont(QApplication.font())
        for label, (x, y, text, colour, side) in zip(self.labels, entries):
            if label.textItem.font() != font:
                label.setFont(font)
            label.setText(text, color=colour)
            gap = LABEL_GAP_PX / max(label.textItem.boundingRect().width(), 1.0)  # as a share of its width
            label.setAnchor((-gap, 0.5) if side == "query" else (1 + gap, 0.5))
            label.setPos(x, y)
            label.fill = pg.mkBrush(255, 255, 255, 210) if self._crowded else pg.mkBrush(None)

    def _new_line(self):
        line = pg.PlotCurveItem()
        line.setZValue(6.5)  # over the points (in a crowd they would hide it), under the focus ring
        return line

    def _new_label(self):
        label = pg.TextItem("")
        label.setZValue(8)
        label.textItem.document().setDocumentMargin(1)
        return label

    # ----- the pointer -----------------------------------------------------------------------------
    def point_at(self, scene_pos):
        """("query" | "key", index) of the point nearest ``scene_pos`` within HIT_PX pixels, or None."""
        if not self.view.sceneBoundingRect().contains(scene_pos):
            return None
        at = self.view.mapSceneToView(scene_pos)
        px, py = self.view.viewPixelSize()
        if not (px > 0 and py > 0):
            return None  # not laid out yet
        best, found = HIT_PX ** 2, None
        for side, pts in (("query", self.q_pts), ("key", self.k_pts)):  # queries are drawn on top: found first
            if not len(pts):
                continue
            d2 = ((pts[:, 0] - at.x()) / px) ** 2 + ((pts[:, 1] - at.y()) / py) ** 2
            i = int(np.argmin(d2))
            if d2[i] < best:
                best, found = float(d2[i]), (side, i)
        return found

    def _moved(self, scene_pos):
        found = self.point_at(scene_pos)
        if found != self._hover:
            self._hover = found
            self.hovered.emit(found)

    def _clicked(self, event):
        found = self.point_at(event.scenePos())
        if found is not None:
            self.clicked.emit(found)

    def leave(self):
        """The pointer left the plot: nothing is hovered."""
        if self._hover is not None:
            self._hover = None
            self.hovered.emit(None)

    @property
    def hover(self):
        return self._hover

    def scene_pos_of(self, side, i):
        """Where point ``i`` of ``side`` is in the scene (for tests and tooltips)."""
        pts = self.q_pts if side == "query" else self.k_pts
        return self.view.mapViewToScene(pg.Point(*pts[i]))
