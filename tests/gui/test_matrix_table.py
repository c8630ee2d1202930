"""MatrixTableModel/View driven like a person would: type into cells, scrub, copy and paste."""
import numpy as np
import pytest
from PySide6.QtCore import QEvent, QItemSelection, QItemSelectionModel, QPoint, QPointF, Qt
from PySide6.QtGui import QGuiApplication, QMouseEvent
from PySide6.QtWidgets import QAbstractItemView, QApplication, QHeaderView, QLineEdit

from explorer.widgets.matrix_table import MatrixTableModel, MatrixTableView

LABELS = ["猫", "追", "红色", "激光点"]


class Owner:
    """Stands in for the app's model: owns the array, applies edits, tells the table."""

    def __init__(self, array, labels=LABELS):
        self.array = np.array(array, dtype=float)
        self.labels = list(labels)
        self.edits = []
        self.blocks = []
        self.table = MatrixTableModel(
            lambda: self.array,
            lambda: self.labels,
            on_edit=self.set_cell,
            block_edit_handler=self.set_block,
            col_prefix="d",
        )

    def set_cell(self, row, col, value):
        self.edits.append((row, col, value))
        self.array[row, col] = value
        self.table.refresh_cells(row, col, row, col)

    def set_block(self, top, left, values):
        self.blocks.append((top, left, values.copy()))
        h, w = values.shape
        self.array[top : top + h, left : left + w] = values
        self.table.refresh_cells(top, left, top + h - 1, left + w - 1)


@pytest.fixture
def owner():
    return Owner(np.arange(12.0).reshape(4, 3) / 10)


@pytest.fixture
def view(qtbot, owner):
    view = MatrixTableView()
    view.setModel(owner.table)
    view.resize(420, 260)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    return view


def center(view, row, col) -> QPoint:
    return view.visualRect(view.model().index(row, col)).center()


def send_mouse(view, kind, pos, buttons, modifiers=Qt.KeyboardModifier.NoModifier):
    """Send a mouse event with explicit buttons and modifiers (QTest.mouseMove takes no modifiers)."""
    viewport = view.viewport()
    local = QPointF(pos)
    button = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseMove else Qt.MouseButton.LeftButton
    event = QMouseEvent(
        kind, local, QPointF(viewport.mapToGlobal(pos)), button, buttons, modifiers
    )
    QApplication.sendEvent(viewport, event)


def record_scrub(view):
    log = []
    view.scrubStarted.connect(lambda r, c: log.append(("started", r, c)))
    view.scrubbed.connect(lambda r, c, v: log.append(("scrubbed", r, c, v)))
    view.scrubFinished.connect(lambda r, c: log.append(("finished", r, c)))
    return log


def commit(qtbot, view, editor, key=Qt.Key.Key_Return):
    """Press Enter in the cell editor; the delegate commits through a queued call, so wait for it."""
    qtbot.keyClick(editor, key)
    qtbot.waitUntil(lambda: view.state() != QAbstractItemView.State.EditingState)


def editor_of(view) -> QLineEdit:
    editor = view.viewport().findChild(QLineEdit)
    assert editor is not None and editor.isVisible()
    return editor


# ----- the model ------------------------------------------------------------------------------
def test_model_shows_formatted_text_full_repr_and_labels(owner):
    owner.array[1, 2] = 1 / 3
    owner.table.refresh()
    table = owner.table
    index = table.index(1, 2)
    assert table.rowCount() == 4 and table.columnCount() == 3
    assert table.data(index) == "0.3333"
    assert table.data(index, Qt.ItemDataRole.EditRole) == repr(1 / 3)
    assert table.data(index, Qt.ItemDataRole.ToolTipRole) == repr(1 / 3)
    align = table.data(index, Qt.ItemDataRole.TextAlignmentRole)
    assert align & Qt.AlignmentFlag.AlignRight
    assert table.headerData(2, Qt.Orientation.Vertical) == "红色"
    assert table.headerData(1, Qt.Orientation.Horizontal) == "d1"
    assert table.flags(index) & Qt.ItemFlag.ItemIsEditable


