"""A still plot painted in one ``paintEvent``: a left and a bottom axis with round-number ticks, a faint
grid, the axes' titles, and whatever a subclass paints in data coordinates.

pyqtgraph builds a scene, a view box and four axis items for every plot and lays its tick texts out in
Python on each paint: ~20 ms of the Readout's start for two plots that need none of its panning,
zooming or menus. Here a plot is one widget; ``to_px`` maps data to its pixels (y up), and a subclass
paints in ``paint_data`` (clipped to the data area).
"""
import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QToolTip, QWidget

from .nice import round_ticks
from .number_text import tick_texts
from .palette import blended

TICK_PX = 5  # the ticks' length, pointing out of the data area
GAP_PX = 3  # between a tick and its text, and between a tick text and the axis title
MIN_TICK_GAP = {"x": 50.0, "y": 26.0}  # pixels between round-number ticks chosen by the plot
EDGE_PX = 8  # room right and above the data area (half a tick text spills past its end)
def spanned(bounds):
    """(lo, hi) as floats, hi > lo: a range of no width (or upside down) becomes one unit around its middle."""
    lo, hi = float(bounds[0]), float(bounds[1])
    if not hi > lo:
        mid = (lo + hi) / 2 if math.isfinite(lo + hi) else 0.0
        lo, hi = mid - 0.5, mid + 0.5
    return lo, hi


