"""Columns of a matrix table as wide as their numbers (and their labels, "x10"): stretched to fill the table while every
column's widest number fits that way, else one width that fits them all (the table then scrolls).

Measured from the numbers themselves, never from every cell's text at 4096 × 768: a small block
has each text formatted; a large one is measured from its extremes of magnitude (the largest, and
the smallest other than zero), with a minus sign if any number is negative, written out in full
precision ("-0.1000", not "-0.1"). A number's text is no longer than these: in fixed notation it
grows as the magnitude falls below 1 (leading zeros) and is 5 characters from 1 to 10⁴; in
exponent form (from 10⁴ and below 10⁻⁴) its length grows only with the exponent's digits.
Three passes over the block (~5 ms at 4096 × 512), where per-column extremes took ~40 ms.
"""
from __future__ import annotations

import heapq
import math

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QHeaderView, QStyle

from explorer.weak import WeakAttribute

from .number_text import format_number

EXACT_UP_TO = 20_000  # cells of a changed block whose texts are formatted one by one
PADDING = 7  # pixels around a number in its cell: the style's text margins (3 + 3) and the grid line
MEASURED = 16  # longest texts measured in pixels (by character count), as MeasuredHeader does


def widest_texts(block: np.ndarray, significant: int = 4) -> list[str]:
    """Texts at least as wide as the widest of ``format_number`` over ``block`` (rows × cols)."""
    if block.size == 0:
        return []
    if block.size <= EXACT_UP_TO:
        # a set, not np.unique: NumPy 2's unique imports numpy.ma (~30 ms of start-up) on first call
        texts = {format_number(v, significant) for v in set(block.ravel().tolist())}
    else:
        lowest, highest = float(block.min()), float(block.max())
        largest, smallest = max(abs(lowest), abs(highest)), _smallest_magnitude(block)
        sign = -1.0 if lowest < 0 else 1.0
        values = [sign * v for v in (largest, smallest) if np.isfinite(v)]
        texts = {f"{v:#.{significant}g}" for v in values}
    return heapq.nlargest(MEASURED, texts, key=len)


def _smallest_magnitude(block: np.ndarray, rows_at_once: int = 256) -> float:
    """The smallest |value| other than zero (zeros are short: "0.000"), a few rows at a time (one
    small scratch buffer, not a second copy of a 16 MiB block)."""
    smallest = np.inf
    scratch = np.empty((min(rows_at_once, len(block)), block.shape[1]), dtype=np.float64)
    for start in range(0, len(block), rows_at_once):
        part = block[start:start + rows_at_once]
        magnitude = np.abs(part, out=scratch[:len(part)])
        least = float(magnitude.min())
        if least == 0:
            least = float(magnitude.min(where=magnitude > 0, initial=np.inf))
        smallest = min(smallest, least)
    return smallest