def test_default_column_labels_and_read_only(qtbot):
    table = MatrixTableModel(lambda: np.zeros((2, 3)), lambda: ["a", "b"], editable=False)
    assert [table.headerData(c, Qt.Orientation.Horizontal) for c in range(3)] == ["0", "1", "2"]
    assert not table.flags(table.index(0, 0)) & Qt.ItemFlag.ItemIsEditable
    with qtbot.waitSignal(table.rejected) as message:
        assert not table.setData(table.index(0, 0), "1")
    assert "read-only" in message.args[0]


def test_set_data_calls_the_handler_and_never_writes_itself():
    array = np.zeros((2, 2))
    calls = []
    table = MatrixTableModel(lambda: array, lambda: ["a", "b"], on_edit=lambda *a: calls.append(a))
    assert table.setData(table.index(1, 0), " 2,5 ")
    assert calls == [(1, 0, 2.5)]
    assert array[1, 0] == 0.0  # the owner changes data, not the table
    assert table.setData(table.index(1, 1), 0.0)  # unchanged value: nothing to do
    assert calls == [(1, 0, 2.5)]


def test_handler_value_error_becomes_a_message(qtbot):
    def refuse(row, col, value):
        raise ValueError("temperature must be positive")

    table = MatrixTableModel(lambda: np.zeros((1, 1)), lambda: ["t"], on_edit=refuse)
    with qtbot.waitSignal(table.rejected) as message:
        assert not table.setData(table.index(0, 0), "-1")
    assert message.args == ["Row t, column 0: temperature must be positive"]


def test_refresh_emits_data_changed_with_roles_and_header_changes(qtbot, owner):
    table = owner.table
    owner.array[0, 0] = 9.0
    owner.labels[0] = "狗"
    with qtbot.waitSignal(table.dataChanged) as data, qtbot.waitSignal(table.headerDataChanged) as header:
        table.refresh()
    assert table.data(table.index(0, 0)) == "9"
    assert table.headerData(0, Qt.Orientation.Vertical) == "狗"
    assert Qt.ItemDataRole.DisplayRole in data.args[2]
    assert header.args == [Qt.Orientation.Vertical, 0, 3]


def test_refresh_cells_emits_only_the_block(qtbot, owner):
    table = owner.table
    with qtbot.waitSignal(table.dataChanged) as blocker:
        table.refresh_cells(1, 1, 2, 5)  # clamped to the table
    top_left, bottom_right, roles = blocker.args
    assert (top_left.row(), top_left.column(), bottom_right.row(), bottom_right.column()) == (
        1, 1, 2, 2,
    )
    assert Qt.ItemDataRole.EditRole in roles


def test_shape_change_resets(qtbot, owner):
    table = owner.table
    owner.array = np.ones((5, 2))
    owner.labels = ["a", "b", "c", "d", "e"]
    with qtbot.waitSignals([table.modelAboutToBeReset, table.modelReset]):
        table.refresh()
    assert table.rowCount() == 5 and table.columnCount() == 2
    assert table.headerData(4, Qt.Orientation.Vertical) == "e"


def test_missing_labels_fall_back_to_numbers():
    table = MatrixTableModel(lambda: np.zeros((3, 2)), lambda: ["only"], lambda: ["x"])
    assert table.headerData(2, Qt.Orientation.Vertical) == "2"
    assert table.headerData(1, Qt.Orientation.Horizontal) == "1"


def test_large_model_is_lazy(qtbot):
    big = np.random.default_rng(0).standard_normal((4096, 768))
    labels = [f"t{i}" for i in range(4096)]
    table = MatrixTableModel(lambda: big, lambda: labels)
    view = MatrixTableView()
    qtbot.addWidget(view)
    view.setModel(table)
    view.resize(600, 400)
    view.show()
    qtbot.waitExposed(view)
    assert table.rowCount() == 4096 and table.columnCount() == 768
    far = table.index(4095, 767)
    assert table.data(far, Qt.ItemDataRole.EditRole) == repr(float(big[4095, 767]))
    assert view.verticalHeader().sectionResizeMode(0) == QHeaderView.ResizeMode.Fixed
    view.scrollTo(far)
    assert view.rowViewportPosition(4095) >= 0


