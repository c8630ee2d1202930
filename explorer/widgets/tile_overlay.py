"""Boxes over blocks of a heatmap's cells: one outlined (the current one), some shaded (done), some veiled
(not reached yet), some crossed out (left out). Generic: it knows cell ranges, nothing of attention.

Cell (i, j) of a ``Heatmap`` is centred at view point (x=j, y=i), so the box of rows [r0, r1) and
columns [c0, c1) is the rectangle (c0 − ½, r0 − ½) of size (c1 − c0) × (r1 − r0).
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen

CURRENT = QColor(230, 159, 0)  # Okabe–Ito orange: the box being worked on
DONE = QColor(128, 128, 128, 80)  # a grey wash over the boxes done
GRID = QColor(0, 0, 0, 140)


def _pen(color, width, style=Qt.PenStyle.SolidLine):
    pen = QPen(color, width, style)
    pen.setCosmetic(True)  # pixels, whatever the zoom
    return pen


def box_rect(box):
    """The view rectangle of ``box`` = (r0, r1, c0, c1)."""
    r0, r1, c0, c1 = box
    return QRectF(c0 - 0.5, r0 - 0.5, c1 - c0, r1 - r0)


class TileOverlay(pg.GraphicsObject):
    """Draws over a heatmap: every box's edge thinly, the ``done`` ones shaded, the ``ahead`` ones veiled in
    ``veil`` (the background colour), the ``crossed`` ones crossed out, the ``current`` one outlined."""

    def __init__(self, veil: QColor):
        super().__init__()
        self.veil = QColor(veil)
        self.veil.setAlpha(200)
        self.shape_ = (0, 0)
        self.boxes: list[tuple[int, int, int, int]] = []
        self.done: list[int] = []
        self.ahead: list[int] = []
        self.crossed: list[int] = []
        self.current: int | None = None

    def attach(self, heatmap) -> TileOverlay:
        """Put the overlay on ``heatmap`` (above its cells, texts and outlines); returns itself."""
        self.setZValue(10)
        heatmap.plot.addItem(self, ignoreBounds=True)
        return self

    def set_tiles(self, shape, boxes, *, done=(), ahead=(), crossed=(), current=None) -> None:
        """The matrix ``shape`` (rows, cols), the ``boxes`` (r0, r1, c0, c1), and which of them (indices) are
        done, ahead or crossed out, and the current one (or None)."""
        new = (tuple(shape), list(boxes), list(done), list(ahead), list(crossed), current)
        if new == (self.shape_, self.boxes, self.done, self.ahead, self.crossed, self.current):
            return
        self.prepareGeometryChange()
        self.shape_, self.boxes, self.done, self.ahead, self.crossed, self.current = new
        self.update()

    def boundingRect(self) -> QRectF:
        rows, cols = self.shape_
        return QRectF(-1.0, -1.0, cols + 1.0, rows + 1.0)

    def paint(self, p: QPainter, *args) -> None:
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        p.setPen(Qt.PenStyle.NoPen)
        for group, colour in ((self.done, DONE), (self.ahead, self.veil)):
            p.setBrush(colour)
            for i in group:
                p.drawRect(box_rect(self.boxes[i]))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.setPen(_pen(GRID, 1.0))
        for box in self.boxes:
            p.drawRect(box_rect(box))
        p.setPen(_pen(GRID, 1.0, Qt.PenStyle.DashLine))
        for i in self.crossed:
            r = box_rect(self.boxes[i])
            p.drawLine(QLineF(r.topLeft(), r.bottomRight()))
            p.drawLine(QLineF(r.topRight(), r.bottomLeft()))
        if self.current is not None and 0 <= self.current < len(self.boxes):
            r = box_rect(self.boxes[self.current])
            p.setPen(_pen(QColor(0, 0, 0), 5.0))
            p.drawRect(r)
            p.setPen(_pen(CURRENT, 3.0))
            p.drawRect(r)