class PaintedPlot(QWidget):
    """Axes, grid and titles around a data area; ``set_view`` sets the ranges and repaints.

    ``x_ticks`` / ``y_ticks``: None for round numbers chosen to fit, a list of (value, text), or a
    callable (the data area's length in pixels) → such a list (``set_ticks``); ``on_resized()``: redo
    what is placed in pixels.
    """

    def __init__(self, parent, fg, bg, grid_alpha=0.15):
        super().__init__(parent)
        self.fg, self.bg = QColor(fg), QColor(bg)
        grid = QColor(self.fg)
        grid.setAlphaF(grid_alpha)
        self.grid = blended(grid, self.bg)
        self.x_range, self.y_range = (0.0, 1.0), (0.0, 1.0)
        self.titles = {"x": "", "y": ""}
        self.ticks = {"x": None, "y": None}
        self._tooltip_at = None
        self.on_resized = None
        self._frame = None  # (key, data rect, x ticks, y ticks): recomputed when the key changes
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)

    # ----- what it shows ------------------------------------------------------------------------------
    def set_view(self, x_range=None, y_range=None):
        """New ranges (data coordinates, exactly as given: no padding; an empty one widens by ½ each way)."""
        if x_range is not None:
            self.x_range = spanned(x_range)
        if y_range is not None:
            self.y_range = spanned(y_range)
        self._changed()

    def set_title(self, axis, text):
        """The title of the ``"x"`` (bottom) or ``"y"`` (left, turned) axis; "" for none."""
        if self.titles[axis] != text:
            self.titles[axis] = text
            self._changed()

    def set_ticks(self, axis, ticks):
        """None (round numbers), a list of (value, text), or a callable of the axis's pixels giving one."""
        self.ticks[axis] = ticks
        self._changed()

    def set_tooltips(self, tooltip_at):
        """Tooltips from ``tooltip_at(x, y)`` (data coordinates) → a text, or "" for none where the pointer rests."""
        self._tooltip_at = tooltip_at

    def _changed(self):
        self._frame = None
        self.update()

    # ----- geometry ----------------------------------------------------------------------------------
    def data_rect(self):
        """The data area in widget pixels (what ``to_px`` maps the ranges onto)."""
        return self._laid_out()[1]

    def to_px(self, xy):
        """Data point(s) (..., 2) → widget pixels (..., 2), y down."""
        rect = self.data_rect()
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        xy = np.asarray(xy, dtype=float)
        return np.stack([rect.left() + (xy[..., 0] - x0) / (x1 - x0) * rect.width(),
                         rect.top() + (y1 - xy[..., 1]) / (y1 - y0) * rect.height()], axis=-1)

    def _x_px(self, x):
        """One data x → its pixel column (the axes' ticks: no array for one number)."""
        rect, (x0, x1) = self.data_rect(), self.x_range
        return rect.left() + (x - x0) / (x1 - x0) * rect.width()

    def _y_px(self, y):
        rect, (y0, y1) = self.data_rect(), self.y_range
        return rect.top() + (y1 - y) / (y1 - y0) * rect.height()

    def to_data(self, px):
        """A widget pixel (x, y) → the data point there."""
        rect = self.data_rect()
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        return (x0 + (px[0] - rect.left()) / max(rect.width(), 1.0) * (x1 - x0),
                y1 - (px[1] - rect.top()) / max(rect.height(), 1.0) * (y1 - y0))

    def _tick_list(self, axis, lo, hi, pixels):
        given = self.ticks[axis]
        if given is None:
            values, decimals = round_ticks(lo, hi, pixels, MIN_TICK_GAP[axis])
            return list(zip(values, tick_texts(values, decimals)))
        ticks = given(pixels) if callable(given) else given
        return [(float(v), text) for v, text in ticks if lo <= v <= hi]

    def _laid_out(self):
        """(key, data rect, x ticks, y ticks) for the widget's size and font, and the ranges, titles and
        ticks as set (each setter forgets the last layout)."""
        key = (self.width(), self.height(), self.font().key())
        if self._frame is not None and self._frame[0] == key:
            return self._frame
        fm = QFontMetricsF(self.font())
        text_h = fm.height()
        bottom = TICK_PX + GAP_PX + text_h + (text_h + GAP_PX if self.titles["x"] else 0) + 2
        top = max(EDGE_PX, text_h / 2 + 1)
        height = max(self.height() - top - bottom, 1.0)
        y_ticks = self._tick_list("y", *self.y_range, height)
        widest = max((fm.horizontalAdvance(text) for _, text in y_ticks), default=0.0)
        left = TICK_PX + GAP_PX + widest + (text_h + GAP_PX if self.titles["y"] else 0) + 3
        width = max(self.width() - left - EDGE_PX, 1.0)
        x_ticks = self._tick_list("x", *self.x_range, width)
        self._frame = (key, QRectF(left, top, width, height), x_ticks, y_ticks)
        return self._frame

    # ----- painting ----------------------------------------------------------------------------------
    def paintEvent(self, event):
        _, rect, x_ticks, y_ticks = self._laid_out()
        p = QPainter(self)
        p.fillRect(self.rect(), self.bg)
        self._paint_grid(p, rect, y_ticks)
        p.save()
        p.setClipRect(rect)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.paint_data(p)
        p.restore()
        self._paint_axes(p, rect, x_ticks, y_ticks)
        p.end()

    def _paint_grid(self, p, rect, y_ticks):
        p.setPen(QPen(self.grid, 1))
        for y, _ in y_ticks:
            py = round(self._y_px(y)) + 0.5
            p.drawLine(QPointF(rect.left(), py), QPointF(rect.right(), py))

    def _paint_axes(self, p, rect, x_ticks, y_ticks):
        fm = QFontMetricsF(self.font())
        p.setPen(QPen(self.fg, 1))
        left, bottom = math.floor(rect.left()), math.ceil(rect.bottom())
        p.drawLine(left, round(rect.top()), left, bottom)
        p.drawLine(left, bottom, math.ceil(rect.right()), bottom)
        text_h = fm.height()
        for x, _ in x_ticks:
            px = round(self._x_px(x))
            p.drawLine(px, bottom, px, bottom + TICK_PX)
        for text, (start, end) in self._x_tick_texts(x_ticks, fm):
            p.drawText(QRectF(start, bottom + TICK_PX + GAP_PX, end - start, text_h), Qt.AlignmentFlag.AlignCenter,
                       text)
        for y, text in y_ticks:
            py = round(self._y_px(y))
            p.drawLine(left - TICK_PX, py, left, py)
            box = QRectF(0, py - text_h / 2, left - TICK_PX - GAP_PX, text_h)
            p.drawText(box, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, text)
        if self.titles["x"]:
            p.drawText(QRectF(rect.left(), bottom + TICK_PX + GAP_PX + text_h + GAP_PX, rect.width(), text_h),
                       Qt.AlignmentFlag.AlignCenter, self.titles["x"])
        if self.titles["y"]:
            p.save()
            p.translate(2, rect.center().y())
            p.rotate(-90)
            p.drawText(QRectF(-rect.height() / 2, 0, rect.height(), text_h), Qt.AlignmentFlag.AlignCenter,
                       self.titles["y"])
            p.restore()

    def _x_tick_texts(self, x_ticks, fm):
        """(text, (left, right) in pixels) of the x tick texts to draw: each centred on its tick but kept inside
        the widget (an end's text may not fit past the axis); one that would overprint another is left out."""
        shown = []
        for x, text in x_ticks:
            w = fm.horizontalAdvance(text)
            start = min(max(round(self._x_px(x)) - w / 2, 0.0), self.width() - w)
            if all(start > b + 4 or start + w < a - 4 for _, (a, b) in shown):
                shown.append((text, (start, start + w)))
        return shown

    def paint_discs(self, p, points, diameter, fills):
        """Discs ``diameter`` px across at the data ``points`` (n, 2), the i-th filled with ``fills[i]`` (an
        iterable of colours), ringed with the painter's pen."""
        r = diameter / 2
        for (x, y), fill in zip(self.to_px(points).tolist(), fills):
            p.setBrush(QBrush(fill))
            p.drawEllipse(QPointF(x, y), r, r)

    def paint_data(self, p):
        """Paint the data (subclasses): clipped to ``data_rect()``, antialiased, in pixels from ``to_px``;
        with opaque pens (``palette.blended``): Qt draws a translucent line wider than a pixel ~30× slower."""

    # ----- pointer ----------------------------------------------------------------------------------
    def event(self, event):
        if event.type() == event.Type.ToolTip and self._tooltip_at is not None:
            pos = event.position() if hasattr(event, "position") else event.pos()
            text = self._tooltip_at(*self.to_data((pos.x(), pos.y()))) if self.data_rect().contains(pos) else ""
            if text:
                QToolTip.showText(event.globalPos(), text, self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if self.on_resized is not None:
            self.on_resized()