# ----- typing into cells ----------------------------------------------------------------------
def test_typing_through_the_real_editor_reaches_on_edit(qtbot, view, owner):
    index = owner.table.index(2, 1)
    view.setCurrentIndex(index)
    view.edit(index)
    editor = editor_of(view)
    assert editor.text() == repr(float(owner.array[2, 1]))
    editor.selectAll()
    qtbot.keyClicks(editor, "-1.25")
    commit(qtbot, view, editor)
    assert owner.edits == [(2, 1, -1.25)]
    assert owner.table.data(index) == "-1.25"


def test_double_click_opens_the_editor(qtbot, view, owner):
    pos = center(view, 0, 0)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert view.state() == QAbstractItemView.State.EditingState
    editor = editor_of(view)
    editor.selectAll()
    qtbot.keyClicks(editor, "3e-2")
    commit(qtbot, view, editor, Qt.Key.Key_Enter)
    assert owner.edits == [(0, 0, 0.03)]


def test_typing_on_a_selected_cell_starts_editing(qtbot, view, owner):
    view.setFocus()
    view.setCurrentIndex(owner.table.index(3, 2))
    qtbot.keyClick(view, Qt.Key.Key_7)  # AnyKeyPressed opens the editor with this key
    editor = editor_of(view)
    qtbot.keyClicks(editor, ".5")
    commit(qtbot, view, editor)
    assert owner.edits == [(3, 2, 7.5)]


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("abc", "Row 追, column d2: 'abc' is not a number"),
        ("nan", "Row 追, column d2: 'nan' is not a number"),
        ("inf", "Row 追, column d2: 'inf' is infinite"),
        ("1e400", "Row 追, column d2: '1e400' overflows"),
        ("", "Row 追, column d2: empty text is not a number"),
        ("5e6", "Row 追, column d2: '5e6' is larger than 1e6 in magnitude"),
    ],
)
def test_garbage_is_refused_with_a_message(qtbot, view, owner, text, fragment):
    before = owner.array.copy()
    messages = []
    view.rejected.connect(messages.append)
    index = owner.table.index(1, 2)
    view.edit(index)
    editor = editor_of(view)
    editor.selectAll()
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    if text:
        qtbot.keyClicks(editor, text)
    commit(qtbot, view, editor)
    assert owner.edits == []
    assert np.array_equal(owner.array, before)
    assert len(messages) == 1 and messages[0].startswith(fragment)


def test_delete_key_does_not_zero(qtbot, view, owner):
    before = owner.array.copy()
    view.setFocus()
    view.setCurrentIndex(owner.table.index(1, 1))
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    qtbot.keyClick(view, Qt.Key.Key_Backspace)
    assert np.array_equal(owner.array, before) and owner.edits == []


# ----- scrubbing ------------------------------------------------------------------------------
def test_scrub_changes_value_by_dx_times_step(qtbot, view, owner):
    log = record_scrub(view)
    start = center(view, 1, 1)
    original = owner.array[1, 1]
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    for dx in (2, 6, 15, 30):  # QTest.mouseMove carries the pressed button in Qt 6
        qtbot.mouseMove(view.viewport(), start + QPoint(dx, 0))
    assert view.is_scrubbing()
    assert view.viewport().cursor().shape() == Qt.CursorShape.SizeHorCursor
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=start + QPoint(30, 0))
    assert not view.is_scrubbing()
    assert view.viewport().cursor().shape() != Qt.CursorShape.SizeHorCursor
    kinds = [entry[0] for entry in log]
    assert kinds[0] == "started" and kinds[-1] == "finished"
    assert kinds.count("started") == 1 and kinds.count("finished") == 1
    values = [entry[3] for entry in log if entry[0] == "scrubbed"]
    assert len(values) == 3  # one per move past the threshold
    assert values[-1] == pytest.approx(original + 30 * 0.01)
    assert values == sorted(values)
    assert owner.edits == []  # scrubbing speaks through its signals only
    assert view.selected_cell() == (1, 1)


