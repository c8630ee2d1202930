"""What the heatmap draws over its image, each as one item whose cost does not grow with the cell count:
hatched masked cells, and outlines of the selected row and the highlighted cells (its axes: ``label_axis``)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QImage, QPainter, QPainterPath, QPen

from explorer.widgets.palette import HIGHLIGHT, MASK_GREY, MASK_HATCH as HATCH_GREY

MASK_FILL = QColor(MASK_GREY)  # no colour of either map
MASK_HATCH = QColor(HATCH_GREY)
HIGHLIGHT_COLOR = QColor(HIGHLIGHT)
MAX_HATCH_RUNS = 20_000  # beyond this many masked runs cells are too small to show hatching
MIN_HATCH_CELL_PX = 5.0
MARK_MIN_PX = 10.0  # a cell whose shorter side is below this has no room for a ring around its number


def _cosmetic_pen(color: QColor, width: float) -> QPen:
    pen = QPen(color, width)
    pen.setCosmetic(True)
    pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    return pen


class MaskOverlay(pg.GraphicsObject):
    """Masked cells as one grey image plus one hatched painter path.

    The image is sampled as the heatmap's is (``stride``): at L = 4096 a cell-resolution image is
    64 MiB built on every mask change (~0.2 s), for a picture the screen shows at ~500 pixels. The
    hatching is drawn only where cells are big enough to see it, so only a matrix shown whole needs it.
    """

    def __init__(self):
        super().__init__()
        self._shape = (0, 0)
        self._stride = (1, 1)
        self._mask: np.ndarray | None = None
        self._pixels: np.ndarray | None = None  # keeps the QImage's buffer alive
        self._image: QImage | None = None
        self._image_rect = QRectF()
        self._hatch: QPainterPath | None = None
        self._brush = QBrush(MASK_HATCH, Qt.BrushStyle.BDiagPattern)  # cosmetic: device pixels

    def set_mask(self, mask: np.ndarray | None, shape: tuple[int, int], stride=(1, 1)) -> None:
        if shape != self._shape:
            self.prepareGeometryChange()
            self._shape = shape
        elif stride == self._stride and ((mask is None and self._mask is None) or (
            mask is not None and self._mask is not None and np.array_equal(mask, self._mask)
        )):
            return
        self._mask, self._stride = mask, tuple(stride)
        self._rebuild()

    def set_stride(self, stride) -> None:
        """The heatmap samples its image anew (a resize): sample the mask alike."""
        if tuple(stride) != self._stride:
            self._stride = tuple(stride)
            self._rebuild()

    def _rebuild(self) -> None:
        mask, (fy, fx) = self._mask, self._stride
        self._image = self._hatch = self._pixels = None
        if mask is not None:
            shown = mask[::fy, ::fx]
            rows, cols = shown.shape
            self._pixels = np.where(shown, np.uint32(MASK_FILL.rgba()), np.uint32(0))
            self._image = QImage(self._pixels.data, cols, rows, cols * 4, QImage.Format.Format_ARGB32_Premultiplied)
            self._image_rect = QRectF(-0.5, -0.5, cols * fx, rows * fy)  # as the heatmap's image
            if (fy, fx) == (1, 1):
                self._hatch = _hatch_path(mask)
        self.update()

    def boundingRect(self) -> QRectF:
        rows, cols = self._shape
        return QRectF(-0.5, -0.5, cols, rows)

    def paint(self, p: QPainter, *args) -> None:
        if self._image is None:
            return
        p.drawImage(self._image_rect, self._image)
        t = p.worldTransform()
        if self._hatch is not None and min(abs(t.m11()), abs(t.m22())) >= MIN_HATCH_CELL_PX:
            p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(self._brush)
            p.drawPath(self._hatch)


def _hatch_path(mask: np.ndarray) -> QPainterPath | None:
    """Runs of masked cells per row (vectorised), one rectangle each in a single path; None when
    there are more runs than cells big enough to hatch could ever show."""
    edges = np.diff(np.pad(mask.view(np.int8), ((0, 0), (1, 1))), axis=1)
    r0, c0 = np.nonzero(edges == 1)
    _, c1 = np.nonzero(edges == -1)
    if len(r0) > MAX_HATCH_RUNS:
        return None
    path = QPainterPath()
    path.setFillRule(Qt.FillRule.WindingFill)
    for r, a, b in zip(r0.tolist(), c0.tolist(), c1.tolist()):
        path.addRect(QRectF(a - 0.5, r - 0.5, b - a, 1.0))
    return path


class OutlineOverlay(pg.GraphicsObject):
    """Outlines: the selected row, highlighted cells and the hovered cell (cosmetic pens)."""

    def __init__(self):
        super().__init__()
        self.shape_ = (0, 0)
        self.hover: tuple[int, int] | None = None
        self.cells: list[tuple[int, int]] = []
        self.marks: list[tuple[int, int]] = []  # cells ringed (e.g. each row's largest)
        self.row: int | None = None

    def set_shape(self, shape: tuple[int, int]) -> None:
        self.prepareGeometryChange()
        self.shape_ = shape
        rows, cols = shape
        self.cells = [(r, c) for r, c in self.cells if 0 <= r < rows and 0 <= c < cols]
        self.marks = [(r, c) for r, c in self.marks if 0 <= r < rows and 0 <= c < cols]
        if self.row is not None and not 0 <= self.row < rows:
            self.row = None
        self.hover = None
        self.update()

    def boundingRect(self) -> QRectF:
        rows, cols = self.shape_
        return QRectF(-1.0, -1.0, cols + 1.0, rows + 1.0)

    def paint(self, p: QPainter, *args) -> None:
        rows, cols = self.shape_
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        p.setBrush(Qt.BrushStyle.NoBrush)

        def framed(rect: QRectF, color: QColor, width: float) -> None:
            # a dark frame with a light core reads on every colour of either map
            p.setPen(_cosmetic_pen(QColor(0, 0, 0), width + 2))
            p.drawRect(rect)
            p.setPen(_cosmetic_pen(color, width))
            p.drawRect(rect)

        if self.row is not None:
            framed(QRectF(-0.5, self.row - 0.5, cols, 1.0), QColor(255, 255, 255), 1.5)
        for r, c in self.cells:
            framed(QRectF(c - 0.5, r - 0.5, 1.0, 1.0), HIGHLIGHT_COLOR, 2.0)
        short = min(abs(p.transform().m11()), abs(p.transform().m22()))  # a cell's shorter side in pixels
        if self.marks and short >= MARK_MIN_PX:  # a round ring (in pixels: cells are rarely square) centred on the
            to_device = p.transform()                # cell, around its number; none where a cell has no room for one
            p.save()
            p.resetTransform()
            p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            for color, width in ((QColor(0, 0, 0), 3.0), (QColor(255, 255, 255), 1.5)):
                p.setPen(_cosmetic_pen(color, width))
                for r, c in self.marks:
                    cell = to_device.mapRect(QRectF(c - 0.5, r - 0.5, 1.0, 1.0))
                    radius = min(cell.width(), cell.height()) / 2 - 3.0  # its pen (3 px) inside the cell
                    p.drawEllipse(cell.center(), radius, radius)
            p.restore()
        if self.hover is not None:
            r, c = self.hover
            framed(QRectF(c - 0.5, r - 0.5, 1.0, 1.0), QColor(255, 255, 255), 1.0)
