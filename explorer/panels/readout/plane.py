"""The Readout's plane: the rows of V as points, their convex hull, and O_i inside it with lines weighted by w_ij."""
import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF
from PySide6.QtGui import QBrush, QColor, QFont, QPen, QPolygonF
from PySide6.QtWidgets import QApplication, QGraphicsPolygonItem

from explorer.core.readout import convex_hull_2d, in_convex_hull
from explorer.widgets.html_escape import escape
from explorer.widgets.palette import BAD, BLUISH_GREEN
from explorer.widgets.plots import pooled
from explorer.i18n import translate

from .bars import OUTPUT_COLOR
from .colours import OTHERS_COLOR, key_colour

HULL_FILL = QColor(120, 140, 170, 45)
HULL_EDGE = QColor(120, 140, 170, 160)


def same_points(a, b):
    """True if the (L, 2) arrays ``a`` (may be None) and ``b`` hold the same points."""
    return a is not None and a.shape == b.shape and np.array_equal(a, b)


def label_groups(pts, keys, tokens):
    """Keys at the same place share one label ("追, 红色") so coincident names do not overprint."""
    groups = {}
    for j in keys:
        groups.setdefault(tuple(np.round(pts[j], 12)), []).append(j)
    return [(js[0], ", ".join(tokens[j] for j in js)) for js in groups.values()]


class HullPlane:
    """Part of ReadoutPanel: builds and draws the plane of V's rows, the hull and O_i, and checks O_i is inside."""

    def _build_plane(self, fg, bg):
        self._hull_cache = (None, None)  # (the plane's points, their hull's indices): redone when the points move
        self._drawn_pts = None  # the points the grey scatter and the hull polygon show now
        self._drawn_key_pts = None  # the points the coloured scatter shows now (slot k in colour k)
        self._plane_axes = None  # the plane's (bottom, left) axis titles as set
        self.inside = None  # the last hull check: O_i inside the hull of the V rows on the plane
        self.plane = self._new_plot(bg)
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
        self._label_keys = []  # and the key (row of V) it names first
        self.plane.getViewBox().sigResized.connect(self._layout_plane)

    def _hull(self, pts):
        """The hull of the plane's points, recomputed only when they move (an edit of Q or K leaves V alone)."""
        cached, hull = self._hull_cache
        if not same_points(cached, pts):
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
        if not same_points(self._drawn_pts, pts):  # L points: set only when they moved
            self.hull_item.setPolygon(QPolygonF([QPointF(*pts[i]) for i in hull]) if len(hull) > 1 else QPolygonF())
            self.points.setData(pos=pts)
            self._drawn_pts = pts.copy()
        key_pts = pts[keys]
        if not same_points(self._drawn_key_pts, key_pts):
            self.key_points.setData(pos=key_pts, brush=[pg.mkBrush(key_colour(slot)) for slot in range(len(keys))])
            self._drawn_key_pts = key_pts

        font = QFont(QApplication.font())
        crowded = len(keys) < len(pts)  # grey dots of other keys behind: give the labels a light backing
        groups = label_groups(pts, keys, tokens)
        self.point_labels = pooled(plot, self.point_labels, len(groups), self._new_point_label)
        fill = pg.mkBrush(255, 255, 255, 200) if crowded else pg.mkBrush(None)
        self._label_points, self._label_keys = [], []
        for label, (j, text) in zip(self.point_labels, groups):
            label.setText(text)
            label.fill = fill
            if label.textItem.font() != font:
                label.setFont(font)
            label.setPos(*pts[j])
            label.update()
            self._label_points.append(np.array(pts[j], dtype=float))
            self._label_keys.append(j)
            label.setVisible(True)  # until placing finds it unreadable (plane_labels)

        if ro.masked:
            self.weight_lines = pooled(plot, self.weight_lines, 0, None)
            self.star.setData([], [])
            self.star_label.setText("")
            self.star_label.setVisible(False)
            self.star_leader.setData([], [])
        else:
            self.weight_lines = pooled(plot, self.weight_lines, len(keys), self._new_weight_line)
            for line, j in zip(self.weight_lines, keys):
                alpha = int(round(255 * float(np.clip(ro.weights[j], 0, 1))))
                line.setData([o[0], pts[j, 0]], [o[1], pts[j, 1]])
                line.setPen(pg.mkPen(QColor(40, 40, 40, alpha), width=2))
            self.star.setData([o[0]], [o[1]])
            self.star_label.setText(f"O[{self.model.query_tokens[ro.row]}]")
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
            self.check_label.setText(translate("Readout", "row fully masked: no output, so nothing to place in the hull"))
            self.inside = None
            return
        inside = in_convex_hull(o, pts[hull])
        where = names[0] if one_d else f"{names[self._dims[0]]}, {names[self._dims[1]]}"
        mark = f"<span style='color:{BLUISH_GREEN}'>✓</span>" if inside else f"<span style='color:{BAD}'>✗</span>"
        self.check_label.setText(translate("Readout", "{o} inside the hull of V's rows ({where}): <b>{mark}</b>").format(
            o=f"O[{escape(self.model.query_tokens[ro.row])}]", where=where, mark=mark))
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