def test_scrub_with_shift_is_ten_times_finer(qtbot, view, owner):
    log = record_scrub(view)
    start = center(view, 0, 2)
    original = owner.array[0, 2]
    left = Qt.MouseButton.LeftButton
    shift = Qt.KeyboardModifier.ShiftModifier
    send_mouse(view, QEvent.Type.MouseButtonPress, start, left, shift)
    send_mouse(view, QEvent.Type.MouseMove, start + QPoint(20, 0), left, shift)
    send_mouse(view, QEvent.Type.MouseMove, start + QPoint(40, 0), left, shift)
    fine = log[-1][3]
    assert fine == pytest.approx(original + 40 * 0.001)
    # releasing Shift mid-drag switches to coarse steps from here on (read at every move)
    send_mouse(view, QEvent.Type.MouseMove, start + QPoint(50, 0), left)
    assert log[-1][3] == pytest.approx(fine + 10 * 0.01)
    send_mouse(view, QEvent.Type.MouseButtonRelease, start + QPoint(50, 0), Qt.MouseButton.NoButton)
    assert [e[0] for e in log].count("started") == 1
    assert log[-1] == ("finished", 0, 2)


def test_scrub_to_the_left_decreases(qtbot, view, owner):
    log = record_scrub(view)
    start = center(view, 2, 1)
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(view.viewport(), start - QPoint(25, 0))
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=start - QPoint(25, 0))
    assert log[1][3] == pytest.approx(owner.array[2, 1] - 0.25)


def test_escape_cancels_a_scrub(qtbot, view, owner):
    log = record_scrub(view)
    start = center(view, 1, 0)
    original = owner.array[1, 0]
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(view.viewport(), start + QPoint(40, 0))
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert log[-2:] == [("scrubbed", 1, 0, original), ("finished", 1, 0)]
    qtbot.mouseMove(view.viewport(), start + QPoint(60, 0))  # ignored after cancel
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=start + QPoint(60, 0))
    assert [e[0] for e in log].count("finished") == 1
    assert log[-1] == ("finished", 1, 0)


def test_a_click_without_motion_selects_and_does_not_scrub(qtbot, view, owner):
    log = record_scrub(view)
    cells = []
    view.currentCellChanged.connect(lambda r, c: cells.append((r, c)))
    start = center(view, 3, 1)
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(view.viewport(), start + QPoint(3, 0))  # under the 4 px threshold
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=start + QPoint(3, 0))
    assert log == []
    assert view.selected_cell() == (3, 1)
    assert cells[-1] == (3, 1)


def test_vertical_drag_selects_instead_of_scrubbing(qtbot, view, owner):
    log = record_scrub(view)
    start = center(view, 0, 0)
    end = center(view, 2, 0)
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(view.viewport(), start + QPoint(0, 6))
    qtbot.mouseMove(view.viewport(), end)
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=end)
    assert log == []
    rows = sorted({i.row() for i in view.selectionModel().selectedIndexes()})
    assert rows == [0, 1, 2]


def test_read_only_table_does_not_scrub(qtbot):
    table = MatrixTableModel(lambda: np.zeros((2, 2)), lambda: ["a", "b"], editable=False)
    view = MatrixTableView()
    qtbot.addWidget(view)
    view.setModel(table)
    view.show()
    qtbot.waitExposed(view)
    log = record_scrub(view)
    start = center(view, 0, 0)
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(view.viewport(), start + QPoint(30, 0))
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=start + QPoint(30, 0))
    assert log == []


# ----- copy and paste -------------------------------------------------------------------------
def select(view, top, left, bottom, right):
    model = view.model()
    view.selectionModel().select(
        QItemSelection(model.index(top, left), model.index(bottom, right)),
        QItemSelectionModel.SelectionFlag.ClearAndSelect,
    )
    view.selectionModel().setCurrentIndex(
        model.index(top, left), QItemSelectionModel.SelectionFlag.NoUpdate
    )


def test_copy_is_tab_separated_full_precision(view, owner):
    owner.array[1, 1] = 1 / 3
    owner.table.refresh()
    select(view, 0, 1, 1, 2)
    text = view.copy_selection()
    assert text == "0.1\t0.2\n0.3333333333333333\t0.5"
    assert QGuiApplication.clipboard().text() == text


