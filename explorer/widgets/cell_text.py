"""Values printed inside heatmap cells: one item paints every text, only while cells are readable.

One ``GraphicsObject`` (not a TextItem per cell) so a 50×50 matrix is one paint call, and the
texts are drawn in device pixels so the inverted, stretched view neither flips nor scales them.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QStaticText, QTransform

from .number_text import format_number

MIN_CELL_W = 20.0  # device pixels a cell needs before its value is printed (then the text must fit at ≥ 8 px)
MIN_CELL_H = 16.0
MAX_CELLS = 2500  # above this many cells no text is painted at all


def format_value(v: float, magnitude: float | None = None) -> str:
    """Short text for one cell: two decimals, no decimals or an exponent when the matrix's largest
    magnitude (``magnitude``, default ``|v|``) is large, two significant digits (``format_number``) when
    it is below 0.1 — so a matrix reads in one format and a bias of −0.0039 is not "0.00"; "−" minus."""
    m = abs(v) if magnitude is None else magnitude
    if not math.isfinite(v):
        s = "NaN" if math.isnan(v) else ("∞" if v > 0 else "-∞")
    elif m < 0.1:
        s = format_number(v, 2).replace("e+0", "e").replace("e-0", "e-")
    elif m < 99.995:
        s = f"{v:.2f}"
    elif m < 99_999.5:
        s = f"{v:.0f}"
    else:
        s = f"{v:.1e}".replace("e+0", "e").replace("e-0", "e-").replace("e+", "e")
    if s.startswith("-") and s.strip("-0.") == "":
        s = s[1:]  # "-0.00" -> "0.00"
    return s.replace("-", "−")


_METRICS: dict[str, QFontMetricsF] = {}


def _ref_metrics() -> QFontMetricsF:
    """Metrics of the application font at REF_PX pixels (made once per font)."""
    font = QFont()
    font.setPixelSize(CellTextItem.REF_PX)
    metrics = _METRICS.get(font.key())
    if metrics is None:
        metrics = _METRICS[font.key()] = QFontMetricsF(font)
    return metrics


def contrast_is_white(rgb: np.ndarray) -> np.ndarray:
    """For (..., 3) uint8 colours: True where white text contrasts more than black (WCAG)."""
    c = rgb.astype(np.float64) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    lum = lin @ np.array([0.2126, 0.7152, 0.0722])
    # contrast(white) = 1.05 / (L + .05) > contrast(black) = (L + .05) / .05  <=>  L < ~0.179
    return (lum + 0.05) ** 2 < 1.05 * 0.05


class CellTextItem(pg.GraphicsObject):
    """Paints each cell's value (or a masked marker) centred in the cell, in a contrasting colour."""

    def __init__(self, masked_text: str = "−∞", masked_background: QColor | None = None, value_text=None):
        super().__init__()
        self.value_text = value_text or format_value  # (value, largest |value| of the matrix) → text
        self.masked_text = masked_text
        self.masked_background = masked_background  # a plate behind masked texts, over the hatching
        self._values: np.ndarray | None = None
        self._masked: np.ndarray | None = None
        self._white: np.ndarray | None = None
        self._strings: list[str] | None = None  # built lazily, only when painting
        self._ref_width = 0.0  # widest string at REF_PX, cached with _strings
        self._shape = (0, 0)
        self._ref_widths: dict[str, float] = {}  # text → its width at REF_PX (numbers recur between edits)
        self._ref_metrics: QFontMetricsF | None = None  # the metrics those widths were measured with
        self._static: dict[str, tuple[QStaticText, float]] = {}  # text → laid out at _static_px, half width
        self._static_px = 0

    REF_PX = 100

    def set_data(self, values: np.ndarray, masked: np.ndarray | None, white: np.ndarray | None) -> None:
        """New numbers; ``white`` is a bool per cell (white text) or None when texts are off."""
        if values.shape != self._shape:
            self.prepareGeometryChange()
            self._shape = values.shape
        self._values = values if values.size <= MAX_CELLS else None
        self._masked = masked
        self._white = white
        self._strings = None
        self.update()

    def boundingRect(self) -> QRectF:
        rows, cols = self._shape
        return QRectF(-0.5, -0.5, cols, rows)

    def _texts(self) -> list[str]:
        if self._strings is None:
            vals = self._values.ravel().tolist()
            finite = np.abs(self._values[np.isfinite(self._values)])
            magnitude = float(finite.max()) if finite.size else 0.0
            masked = self._masked.ravel().tolist() if self._masked is not None else None
            self._strings = [
                self.masked_text if masked is not None and masked[k] else self.value_text(v, magnitude)
                for k, v in enumerate(vals)
            ]
            metrics = _ref_metrics()
            if metrics is not self._ref_metrics:  # another application font: other widths
                self._ref_widths, self._ref_metrics = {}, metrics
            widths = self._ref_widths
            for s in set(self._strings) - widths.keys():
                widths[s] = metrics.horizontalAdvance(s)
            self._ref_width = max((widths[s] for s in set(self._strings)), default=0.0)
            if len(widths) > 4 * MAX_CELLS:
                self._ref_widths = {s: widths[s] for s in set(self._strings)}
        return self._strings

    def _laid_out(self, text: str, font: QFont, px: int) -> tuple[QStaticText, float]:
        """``text`` laid out once for this pixel size, and half its width: an edit changes one row
        of numbers, and ``drawText`` laid every text out again on every paint."""
        if px != self._static_px:
            self._static, self._static_px = {}, px
        laid = self._static.get(text)
        if laid is None:
            if len(self._static) > 4 * MAX_CELLS:
                self._static = {}
            static = QStaticText(text)
            static.setTextFormat(Qt.TextFormat.PlainText)
            static.prepare(QTransform(), font)
            laid = self._static[text] = (static, static.size().width() / 2)
        return laid

    def text_px(self, cw: float, ch: float) -> int:
        """The pixel size the numbers print at in cells ``cw`` × ``ch`` device pixels: as large as the widest
        fits, at most 14; 0 where they are not printed (cells too small, or a text under 8 px)."""
        if self._values is None or self._values.size == 0 or cw < MIN_CELL_W or ch < MIN_CELL_H:
            return 0
        self._texts()
        px = int(min(ch * 0.42, 14.0))
        if self._ref_width > 0:
            px = min(px, int((cw - 6.0) * self.REF_PX / self._ref_width))
        return px if px >= 8 else 0

    def paint(self, p: QPainter, *args) -> None:
        if self._values is None or self._white is None or self._values.size == 0:
            return
        t = p.worldTransform()
        px = self.text_px(math.hypot(t.m11(), t.m12()), math.hypot(t.m21(), t.m22()))  # device pixels per cell
        if not px:
            return
        strings = self._texts()
        font = QFont()
        font.setPixelSize(px)
        rows, cols = self._shape
        white = self._white.ravel()
        p.save()
        p.resetTransform()
        p.setFont(font)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        if self._masked is not None and self.masked_background is not None and self.masked_text:
            fm = QFontMetricsF(font)
            tw, th = fm.horizontalAdvance(self.masked_text) + 6, fm.height() + 2
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(self.masked_background)
            for k in np.flatnonzero(self._masked.ravel()).tolist():
                i, j = divmod(k, cols)
                c = t.map(QPointF(j, i))
                p.drawRect(QRectF(c.x() - tw / 2, c.y() - th / 2, tw, th))
        # Each text centred in its cell as drawText(rect, AlignCenter) centres it: by the line's
        # height (QStaticText.size() rounds it up) and the text's advance. The cell centres are
        # t.map(j, i) for every cell at once (the view's transform is affine).
        line = QFontMetricsF(font).height()
        i, j = np.divmod(np.arange(rows * cols), cols)
        xs = (t.m11() * j + t.m21() * i + t.dx()).tolist()
        ys = (t.m12() * j + t.m22() * i + t.dy() - line / 2).tolist()
        for colour, want in ((QColor(255, 255, 255), True), (QColor(20, 20, 20), False)):
            p.setPen(colour)
            for k in np.flatnonzero(white == want).tolist():
                s = strings[k]
                if s:
                    static, half = self._laid_out(s, font, px)
                    p.drawStaticText(QPointF(xs[k] - half, ys[k]), static)
        p.restore()
