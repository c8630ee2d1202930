"""After an edit the editor repaints the cells that changed, not every cell of every table."""
from PySide6.QtWidgets import QApplication, QHeaderView

from explorer.panels.editor import EditorPanel
from tests.gui.panel_helpers import show_panel


def record(table):
    seen = []
    table.dataChanged.connect(lambda a, b, roles=(): seen.append((a.row(), a.column(), b.row(), b.column())))
    return seen


def test_a_cell_edit_refreshes_only_that_cell(qtbot):
    model, panel = show_panel(qtbot, EditorPanel)
    seen = {name: record(panel.tables[name]) for name in "QKV"}
    model.set_cell("K", 2, 1, 4.5)
    model.flush()
    assert seen["Q"] == [] and seen["V"] == []
    assert seen["K"] and all(change == (2, 1, 2, 1) for change in seen["K"])
    assert panel.tables["K"].data(panel.tables["K"].index(2, 1)) == "4.5"


def test_a_paste_refreshes_its_block_and_undo_of_a_whole_change_refreshes_everything(qtbot):
    model, panel = show_panel(qtbot, EditorPanel)
    seen = {name: record(panel.tables[name]) for name in "QKV"}
    model.set_block("V", 1, 0, [[1.0, 2.0], [3.0, 4.0]])
    model.flush()
    assert seen["V"][-1] == (1, 0, 2, 1) and seen["Q"] == []
    model.randomize(seed=3)
    model.flush()
    rows, cols = model.matrix("Q").shape
    assert seen["Q"][-1] == (0, 0, rows - 1, cols - 1)


def test_a_wider_session_after_the_demo_gets_columns_wide_enough_to_read(qtbot, window):
    """The demo's three columns stretch to fill the table; a session of 16 columns does not fit and
    scrolls instead: every column then starts at the default width, not at a squeezed stretch width."""
    from explorer.core.presets import random_session

    header = window.panels["editor"].views["Q"].horizontalHeader()
    assert header.sectionResizeMode(0) == QHeaderView.ResizeMode.Stretch
    window.model.load(random_session(6, 16, seed=0))
    QApplication.processEvents()
    assert header.count() == 16 and header.sectionResizeMode(0) == QHeaderView.ResizeMode.Interactive
    widest = header.fontMetrics().horizontalAdvance("-0.5774")
    assert all(header.sectionSize(c) == header.defaultSectionSize() > widest for c in range(16))
