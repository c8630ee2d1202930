"""The editor's edit buttons at the smallest window, 1024 × 640: every action of the session's mode (direct,
cross-attention, projected) has its button on screen in the dock, none behind an overflow menu, in English
and in 中文, with the tests' font and the app's own; a click on one does what its action does."""
import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QApplication, QToolBar

from explorer import i18n
from tests.gui.conftest import open_window
from tests.gui.test_editor_layout import fonts  # noqa: F401  (a fixture: the tests' font, then the app's)
from tests.gui.test_window_projected import switch_to_projected

SMALL = (1024, 640)
ALWAYS = ("add_token", "remove_token", "cross", "add_dim_qk", "remove_dim_qk", "add_dim_v", "remove_dim_v",
          "randomize", "reset")


@pytest.fixture(params=["en", "zh"])
def language(request):
    assert i18n.set_language(request.param)
    yield request.param
    i18n.set_language("en")


def settle():
    for _ in range(3):
        QApplication.processEvents()


def off_screen(window):
    """The actions of the editor's mode whose buttons are hidden or not wholly inside the dock's view."""
    editor = window.panels["editor"]
    viewport = window.docks["editor"].widget().viewport()
    seen = QRect(0, 0, viewport.width(), viewport.height())
    missing = []
    for key, action in editor.actions.items():
        if not action.isVisible():
            continue
        button = editor.tools.buttons[key]
        box = QRect(button.mapTo(viewport, button.rect().topLeft()), button.size())
        if not button.isVisible() or not seen.contains(box):
            missing.append((key, button.text(), box))
    return missing


@pytest.mark.parametrize("mode", ["direct", "cross", "projected"])
def test_every_edit_button_is_on_screen_at_the_smallest_size(qtbot, home, fonts, language, mode):  # noqa: F811
    window = open_window(qtbot, size=SMALL)
    if mode == "cross":
        window.documents.new_session("translation")  # separate query tokens: ± query too
        window.model.flush()
    elif mode == "projected":
        switch_to_projected(qtbot, window)  # ± D too
    settle()
    editor = window.panels["editor"]
    assert editor.findChildren(QToolBar) == []  # nothing behind a "»"
    shown = {key for key, action in editor.actions.items() if action.isVisible()}
    extra = {"direct": set(), "cross": {"add_query", "remove_query"}, "projected": {"add_dim_x", "remove_dim_x"}}
    assert shown == set(ALWAYS) | extra[mode]
    assert off_screen(window) == []
    if language == "zh":
        assert editor.tools.buttons["randomize"].text() == "随机"
    window.model.undo_stack.setClean()


def test_a_button_does_what_its_action_does_and_the_menu_keeps_the_full_text(qtbot, home):
    window = open_window(qtbot, size=SMALL)
    editor, model = window.panels["editor"], window.model
    tokens = len(model.tokens)
    qtbot.mouseClick(editor.tools.buttons["add_token"], Qt.MouseButton.LeftButton)
    assert len(model.tokens) == tokens + 1
    widths = model.matrix("Q").shape[1]
    qtbot.mouseClick(editor.tools.buttons["remove_dim_qk"], Qt.MouseButton.LeftButton)
    assert model.matrix("Q").shape[1] == model.matrix("K").shape[1] == widths - 1
    assert editor.tools.buttons["add_token"].text() == "+"
    assert editor.actions["add_token"].text() == "+ token"  # the Edit menu's
    qtbot.mouseClick(editor.tools.buttons["cross"], Qt.MouseButton.LeftButton)
    model.flush()
    settle()
    assert model.cross and editor.tools.groups["queries"].isVisible()
    assert editor.tools.buttons["cross"].isChecked()
    model.undo_stack.setClean()


def test_randomize_twice_gives_new_numbers_and_the_seed_says_which(qtbot, window):
    """The walkthrough pressed Randomize again and again and got the same numbers (the seed stayed 0)."""
    import numpy as np

    editor = window.panels["editor"]
    editor.seed.setValue(7)
    editor.actions["randomize"].trigger()
    first = window.model.matrix("Q").copy()
    assert editor.seed.value() == 8
    editor.actions["randomize"].trigger()
    assert not np.array_equal(window.model.matrix("Q"), first) and editor.seed.value() == 9
    # the seed reproduces: 7 again gives the first numbers, NumPy's generator drawn as Edits does (3 decimals)
    assert np.array_equal(first, np.random.default_rng(7).standard_normal(first.shape).round(3))


def test_every_edit_button_of_the_editor_is_in_the_edit_menu(qtbot, window):
    """As the README says (the walkthrough found no ± d items there)."""
    edit = next(a.menu() for a in window.menuBar().actions() if a.menu().title().replace("&", "") == "Edit")
    in_menu = set(edit.actions())
    editor = window.panels["editor"]
    for key, button in editor.tools.buttons.items():
        assert button.defaultAction() in in_menu, key
