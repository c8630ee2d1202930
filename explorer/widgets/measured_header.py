"""A table header whose size hint is measured once from its longest labels (fast on 4096 × 768 tables)."""
from __future__ import annotations

import heapq

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QHeaderView

from .matrix_table_model import MatrixTableModel


class MeasuredHeader(QHeaderView):
    """A header whose size hint is measured once from its longest labels, then kept until they change.

    QHeaderView.sizeHint asks the model about 200 sections × 4 roles every time its cache is
    dropped, dozens of times while a 4096 × 768 table opens (tens of thousands of ``headerData``
    calls); the widest label decides the hint, so only the longest few are measured.
    """

    CANDIDATES = 16  # labels measured exactly: the longest by UTF-8 length (CJK counts 3, so wide glyphs win)

    def __init__(self, orientation, parent=None):
        super().__init__(orientation, parent)
        self.setSectionsClickable(True)  # what QTableView sets on the headers it makes itself
        self.setHighlightSections(True)
        self._hint: QSize | None = None
        self._watched = None
        self._measured = (None, 0, QSize())  # (labels list, count, size): unchanged labels are not measured again

    def setModel(self, model) -> None:
        if self._watched is not None:
            try:
                for signal in self._signals(self._watched):
                    signal.disconnect(self.invalidate_hint)
            except RuntimeError:  # the old model is already gone, and its connections with it
                pass
        super().setModel(model)
        self._watched = model
        if model is not None:
            for signal in self._signals(model):
                signal.connect(self.invalidate_hint)
        self.invalidate_hint()

    @staticmethod
    def _signals(model):
        return (model.modelReset, model.layoutChanged, model.headerDataChanged, model.rowsInserted,
                model.rowsRemoved, model.columnsInserted, model.columnsRemoved)

    def invalidate_hint(self, *args) -> None:
        """Measure again on the next ``sizeHint`` (labels, sections, font or style changed)."""
        if self._hint is not None:
            self._hint = None
            self.updateGeometry()
            self.geometriesChanged.emit()  # the table lays its headers out again

    def changeEvent(self, event) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._measured = (None, 0, QSize())
            self.invalidate_hint()
        super().changeEvent(event)

    def sizeHint(self) -> QSize:
        if self._hint is None:
            self._hint = self._measure()
        return QSize(self._hint)

    def _measure(self) -> QSize:
        model = self.model()
        count = self.count()
        if not isinstance(model, MatrixTableModel) or count == 0:
            return super().sizeHint()
        labels = model.labels(self.orientation())
        seen, seen_count, seen_size = self._measured
        if count == seen_count and (labels is seen or labels == seen):
            return QSize(seen_size)
        n = min(count, len(labels))
        longest = heapq.nlargest(self.CANDIDATES, range(n), key=lambda i: len(labels[i].encode("utf-8")))
        size = QSize(0, 0)
        for section in {0, count - 1, *longest}:
            size = size.expandedTo(self.sectionSizeFromContents(section))
        self._measured = (labels, count, QSize(size))
        return size

