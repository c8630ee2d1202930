"""After an edit the editor repaints the cells that changed, not every cell of every table."""
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
