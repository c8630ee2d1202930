"""The Readout's plane: the rows of V as points, their convex hull, and O_i inside it with lines weighted by w_ij."""
import math
from dataclasses import dataclass
from itertools import repeat

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPaintEngine, QPainter, QPen, QPixmap, QPolygonF

from explorer.core.readout import convex_hull_2d, in_convex_hull
from explorer.widgets.html_escape import escape
from explorer.widgets.painted_plot import PaintedPlot
from explorer.widgets.palette import BAD, BLUISH_GREEN, blended
from explorer.i18n import translate
from explorer.weak import weakly

from .bars import OUTPUT_COLOR
from .colours import OTHERS_COLOR, key_colour

HULL_FILL = QColor(120, 140, 170, 45)
HULL_EDGE = QColor(120, 140, 170, 160)
POINT_PX, KEY_POINT_PX, STAR_SIZE_PX = 9.0, 11.0, 22.0  # diameters of a V row's dot, a drawn key's, the star
LABEL_MARGIN, STAR_LABEL_MARGIN = 2.0, 1.5  # pixels around a label's text: its box is what placing keeps apart
# A five-pointed star of height 1 around (0, 0), point up (pixels: y down)
STAR = ((0, -0.5), (-0.1123, -0.1545), (-0.4755, -0.1545), (-0.1816, 0.059), (-0.2939, 0.4045), (0, 0.191),
        (0.2939, 0.4045), (0.1816, 0.059), (0.4755, -0.1545), (0.1123, -0.1545))


def polygon(px):
    """A QPolygonF of the (N, 2) pixel positions ``px``."""
    return QPolygonF([QPointF(x, y) for x, y in np.asarray(px, dtype=float).tolist()])


def same_points(a, b):
    """True if the (L, 2) arrays ``a`` (may be None) and ``b`` hold the same points."""
    return a is not None and a.shape == b.shape and np.array_equal(a, b)


def label_groups(pts, keys, tokens):
    """Keys at the same place share one label ("追, 红色") so coincident names do not overprint: the same to 12
    digits of the points' extent on each axis (rounded to 12 decimals, V rows 1e−13 apart were one place)."""
    extent = np.ptp(pts, axis=0)
    place = np.round((pts - pts.min(axis=0)) / np.where(extent > 0, extent, 1.0), 12)
    groups = {}
    for j in keys:
        groups.setdefault(tuple(place[j]), []).append(j)
    return [(js[0], ", ".join(tokens[j] for j in js)) for js in groups.values()]


@dataclass
class PlaneLabel:
    """A text on the plane: ``box`` is where it is painted (widget pixels), None while it is not shown."""

    text: str
    margin: float = LABEL_MARGIN
    fill: QColor = None  # its backing, or None for none
    box: QRectF = None

    def size(self, metrics):
        """(width, height) of its box in pixels for these font metrics."""
        return metrics.horizontalAdvance(self.text) + 2 * self.margin, metrics.height() + 2 * self.margin


