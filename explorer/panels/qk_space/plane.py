"""The Query–key space panel's plot: queries and keys as two scatters, labels, and lines from the point in focus.

It draws what it is given (points, tokens, the lines' ends and weights) and finds the point under the
pointer; the panel decides what to give it from the model's results.
"""
import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QPointF, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QApplication

from explorer.core.name_labels import place_names
from explorer.core.readout import boxes_around
from explorer.weak import weakly
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
MAX_NAMED = 64  # names tried at most (the focus, then its partners): placing each scans those placed before
LABEL_GAP_PX = 9  # a name starts this far from its point's centre: clear of the point and the focus ring
FOCUS_RING_PX = 17
ONE_PLACE = 1e-12  # points spread less than this apart are on one place
SIZES = {False: (10, 12), True: (7, 8)}  # (query, key) point sizes in px: few points, many (over CROWDED)


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
        self.queries = pg.ScatterPlotItem(size=SIZES[False][0], symbol=Q_SYMBOL, pen=pg.mkPen("w", width=1),
                                          brush=pg.mkBrush(Q_COLOR))
        self.keys = pg.ScatterPlotItem(size=SIZES[False][1], symbol=K_SYMBOL, pen=pg.mkPen("w", width=1),
                                       brush=pg.mkBrush(K_COLOR))
        self.focus_ring = pg.ScatterPlotItem(size=FOCUS_RING_PX, symbol="o", pen=pg.mkPen(fg, width=2), brush=None)
        self.queries.setZValue(6)
        self.keys.setZValue(5)
        self.focus_ring.setZValue(7)
        for scatter in (self.keys, self.queries, self.focus_ring):
            self.widget.addItem(scatter)
        self.lines = []  # one PlotCurveItem per line from the point in focus, opacity by weight
        self.labels = []  # TextItems: token names next to points
        self._named = []  # (x, y, side) of each label's point
        self._first = None  # the index of the label placed first
        self._focus, self._lines_drawn = None, np.zeros((0, 5))  # the ringed point; the lines (x0, y0, x1, y1, alpha)
        self.q_pts = self.k_pts = np.zeros((0, 2))
        self._hover = None
        self._crowded = False
        self.view.sigResized.connect(weakly(self._place_labels))  # (in pixels: again at every size)
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
        q_size, k_size = SIZES[crowded]
        self.queries.setData(pos=self.q_pts, size=q_size, **q_extra)
        self.keys.setData(pos=self.k_pts, size=k_size, **k_extra)
        for label in self.labels:
            label.fill = pg.mkBrush(255, 255, 255, 210) if crowded else pg.mkBrush(None)
        self._crowded = crowded
        both = np.vstack([self.q_pts, self.k_pts]) if len(self.q_pts) + len(self.k_pts) else np.zeros((1, 2))
        lo, hi = both.min(axis=0), both.max(axis=0)
        spread = float((hi - lo).max())
        # nothing yet, or one place (every q and k the same vector lands all on one point, give or take rounding
        # of 1e-16): a plain ±1, not a range of 1e-16 that pixels cannot be placed in
        pad = spread * 0.12 if spread > ONE_PLACE else 1.0
        self.view.setRange(xRange=(lo[0] - pad, hi[0] + pad), yRange=(lo[1] - pad, hi[1] + pad), padding=0)

    def set_lines(self, start, ends, weights, focus):
        """Lines from ``start`` (2,) to each of ``ends`` (n, 2), opacity by weight (the strongest opaque, the others
        in proportion); ``focus`` (2,) or None is ringed."""
        self.lines = pooled(self.widget, self.lines, len(ends), self._new_line)
        strongest = max((float(w) for w in weights), default=0.0)
        drawn = []
        for line, end, w in zip(self.lines, ends, weights):
            alpha = int(round(60 + 195 * float(np.clip(w / strongest, 0, 1)))) if strongest > 0 else 60
            line.setData([start[0], end[0]], [start[1], end[1]])
            line.setPen(pg.mkPen(QColor(40, 40, 40, alpha), width=LINE_WIDTH))
            drawn.append((start[0], start[1], end[0], end[1], alpha / 255))
        self._lines_drawn = np.reshape(np.asarray(drawn, dtype=float), (-1, 5))
        self._focus = None if focus is None else (float(focus[0]), float(focus[1]))
        self.focus_ring.setData(pos=np.zeros((0, 2)) if focus is None else np.asarray([focus], float))

    def set_labels(self, entries, first=None):
        """Token names beside points: (x, y, text, colour, side) each — a query's on its right, a key's on its
        left, else wherever it covers no other name (``_place_labels``); ``first``: the index of the entry
        placed first (the point in focus), which keeps its name wherever names crowd."""
        self.labels = pooled(self.widget, self.labels, len(entries), self._new_label)
        font = QFont(QApplication.font())
        for label, (x, y, text, colour, side) in zip(self.labels, entries):
            if label.textItem.font() != font:
                label.setFont(font)
            label.setText(text, color=colour)
            label.fill = pg.mkBrush(255, 255, 255, 210) if self._crowded else pg.mkBrush(None)
        self._named = [(float(x), float(y), side) for x, y, _t, _c, side in entries]
        self._first = first
        self._place_labels()

    def _place_labels(self, *_):
        """Each name beside its point where it covers least of the other names, points and lines, inside the
        plot (explorer.core.name_labels); one that would lie on a name placed before it is left off. The point
        in focus is named first (``set_labels``' ``first``), then those its lines go to, then the rest."""
        if not self.labels:
            return
        rect = self.view.boundingRect()
        if rect.width() < 2 or rect.height() < 2:  # not laid out yet: placed when it is resized
            return
        px = self._to_px
        points = px([(x, y) for x, y, _ in self._named])
        ends = px(self._lines_drawn[:, 2:4])
        focus = None if self._focus is None else px([self._focus])[0]

        line_to = {}  # a point's pixel (to a thousandth) → the first line ending there: one lookup a name
        for k, end in enumerate(np.round(ends, 3).tolist()):
            line_to.setdefault(tuple(end), k)
        at = [tuple(p) for p in np.round(points, 3).tolist()]

        def rank(i):
            if i == self._first:
                return (0, 0)
            k = line_to.get(at[i])
            return (1, k) if k is not None else (2, i)

        order = sorted(range(len(points)), key=rank)
        for i in order[MAX_NAMED:]:  # more names than a plot can show apart: the first ranked are tried
            self.labels[i].setVisible(False)
        order = order[:MAX_NAMED]
        q_size, k_size = SIZES[self._crowded]
        dots = [boxes_around(px(self.q_pts), q_size / 2 + 1), boxes_around(px(self.k_pts), k_size / 2 + 1)]
        if focus is not None:
            dots.append(boxes_around([focus], FOCUS_RING_PX / 2 + 1))
        lines = np.column_stack([px(self._lines_drawn[:, 0:2]), ends, self._lines_drawn[:, 4]])
        sizes = [(r.width(), r.height()) for r in (self.labels[i].textItem.boundingRect() for i in order)]
        boxes = place_names(points[order], sizes, ["right" if self._named[i][2] == "query" else "left" for i in order],
                            dots=np.concatenate([np.reshape(d, (-1, 4)) for d in dots]),
                            lines=np.reshape(lines, (-1, 5)), bounds=(rect.left(), rect.top(), rect.right(), rect.bottom()),
                            gap=LABEL_GAP_PX)
        for i, box in zip(order, boxes):
            label = self.labels[i]
            label.setVisible(box is not None)
            if box is not None:
                corner = self.view.mapToView(QPointF(box[0], box[1]))
                label.setAnchor((0, 0))
                label.setPos(corner.x(), corner.y())

    def _to_px(self, points):
        """Points (n, 2) of the plane in the view's pixels (the view only scales and shifts)."""
        t = self.view.childTransform()
        p = np.asarray(points, dtype=float).reshape(-1, 2)
        return np.column_stack([t.m11() * p[:, 0] + t.m21() * p[:, 1] + t.dx(),
                                t.m12() * p[:, 0] + t.m22() * p[:, 1] + t.dy()])

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