def test_ctrl_c_and_ctrl_v_round_trip_a_block(qtbot, view, owner):
    select(view, 0, 0, 1, 1)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    copied = owner.array[0:2, 0:2].copy()
    select(view, 2, 1, 2, 1)
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert len(owner.blocks) == 1  # one call: one undo step for the owner
    top, left, values = owner.blocks[0]
    assert (top, left) == (2, 1)
    assert np.array_equal(values, copied)
    assert np.array_equal(owner.array[2:4, 1:3], copied)
    selected = {(i.row(), i.column()) for i in view.selectionModel().selectedIndexes()}
    assert selected == {(2, 1), (2, 2), (3, 1), (3, 2)}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1\t2\n3\t4\n", [[1, 2], [3, 4]]),
        ("1,2\n3,4", [[1, 2], [3, 4]]),
        ("1 2\r\n3   4", [[1, 2], [3, 4]]),
        ("1,5\t2,5", [[1.5, 2.5]]),  # tabs win, so comma decimals survive
        ("1;2", [[1, 2]]),
        ("7", [[7]]),
    ],
)
def test_paste_separators(view, owner, text, expected):
    select(view, 0, 0, 0, 0)
    assert view.paste_text(text)
    assert np.array_equal(owner.blocks[0][2], np.array(expected, dtype=float))


def test_bad_paste_is_refused_and_names_the_place(qtbot, view, owner):
    before = owner.array.copy()
    select(view, 1, 1, 1, 1)
    with qtbot.waitSignal(view.rejected) as message:
        assert not view.paste_text("1\t2\n3\tabc")
    assert message.args[0] == (
        "Pasted row 2, column 2 (for row 红色, column d2): 'abc' is not a number; "
        "nothing was pasted"
    )
    assert owner.blocks == [] and owner.edits == []
    assert np.array_equal(owner.array, before)


def test_ragged_paste_is_refused(qtbot, view, owner):
    select(view, 0, 0, 0, 0)
    with qtbot.waitSignal(view.rejected) as message:
        assert not view.paste_text("1\t2\n3")
    assert "row 2 has 1 values" in message.args[0]
    assert owner.blocks == []


def test_oversized_paste_is_refused_without_resizing(qtbot, view, owner):
    select(view, 2, 1, 2, 1)
    with qtbot.waitSignal(view.rejected) as message:
        assert not view.paste_text("1\t2\t3\n4\t5\t6\n7\t8\t9")
    assert "3 × 3" in message.args[0] and "room for only 2 × 2" in message.args[0]
    assert owner.blocks == []
    assert owner.table.rowCount() == 4 and owner.table.columnCount() == 3


def test_paste_without_block_handler_falls_back_to_cell_edits(qtbot):
    array = np.zeros((2, 2))
    calls = []
    table = MatrixTableModel(lambda: array, lambda: ["a", "b"], on_edit=lambda *a: calls.append(a))
    view = MatrixTableView()
    qtbot.addWidget(view)
    view.setModel(table)
    select(view, 0, 0, 0, 0)
    assert view.paste_text("1\t0\n0\t2")
    assert calls == [(0, 0, 1.0), (1, 1, 2.0)]


def test_context_menu_has_copy_and_paste(view, owner):
    menu = view.build_context_menu()
    texts = [a.text() for a in menu.actions()]
    assert texts == ["Copy", "Paste"]
    select(view, 3, 2, 3, 2)
    menu.actions()[0].trigger()
    assert QGuiApplication.clipboard().text() == repr(float(owner.array[3, 2]))
    menu.deleteLater()


def test_current_cell_signal_follows_selection(qtbot, view, owner):
    with qtbot.waitSignal(view.currentCellChanged) as blocker:
        view.setCurrentIndex(owner.table.index(2, 2))
    assert blocker.args == [2, 2]
    assert view.selected_cell() == (2, 2)


def test_switching_models_forwards_only_the_new_models_messages(qtbot, view, owner):
    other = MatrixTableModel(lambda: np.zeros((2, 2)), lambda: ["a", "b"])
    view.setModel(other)
    messages = []
    view.rejected.connect(messages.append)
    owner.table.reject("old")
    other.reject("new")
    assert messages == ["new"]