class PlanePlot(PaintedPlot):
    """The plane as drawn: V's rows, the drawn keys in their colours, the hull, O_i's star and lines, the labels."""

    def __init__(self, parent, fg, bg):
        super().__init__(parent, fg, bg)
        self.points = np.zeros((0, 2))  # every row of V (grey)
        self.key_points, self.key_colours = np.zeros((0, 2)), []  # the keys drawn one by one, in their colours
        self.hull = np.zeros((0, 2))  # the hull's corners, in order
        self.star = None  # O_i on the plane, or None (a fully masked row)
        self.lines = []  # (v_j on the plane, its weight): a line O_i → v_j, as opaque as the weight
        self.labels = []  # PlaneLabel per drawn point (or group of coincident points)
        self.star_label = PlaneLabel("", STAR_LABEL_MARGIN, QColor(255, 255, 255, 225))
        self.leader = None  # (from, to) in pixels: star → its label when set apart, or None
        self._dot = None  # (device pixel ratio, the picture of a grey dot)

    def paint_data(self, p):
        inside = blended(HULL_FILL, self.bg)  # what the hull shows: the weight lines lie in it (O_i and v_j do)
        if len(self.hull) > 1:
            hull = polygon(self.to_px(self.hull))
            p.setRenderHint(QPainter.RenderHint.Antialiasing, False)  # a pale fill (~10× faster): its edge is drawn next
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QBrush(HULL_FILL))
            p.drawPolygon(hull)
            p.setRenderHint(QPainter.RenderHint.Antialiasing)
            p.setPen(QPen(blended(HULL_EDGE, inside), 1.5))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawPolygon(hull)
        self._paint_points(p)
        if self.star is not None:
            star = QPointF(*self.to_px(self.star))
            for end, weight in self.lines:
                line = QColor(40, 40, 40)
                line.setAlphaF(float(np.clip(weight, 0.0, 1.0)))
                p.setPen(QPen(blended(line, inside), 2))
                p.drawLine(star, QPointF(*self.to_px(end)))
        self._paint_labels(p, self.labels)
        p.setPen(QPen(self.fg, 1))
        self.paint_discs(p, self.key_points, KEY_POINT_PX, self.key_colours)
        if self.star is not None:
            self._paint_star(p)

    def _paint_points(self, p):
        """Every row of V as a grey dot ringed in the text colour: on screen one small picture stamped L times
        (at L = 4096 a disc drawn each time took ~18 ms, the stamp ~4.5 ms); in an SVG export discs, not L pictures."""
        if p.paintEngine().type() != QPaintEngine.Type.Raster:
            p.setPen(QPen(self.fg, 1))
            self.paint_discs(p, self.points, POINT_PX, repeat(QColor(OTHERS_COLOR)))
            return
        ratio = self.devicePixelRatioF()
        if self._dot is None or self._dot[0] != ratio:
            side = POINT_PX + 2
            dot = QPixmap(math.ceil(side * ratio), math.ceil(side * ratio))
            dot.setDevicePixelRatio(ratio)
            dot.fill(Qt.GlobalColor.transparent)
            q = QPainter(dot)
            q.setRenderHint(QPainter.RenderHint.Antialiasing)
            q.setPen(QPen(self.fg, 1))
            q.setBrush(QBrush(QColor(OTHERS_COLOR)))
            q.drawEllipse(QPointF(side / 2, side / 2), POINT_PX / 2, POINT_PX / 2)
            q.end()
            self._dot = (ratio, dot)
        dot, half = self._dot[1], (POINT_PX + 2) / 2
        for x, y in self.to_px(self.points).tolist():
            p.drawPixmap(QPointF(x - half, y - half), dot)

    def _paint_labels(self, p, labels):
        for label in labels:
            if label.box is None:
                continue
            if label.fill is not None:
                p.fillRect(label.box, label.fill)
            p.setPen(self.fg if label is not self.star_label else QColor(OUTPUT_COLOR))
            p.drawText(label.box, Qt.AlignmentFlag.AlignCenter, label.text)

    def _paint_star(self, p):
        if self.leader is not None:
            p.setPen(QPen(QColor(OUTPUT_COLOR), 1))
            p.drawLine(QPointF(*self.leader[0]), QPointF(*self.leader[1]))
        cx, cy = self.to_px(self.star)
        p.setPen(QPen(QColor(255, 255, 255), 1.5))
        p.setBrush(QBrush(QColor(OUTPUT_COLOR)))
        p.drawPolygon(polygon(np.array(STAR) * STAR_SIZE_PX + (cx, cy)))
        self._paint_labels(p, [self.star_label])

    def metrics(self):
        return QFontMetricsF(self.font())


class HullPlane:
    """Part of ReadoutPanel: builds and draws the plane of V's rows, the hull and O_i, and checks O_i is inside."""

    def _build_plane(self, fg, bg):
        self._hull_cache = (None, None)  # (the plane's points, their hull's indices): redone when the points move
        self._plane_axes = None  # the plane's (bottom, left) axis titles as set
        self.inside = None  # the last hull check: O_i inside the hull of the V rows on the plane
        self.plane = PlanePlot(self, fg, bg)
        self.plane.on_resized = weakly(self._layout_plane)
        self._label_points = []  # the data point each entry of plane.labels names
        self._label_keys = []  # and the key (row of V) it names first

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
        plane = self.plane
        pts, o = self.plane_points()
        one_d = ro.values.shape[1] == 1
        hull = self._hull(pts)
        plane.points, plane.hull = pts, pts[hull]
        plane.key_points, plane.key_colours = pts[keys], [key_colour(slot) for slot in range(len(keys))]

        crowded = len(keys) < len(pts)  # grey dots of other keys behind: give the labels a light backing
        groups = label_groups(pts, keys, tokens)
        fill = QColor(255, 255, 255, 200) if crowded else None
        plane.labels = [PlaneLabel(text, fill=fill) for _, text in groups]
        self._label_points = [np.array(pts[j], dtype=float) for j, _ in groups]
        self._label_keys = [j for j, _ in groups]

        if ro.masked:
            plane.star, plane.lines = None, []
            plane.star_label.text = ""
        else:
            plane.star = o
            plane.lines = [(pts[j], float(ro.weights[j])) for j in keys]
            plane.star_label.text = f"O[{self.model.query_tokens[ro.row]}]"

        names = [f"d{int(c)}" for c in ro.columns]
        axes = (translate("Readout", "{dim} (V has one dimension: a line)").format(dim=names[0]), "") if one_d else \
            (names[self._dims[0]], names[self._dims[1]])
        if axes != self._plane_axes:
            plane.set_title("x", axes[0])
            plane.set_title("y", axes[1])
            plane.set_ticks("y", [] if one_d else None)
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
