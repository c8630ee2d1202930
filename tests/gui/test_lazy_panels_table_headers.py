"""The editor tables' headers measure their labels once (MeasuredHeader), not 200 sections per layout pass.

At 4096 × 768 Qt's own QHeaderView asked ``headerData`` tens of thousands of times while the
tables opened; the measured header asks a few hundred times, and still fits the widest token
wherever it sits (Qt's sampled only the first and last 100 rows).
"""
from collections import Counter

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QHeaderView

from explorer.widgets.matrix_table import MatrixTableModel, MatrixTableView, MeasuredHeader


class CountingModel(MatrixTableModel):
    """Counts headerData calls by orientation."""

    def __init__(self, *args, **kwargs):
        self.calls = Counter()
        super().__init__(*args, **kwargs)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        self.calls[orientation.name] += 1
        return super().headerData(section, orientation, role)


def make(qtbot, rows, cols, labels):
    holder = {"array": np.zeros((rows, cols)), "labels": labels}
    model = CountingModel(lambda: holder["array"], lambda: holder["labels"], col_prefix="d",
                          on_edit=lambda i, j, v: None)
    view = MatrixTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.resize(640, 450)
    view.show()
    qtbot.waitExposed(view)
    QApplication.processEvents()
    view.grab()
    return view, model, holder


def test_a_big_table_asks_for_few_headers_and_fits_the_widest_token(qtbot):
    rows, cols = 4096, 768
    labels = [f"t{i}" for i in range(rows)]
    labels[2000] = "一个很长很长的词元名字"  # in the middle: beyond Qt's first/last 100 sampled rows
    view, model, _ = make(qtbot, rows, cols, labels)
    vertical, horizontal = view.verticalHeader(), view.horizontalHeader()
    assert isinstance(vertical, MeasuredHeader) and isinstance(horizontal, MeasuredHeader)
    assert vertical.sectionResizeMode(0) == QHeaderView.ResizeMode.Fixed
    assert vertical.sectionsClickable() and horizontal.highlightSections()  # as QTableView's own headers
    widest = vertical.fontMetrics().horizontalAdvance(labels[2000])
    assert vertical.width() >= widest
    assert sum(model.calls.values()) < 3000, model.calls  # Qt's own headers: ~36 000 for three such tables
    before = sum(model.calls.values())
    view.scrollToBottom()
    view.horizontalScrollBar().setValue(view.horizontalScrollBar().maximum())
    QApplication.processEvents()
    view.grab()
    assert sum(model.calls.values()) - before < 1500  # painting the new rows' and columns' headers


def test_the_header_grows_and_shrinks_with_its_labels(qtbot):
    view, model, holder = make(qtbot, 6, 3, ["a", "b", "c", "d", "e", "f"])
    vertical = view.verticalHeader()
    narrow = vertical.sizeHint().width()
    holder["labels"] = ["a", "b", "a much longer token", "d", "e", "f"]
    model.refresh()  # a rename: headerDataChanged
    qtbot.waitUntil(lambda: vertical.width() > narrow + 40)
    assert vertical.width() >= vertical.fontMetrics().horizontalAdvance("a much longer token")
    holder["array"], holder["labels"] = np.zeros((2, 3)), ["x", "y"]
    model.refresh()  # a new shape: reset
    qtbot.waitUntil(lambda: vertical.width() <= narrow + 2)
    assert vertical.count() == 2


def test_a_font_change_measures_again(qtbot):
    view, model, _ = make(qtbot, 4, 3, ["猫", "追", "红色", "激光点"])
    vertical = view.verticalHeader()
    small = vertical.sizeHint()
    font = vertical.font()
    font.setPointSizeF(font.pointSizeF() * 2)
    vertical.setFont(font)
    big = vertical.sizeHint()
    assert big.width() > small.width() and big.height() > small.height()


def test_the_window_editor_uses_measured_headers(window):
    for view in window.panels["editor"].views.values():
        assert isinstance(view.verticalHeader(), MeasuredHeader)
        token = max(window.model.tokens, key=lambda t: view.verticalHeader().fontMetrics().horizontalAdvance(t))
        assert view.verticalHeader().width() >= view.verticalHeader().fontMetrics().horizontalAdvance(token)
