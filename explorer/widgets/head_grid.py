"""A grid of small heatmaps, rows × columns (BertViz's model view: layers × heads), painted from one
array of thumbnails in [0, 1]; hover and click name a cell; each cell may carry a short badge."""
import numpy as np
from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QPainter, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from .palette import colour_map
from .palette import HIGHLIGHT

GAP, LABEL_W, LABEL_H, MIN_CELL = 6, 58, 18, 28


class HeadGrid(QWidget):
    """``set_thumbnails(array (R, C, h, w), row_label, col_label, badges)``; ``cellHovered(r, c)`` (−1, −1
    when leaving) and ``cellClicked(r, c)``."""

    cellHovered = Signal(int, int)
    cellClicked = Signal(int, int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._lut = colour_map("sequential").getLookupTable(nPts=256, alpha=False)
        self._images = []
        self._shape = (0, 0)
        self._labels = ("", "")
        self._badges = {}
        self._first = 0
        self.hovered = None
        self.selected = None

    def set_thumbnails(self, thumbs, row_label="layer", col_label="head", badges=None, first=0):
        """Show ``thumbs`` (R, C, h, w), values in [0, 1]; ``badges`` {(r, c): short text}; rows and columns
        are labelled from ``first`` (signals always give indices from 0)."""
        thumbs = np.asarray(thumbs, dtype=np.float64)
        rows, cols = thumbs.shape[:2]
        index = np.clip(np.nan_to_num(thumbs) * 255, 0, 255).astype(np.uint8)
        rgb = np.ascontiguousarray(self._lut[index])  # (R, C, h, w, 3)
        self._images = [[QImage(rgb[r, c].tobytes(), rgb.shape[3], rgb.shape[2], 3 * rgb.shape[3],
                                QImage.Format.Format_RGB888).copy() for c in range(cols)] for r in range(rows)]
        self._shape, self._labels, self._badges = (rows, cols), (row_label, col_label), dict(badges or {})
        self._first = int(first)
        self.updateGeometry()
        self.update()

    def clear(self):
        self._images, self._shape = [], (0, 0)
        self.update()

    def cell_rect(self, r, c):
        """Where cell (r, c) is drawn (widget pixels)."""
        rows, cols = self._shape
        side = self._side()
        return QRectF(LABEL_W + c * (side + GAP), LABEL_H + r * (side + GAP), side, side)

    def cell_at(self, pos):
        rows, cols = self._shape
        for r in range(rows):
            for c in range(cols):
                if self.cell_rect(r, c).contains(pos):
                    return r, c
        return None

    def _side(self):
        rows, cols = self._shape
        if not rows:
            return MIN_CELL
        room = min((self.width() - LABEL_W) / cols, (self.height() - LABEL_H) / rows) - GAP
        return max(float(MIN_CELL), room)

    def sizeHint(self):
        rows, cols = self._shape
        return QSize(LABEL_W + cols * 90, LABEL_H + rows * 90)

    def width_for(self, cell):
        """The width that shows every column at ``cell`` pixels."""
        return LABEL_W + self._shape[1] * (cell + GAP)

    def minimumSizeHint(self):
        rows, cols = self._shape
        return QSize(LABEL_W + cols * (MIN_CELL + GAP), LABEL_H + rows * (MIN_CELL + GAP))

    def mouseMoveEvent(self, event):
        cell = self.cell_at(event.position())
        if cell != self.hovered:
            self.hovered = cell
            self.cellHovered.emit(*(cell or (-1, -1)))
            self.update()

    def leaveEvent(self, event):
        if self.hovered is not None:
            self.hovered = None
            self.cellHovered.emit(-1, -1)
            self.update()

    def mousePressEvent(self, event):
        cell = self.cell_at(event.position())
        if cell is not None and event.button() == Qt.MouseButton.LeftButton:
            self.cellClicked.emit(*cell)

    def paintEvent(self, event):
        p = QPainter(self)
        p.fillRect(self.rect(), self.palette().color(QPalette.ColorRole.Base))
        rows, cols = self._shape
        fg = self.palette().color(QPalette.ColorRole.WindowText)
        fm = QFontMetricsF(self.font())
        p.setPen(fg)
        for c in range(cols):
            rect = self.cell_rect(0, c)
            text = f"{self._labels[1]} {c + self._first}"
            if fm.horizontalAdvance(text) > rect.width():  # narrow cells: "h1"
                text = f"{self._labels[1][:1]}{c + self._first}"
            p.drawText(QRectF(rect.x(), 0, rect.width(), LABEL_H), Qt.AlignmentFlag.AlignCenter, text)
        for r in range(rows):
            rect = self.cell_rect(r, 0)
            p.drawText(QRectF(0, rect.y(), LABEL_W - 4, rect.height()),
                       Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, f"{self._labels[0]} {r + self._first}")
            for c in range(cols):
                rect = self.cell_rect(r, c)
                p.drawImage(rect, self._images[r][c])
                framed = (r, c) == self.hovered or (r, c) == self.selected
                p.setPen(QPen(QColor(HIGHLIGHT) if (r, c) == self.selected else fg, 2 if framed else 1))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRect(rect)
                badge = self._badges.get((r, c))
                if badge:
                    w = fm.horizontalAdvance(badge) + 6
                    tag = QRectF(rect.right() - w - 2, rect.top() + 2, w, fm.height())
                    p.fillRect(tag, QColor(255, 255, 255, 220))
                    p.setPen(QColor(0, 0, 0))
                    p.drawText(tag, Qt.AlignmentFlag.AlignCenter, badge)
        p.end()
