"""A scrubbed or slider-dragged cell stays under the pointer: while the drag goes on, no column of Q, K or V
moves or changes width however wide the numbers' texts get (while they fit); once it is released, the
columns fit the numbers again, as they do after the same value is typed."""
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication

from tests.gui.conftest import open_window

NAMES = ("Q", "K", "V")


def settle(window):
    window.model.flush()
    for _ in range(3):
        QApplication.processEvents()


def columns(editor):
    """Every column of Q, K and V as (left edge in the editor's coordinates, width), read off the headers."""
    found = {}
    for name in NAMES:
        header = editor.views[name].horizontalHeader()
        found[name] = [(header.mapTo(editor, QPoint(header.sectionViewportPosition(c), 0)).x(), header.sectionSize(c))
                       for c in range(header.count())]
    return found


def text_width(view, row, col):
    index = view.model().index(row, col)
    return view.fontMetrics().horizontalAdvance(view.model().data(index, Qt.ItemDataRole.DisplayRole))


def center(view, row, col):
    return view.visualRect(view.model().index(row, col)).center()


def test_scrubbing_a_cell_moves_no_column_until_it_is_released(qtbot, home):
    window = open_window(qtbot)
    settle(window)
    editor, model = window.panels["editor"], window.model
    view = editor.views["Q"]
    assert model.matrix("Q")[0, 0] == 0.5  # the demo's Q[猫, d0]
    before = columns(editor)
    start = center(view, 0, 0)
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    widths, seen = [text_width(view, 0, 0)], []
    # 0.01 per pixel: 0.5 → 0.84 → 1.64 → −19.5 → 0.04 (texts of 3, 4, 4, 5 and 4 characters)
    for dx, value in ((34, 0.84), (114, 1.64), (-2000, -19.5), (-46, 0.04)):
        qtbot.mouseMove(view.viewport(), start + QPoint(dx, 0))
        settle(window)
        assert model.matrix("Q")[0, 0] == value and model.dragging
        widths.append(text_width(view, 0, 0))
        seen.append(columns(editor))
    assert len(set(widths)) >= 3  # the texts did change width
    assert all(now == before for now in seen), (before, seen)
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=start + QPoint(-46, 0))
    settle(window)
    assert not model.dragging and model.undo_stack.count() == 1
    dragged = columns(editor)
    assert dragged != before  # "0.04" is wider than the "0.5" the columns were fitted to

    # the same value typed in a window of its own gives the same columns
    other = open_window(qtbot)
    settle(other)
    table = other.panels["editor"].tables["Q"]
    assert table.setData(table.index(0, 0), "0.04")
    settle(other)
    assert columns(other.panels["editor"]) == dragged
    for w in (window, other):
        w.model.undo_stack.setClean()


def test_dragging_the_cell_slider_moves_no_column_and_the_columns_narrow_after_it(qtbot, home):
    window = open_window(qtbot)
    settle(window)
    editor, model = window.panels["editor"], window.model
    view = editor.views["Q"]
    view.setCurrentIndex(editor.tables["Q"].index(1, 1))  # Q[追, d1] = 0
    settle(window)
    before = columns(editor)
    slider = editor.cell_slider
    slider.slider.setSliderDown(True)
    assert model.dragging
    seen = []
    # the slider spans −5 … 5 in 1000 steps: 0.01 a step
    for position, value in ((513, 0.13), (999, 4.99), (1, -4.99), (250, -2.5), (501, 0.01)):
        slider.slider.setValue(position)
        settle(window)
        assert model.matrix("Q")[1, 1] == value
        seen.append(columns(editor))
    assert all(now == before for now in seen), (before, seen)
    widest = view.column_fit.width
    slider.slider.setSliderDown(False)
    settle(window)
    assert not model.dragging and model.undo_stack.count() == 1
    # "-4.99" was the widest text of the drag; "0.01" is narrower: the columns fit what is there now
    assert view.column_fit.width < widest
    line, names = editor._lines[0]
    assert line.stretch(names.index("Q")) == view.column_fit.needed_width()
    window.model.undo_stack.setClean()