class ColumnFit(QObject):
    """Keeps ``view``'s columns fitting its numbers (``stretch_up_to`` columns at most stretch)."""

    view = WeakAttribute()  # the view owns this: no reference back to it (a dropped view is freed at once)

    def __init__(self, view, stretch_up_to: int):
        super().__init__(view)
        self.view = view
        self.stretch_up_to = stretch_up_to
        self.width = 0  # pixels the widest number needs (0: nothing measured yet)
        self.label_width = 0  # pixels the widest column label needs
        self._model = None
        self._pending = False
        self._held = False  # a drag is on: the columns only widen (``hold``)

    def watch(self, model) -> None:
        """Follow ``model`` (a MatrixTableModel): re-measure after a reset, widen after a change."""
        if self._model is not None:
            try:
                self._model.modelReset.disconnect(self.refit)
                self._model.dataChanged.disconnect(self._changed)
            except RuntimeError:
                pass
        self._model = model
        if model is not None:
            model.modelReset.connect(self.refit)
            model.dataChanged.connect(self._changed)
        self.refit()

    def _measure(self, rows: slice = slice(None), cols: slice = slice(None)) -> int:
        array = self._model.array() if self._model is not None else np.zeros((0, 0))
        texts = widest_texts(array[rows, cols])
        # in fractional pixels, rounded up: the text is laid out so ("0.5" is 18.4 px in the app's font at
        # 9.5 pt, and a column of 18 + PADDING showed "…")
        metrics = QFontMetricsF(self.view.font())
        return math.ceil(max((metrics.horizontalAdvance(t) for t in texts), default=0.0)) + PADDING

    def refit(self) -> None:
        """Measure every column again (new shape, new numbers) and lay the columns out."""
        self.width = self._measure()
        self.label_width = self._measure_labels()
        self.apply()

    def hold(self, on: bool) -> None:
        """While a value is dragged (``on``), the columns only widen, and only where a new number needs more:
        they never narrow under the pointer. Released, they fit the numbers again (narrower too)."""
        if on != self._held:
            self._held = on
            if not on:
                self.refit()

    def _measure_labels(self) -> int:
        """The last column's label ("x10" after "x9": the labels count up) with the header's margins."""
        count = self._model.columnCount() if self._model is not None else 0
        if count == 0:
            return 0
        header = self.view.horizontalHeader()
        text = str(self._model.headerData(count - 1, Qt.Orientation.Horizontal) or "")
        margin = header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
        return math.ceil(QFontMetricsF(header.font()).horizontalAdvance(text)) + 2 * margin + 2

    def column_width(self) -> int:
        """Each column's width where they do not stretch: its numbers', its label's, the header's least."""
        return max(self.width, self.label_width, self.view.horizontalHeader().minimumSectionSize())

    def _changed(self, top_left, bottom_right, roles=()) -> None:
        if self._model is None or not top_left.isValid():
            return
        rows, cols = self._model.rowCount(), self._model.columnCount()
        corners = (top_left.row(), top_left.column(), bottom_right.row(), bottom_right.column())
        whole = corners == (0, 0, rows - 1, cols - 1)
        if whole and not self._held:
            self.width = self._measure()  # every number changed: the columns may narrow too
        else:  # a typed cell, a drag, a paste: widen when a new number needs it, never jitter narrower
            block = (slice(top_left.row(), bottom_right.row() + 1), slice(top_left.column(), bottom_right.column() + 1))
            self.width = max(self.width, self._measure(*block))
        self.apply()

    def needed_width(self, with_labels: bool = False) -> int:
        """Pixels the view needs to show every column at its fitting width (row labels, when shown or
        ``with_labels``, and frame too)."""
        view = self.view
        header = view.horizontalHeader()
        labels = view.verticalHeader().sizeHint().width() if with_labels or not view.verticalHeader().isHidden() else 0
        return labels + header.count() * self.column_width() + 2 * view.frameWidth()

    def fits_stretched(self) -> bool:
        header = self.view.horizontalHeader()
        count = header.count()
        least = max(self.width, self.label_width)
        return 0 < count <= self.stretch_up_to and count * least <= self.view.viewport().width()

    def apply(self) -> None:
        """Stretch while every column fits that way; else each column at the width that fits them all."""
        header = self.view.horizontalHeader()
        if header.count() == 0 or self.width <= PADDING:
            return
        if self.fits_stretched():
            if header.sectionResizeMode(0) != QHeaderView.ResizeMode.Stretch:
                header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
            return
        width = self.column_width()
        stretched = header.sectionResizeMode(0) == QHeaderView.ResizeMode.Stretch
        if stretched:
            header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        if stretched or header.defaultSectionSize() != width:  # (a column the user resized stays so until then)
            header.setDefaultSectionSize(width)
            for column in range(header.count()):
                header.resizeSection(column, width)

    def resized(self) -> None:
        """The view changed size: stretching may fit now, or no longer (after this event)."""
        if not self._pending:
            self._pending = True
            QTimer.singleShot(0, self.view, self._after_resize)  # (not after the view is gone)

    def _after_resize(self) -> None:
        self._pending = False
        self.apply()
