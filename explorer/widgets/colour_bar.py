"""A heatmap's colour scale: the colour map as a framed strip beside one axis of values.

Drawn as pyqtgraph's vertical, non-interactive ``ColorBarItem`` draws it (tests/gui/test_colour_bar.py
compares the pixels), but not built as one: a ColorBarItem is a PlotItem with a ViewBox, an image item
and four axes, three of them only to draw the frame. Here the strip paints the map and the frame itself
and one axis says the values: ~6 ms less per heatmap to build and first paint (issue 18, start-up).
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from pyqtgraph import functions as fn
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QImage, QPainter, QPixmap
from PySide6.QtWidgets import QGraphicsGridLayout, QSizePolicy

from explorer.widgets.lean_plot import LeanAxisItem

AXIS_WIDTH = 45  # the value axis's width, as ColorBarItem's


class _Strip(pg.GraphicsWidget):
    """The colour map from low (bottom) to high (top), framed on three sides (the axis draws the fourth)."""

    def __init__(self, lut: np.ndarray, width: float, pen, parent=None):
        super().__init__(parent)
        rows = np.ascontiguousarray(lut[::-1, None, :])  # (256, 1, 4): the highest colour on top
        self._pixmap = QPixmap.fromImage(fn.ndarray_to_qimage(rows, QImage.Format.Format_RGBA8888))
        self.pen = fn.mkPen(pen)
        self.setMinimumWidth(width)
        self.setMaximumWidth(width)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Expanding)

    def paint(self, p: QPainter, *args):
        r = self.rect()
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        p.drawPixmap(r, self._pixmap, QRectF(self._pixmap.rect()))
        # the frame where pyqtgraph's frame axes draw it: one pixel outside the strip
        p.setPen(self.pen)
        left, top, right, bottom = r.left() - 1, r.top() - 1, r.right() + 1, r.bottom() + 1
        p.drawLine(QPointF(left, top), QPointF(left, bottom))
        p.drawLine(QPointF(left, top), QPointF(right, top))
        p.drawLine(QPointF(left, bottom), QPointF(right, bottom))

    def boundingRect(self):
        return self.rect().adjusted(-1, -1, 1, 1)


def _places(text: str) -> int:
    """How many decimals a tick text shows ("0.25" → 2, "4" → 0)."""
    return len(text.rsplit(".", 1)[1]) if "." in text else 0


END_DIGITS = 3  # significant digits an end value is given at most (2.9249 → "2.92": it has to fit the axis)


def end_text(value: float, places: int) -> str:
    """An end value with the ticks' decimals, more where they would round it (7.5 beside "4", "6" is "7.5") up to
    END_DIGITS significant digits, with a true minus."""
    most = max(places, END_DIGITS - 1 - math.floor(math.log10(abs(value)))) if value else places
    while places < most and not math.isclose(round(value, places), value, rel_tol=1e-9, abs_tol=1e-12):
        places += 1
    return fixed_text(value, places)


def fixed_text(value: float, places: int) -> str:
    """``value`` with ``places`` decimals and a true minus ("0", never "−0.00")."""
    text = f"{value:.{places}f}"
    return ("0" if float(text) == 0 else text).replace("-", "−")


class _ValueAxis(LeanAxisItem):
    """The bar's value axis: pyqtgraph's ticks, and always both end values when two labels fit along it.

    pyqtgraph labels only its tick values, so an end no tick fell on went unlabelled (① at 1024 × 640:
    4 … −4 on a −5 … 5 bar). A missing end is labelled where pyqtgraph labels an end tick (centred on
    it), and a label closer to it than half a label's height gives way."""

    def generateDrawSpecs(self, p):
        specs = super().generateDrawSpecs(p)
        if specs is None or not self.style["showValues"]:
            return specs
        axis_spec, ticks, texts = specs
        return axis_spec, ticks, self._with_ends(p, texts)

    def _with_ends(self, p, texts):
        bounds = self.mapRectFromParent(self.geometry())
        lo, hi = sorted(float(v) for v in self.range)
        centre = Qt.AlignmentFlag.AlignCenter
        height = p.boundingRect(QRectF(0, 0, 100, 100), centre, "0").height() * 0.8  # as pyqtgraph measures
        if hi <= lo or bounds.height() < 2 * height:
            return texts
        places = max((_places(text) for *_, text in texts), default=0)
        left = bounds.left() + max(0, self.style["tickLength"]) + self.style["tickTextOffset"][0]
        flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextDontClip
        ends = [(value, y) for value, y in ((hi, bounds.top()), (lo, bounds.bottom()))
                if not any(abs(rect.center().y() - y) < 0.5 for rect, *_ in texts)]  # (pyqtgraph labelled the others)
        said = {value: end_text(value, places) for value, _ in ends}
        most = max((_places(text) for text in said.values()), default=places)
        measure = lambda text: p.boundingRect(QRectF(0, 0, 100, 100), centre, text).width()  # noqa: E731
        while most > places and max(map(measure, said.values())) > bounds.right() - left:
            most -= 1  # both ends one decimal fewer, until they fit beside the strip
            said = {value: fixed_text(value, min(most, _places(text))) for value, text in said.items()}
        for value, y in ends:
            text = said[value]
            width = measure(text)
            rect = QRectF(left, y - height / 2, width, height)
            room = rect.adjusted(0, -height / 2, 0, height / 2)
            texts = [spec for spec in texts if not spec[0].intersects(room)]
            texts.append((rect, flags, text))
        return texts


class ColourBar(pg.GraphicsWidget):
    """The levels of a heatmap's colours: ``setLevels((lo, hi))``, ``levels()``; ``axis`` is its value axis
    (``axis.setLabel`` names what the colours are)."""

    def __init__(self, colour_map: pg.ColorMap, *, width: float = 14, pen="k", parent=None):
        super().__init__(parent)
        self._values = (0.0, 1.0)
        self.strip = _Strip(colour_map.getLookupTable(nPts=256, alpha=True), width, pen, parent=self)
        self.axis = _ValueAxis("right", pen=pen, textPen=pen, parent=self)
        self.axis.setWidth(AXIS_WIDTH)
        self.axis.setZValue(0.5)
        self.axis.setRange(*self._values)
        self.axis.enableAutoSIPrefix(False)
        plain = self.axis.tickStrings
        self.axis.tickStrings = lambda *a: [t.replace("-", "−") for t in plain(*a)]  # a true minus, as in the cells
        layout = QGraphicsGridLayout()
        layout.setContentsMargins(1, 1, 1, 1)
        layout.setHorizontalSpacing(0)
        layout.setVerticalSpacing(0)
        layout.addItem(self.strip, 0, 0)
        layout.addItem(self.axis, 0, 1)
        self.setLayout(layout)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Expanding)

    def setLevels(self, values) -> None:
        lo, hi = (float(v) for v in values)
        self._values = (lo, hi)
        self.axis.setRange(lo, hi)

    def levels(self) -> tuple[float, float]:
        return self._values
