"""The matrix editor at the smallest window, 1024 × 640, in cross-attention and projected mode: where its
tables do not fit side by side they come one at a time behind a row of matrix buttons, so no table
scrolls sideways and every matrix is one click away; at 1600 × 1000 Q, K and V stay side by side."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.gui.conftest import open_window
from tests.gui.test_window_projected import switch_to_projected

SMALL, DEFAULT = (1024, 640), (1600, 1000)


@pytest.fixture(params=["test font", "app font"])
def fonts(request, qapp):
    """The tests' font, and the app's own (a CJK font at 9.5 pt, wider: what people see); the conftest
    puts the tests' font back afterwards."""
    if request.param == "app font":
        from explorer.style import apply_style
        apply_style(qapp)
    return request.param


def settle():
    for _ in range(3):
        QApplication.processEvents()


def whole_width(view):
    """Every column of ``view`` in its viewport: nothing to scroll sideways to."""
    header = view.horizontalHeader()
    return view.horizontalScrollBar().maximum() == 0 and header.length() <= view.viewport().width()


def the_dock_does_not_scroll_sideways(window):
    scroll = window.docks["editor"].widget()
    return not scroll.horizontalScrollBar().isVisible() and scroll.widget().width() <= scroll.viewport().width()


def each_matrix_by_its_button(qtbot, editor, names):
    """Click each matrix's button once: its table (alone) is on screen, whole in width."""
    page = editor.pages.currentWidget()
    assert page.one_at_a_time and page.chooser.isVisible()
    assert page.present() == names
    for name in names:
        button = page.buttons[name]
        assert button.isVisible() and button.geometry().right() <= page.chooser.width()  # no scrolling to it
        qtbot.mouseClick(button, Qt.LeftButton)
        settle()
        shown = [n for n in names if editor.views[n].isVisible()]
        assert shown == [name]
        assert whole_width(editor.views[name]), name
        assert not editor.views[name].verticalHeader().isHidden()  # alone, it names its own rows


def test_cross_attention_at_the_smallest_size_shows_one_table_at_a_time(qtbot, home, fonts):
    window = open_window(qtbot, size=SMALL)
    window.documents.new_session("translation")  # 7 query tokens, 4 key tokens, d = 4
    window.model.flush()
    settle()
    editor = window.panels["editor"]
    each_matrix_by_its_button(qtbot, editor, ["Q", "K", "V"])
    assert the_dock_does_not_scroll_sideways(window)
    # the slider and copy/paste go to the table chosen
    qtbot.mouseClick(editor.pages.currentWidget().buttons["K"], Qt.LeftButton)
    assert editor._active == "K"
    window.model.undo_stack.setClean()


def test_projected_mode_at_the_smallest_size_reaches_every_matrix_in_one_click(qtbot, home, fonts):
    window = open_window(qtbot, size=SMALL)
    switch_to_projected(qtbot, window)  # the demo's X (4 × 9) and its W (3 × 9), and X·Wᵀ
    settle()
    editor = window.panels["editor"]
    each_matrix_by_its_button(qtbot, editor, ["X", "Wq", "Wk", "Wv", "Wo", "derivedQ", "derivedK", "derivedV"])
    assert the_dock_does_not_scroll_sideways(window)
    page = editor.pages.currentWidget()
    assert page.chooser.height() < 2 * page.buttons["X"].height()  # the buttons on one line
    window.model.undo_stack.setClean()


def test_the_default_size_keeps_cross_attention_side_by_side(qtbot, home, fonts):
    window = open_window(qtbot, size=DEFAULT)
    window.documents.new_session("translation")
    window.model.flush()
    settle()
    editor = window.panels["editor"]
    page = editor.pages.currentWidget()
    assert not page.one_at_a_time and not page.chooser.isVisible()
    for name in "QKV":
        assert editor.views[name].isVisible() and whole_width(editor.views[name]), name
        assert not editor.views[name].verticalHeader().isHidden()  # K's tokens are not Q's: each names its rows
    # narrowed to the smallest window, the same session comes one table at a time, and back
    window.resize(*SMALL)
    settle()
    assert page.one_at_a_time
    window.resize(*DEFAULT)
    settle()
    assert not page.one_at_a_time and all(editor.views[n].isVisible() for n in "QKV")
    window.model.undo_stack.setClean()


def test_a_table_chosen_by_its_cell_is_the_one_shown_when_they_come_one_at_a_time(qtbot, home, fonts):
    window = open_window(qtbot, size=DEFAULT)
    window.documents.new_session("translation")
    window.model.flush()
    settle()
    editor = window.panels["editor"]
    view = editor.views["V"]
    view.setCurrentIndex(view.model().index(1, 1))
    window.resize(*SMALL)
    settle()
    page = editor.pages.currentWidget()
    assert page.one_at_a_time and view.isVisible() and not editor.views["Q"].isVisible()
    assert page.buttons["V"].isChecked()
    window.model.undo_stack.setClean()


def test_after_reset_layout_the_low_editor_dock_still_fits_without_its_hint(qtbot, home, fonts):
    """Reset layout passes the docks through other sizes: the hint, shown while the dock was tall, goes again
    once it is low (it made the panel taller than the dock, which then scrolled to show it)."""
    window = open_window(qtbot, size=SMALL)
    settle()
    editor, scroll = window.panels["editor"], window.docks["editor"].widget()
    assert not editor.hint.isVisible()
    window.actions["view_efficient"].trigger()
    window.reset_layout()
    settle()
    assert scroll.viewport().height() < 330  # (a low dock: LOW_DOCK)
    assert not editor.hint.isVisible() and not scroll.verticalScrollBar().isVisible()
    assert editor.height() <= scroll.viewport().height()
    window.model.undo_stack.setClean()


def test_the_matrix_buttons_are_framed_like_buttons_and_the_chosen_one_filled(qtbot, home):
    """The buttons read as buttons before any is chosen: a frame (#c4ccd8, the editor's edit buttons' grey-blue)
    around each, the chosen one filled with #dce6f4; the chooser's own background is the window's."""
    window = open_window(qtbot, size=SMALL)
    switch_to_projected(qtbot, window)
    settle()
    page = window.panels["editor"].pages.currentWidget()
    assert page.one_at_a_time
    chosen, other = page.buttons[page.current], next(b for n, b in page.buttons.items() if n != page.current)
    assert chosen.isChecked() and not other.isChecked()

    def colour(button, x, y):
        return button.grab().toImage().pixelColor(x, y).name()

    assert colour(other, 0, other.height() // 2) == "#c4ccd8"  # at rest: the light frame (left edge, half-way down)
    assert colour(chosen, 0, chosen.height() // 2) == "#7f9cc4"  # chosen: the blue frame
    assert colour(chosen, 2, 2) == "#dce6f4"  # filled inside
    assert colour(other, 2, 2) == window.palette().window().color().name()  # not filled
    window.model.undo_stack.setClean()
