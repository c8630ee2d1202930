"""Where the large panels open: Transformer block, Efficient attention, FlashAttention, Query–key space, Model
view, Generation and RoPE live as tabs whose place (the row under ③, ~576 × 334 at 1600 × 1000) is too small to
read them; opened from the View menu or their shortcut they float at a readable size instead, the tab in
front stays in front, and View ▸ Reset layout docks them again."""
import pytest
from PySide6.QtWidgets import QApplication

from explorer.floating_panels import title_bar
from explorer.view_menu import in_front
from tests.gui.conftest import open_window

LARGE = ("block", "efficient", "flash", "qk_space", "model_view", "generation", "rope")
# the least a panel opened this way gets: every one of them reads at this size (looked at under Xvfb)
LEAST = (720, 560)


def settle():
    for _ in range(3):
        QApplication.processEvents()


@pytest.mark.parametrize("size", [(1024, 640), (1600, 1000)], ids=["1024x640", "1600x1000"])
def test_each_large_panel_opens_at_a_readable_size(qtbot, home, size):
    window = open_window(qtbot, size=size)
    settle()
    for name in LARGE:
        dock = window.docks[name]
        window.actions[f"view_{name}"].trigger()
        settle()
        if name == "model_view":
            window.model.checkpoints.finish()
            settle()
        assert dock.isVisible() and window.panels[name].isVisible(), name
        if name == "block" and not window.model.projected:  # one sentence and a button: as tall as they are,
            assert dock.width() >= LEAST[0] and not dock.widget().verticalScrollBar().isVisible(), dock.size()
            assert window.screen().availableGeometry().contains(dock.geometry().center())  # beside the window if room
        else:
            assert dock.width() >= LEAST[0] and dock.height() >= LEAST[1], (name, dock.size())
            assert window.geometry().contains(dock.geometry().center()), name  # over the window, not off it
        assert not window.docks["readout"].visibleRegion().isEmpty()  # the row under ③ keeps its front tab
        dock.close()
    window.model.undo_stack.setClean()


def test_reset_layout_docks_them_again_and_a_panel_docked_by_the_person_stays_docked(qtbot, home):
    window = open_window(qtbot, size=(1600, 1000))
    settle()
    flash, choose = window.docks["flash"], window.actions["view_flash"]
    choose.trigger()
    settle()
    assert flash.isFloating()
    flash.setFloating(False)  # the person puts it back into its tab
    window.docks["readout"].raise_()
    settle()
    choose.trigger()
    settle()
    assert not flash.isFloating() and not flash.visibleRegion().isEmpty()  # in front where the person put it
    window.reset_layout()
    settle()
    assert not any(window.docks[n].isFloating() for n in LARGE)
    assert flash in window.tabifiedDockWidgets(window.docks["readout"])
    assert not window.docks["readout"].visibleRegion().isEmpty()
    choose.trigger()  # a new layout: it opens floating again
    settle()
    assert flash.isFloating() and flash.width() >= LEAST[0]
    window.model.undo_stack.setClean()


def test_a_large_panel_docked_where_it_has_room_is_raised_there(qtbot, home):
    window = open_window(qtbot, size=(1600, 1000))
    settle()
    efficient, flash = window.docks["efficient"], window.docks["flash"]
    for name, dock in window.docks.items():  # the person keeps only these two, tabbed, filling the window
        if dock not in (efficient, flash):
            dock.close()
    flash.raise_()
    settle()
    assert flash.width() >= 900 and flash.height() >= 640
    window.actions["view_efficient"].trigger()
    settle()
    assert not efficient.isFloating() and not efficient.visibleRegion().isEmpty()
    assert efficient.width() >= 900 and efficient.height() >= 640
    window.model.undo_stack.setClean()


def test_the_sqrt_d_lesson_floats_only_where_its_tab_is_small(qtbot, home):
    """Its tab under the controls is 634 × 451 at 1600 × 1000, room for its plots; ~345 × 280 at 1024 × 640."""
    for size, floats in (((1600, 1000), False), ((1024, 640), True)):
        window = open_window(qtbot, size=size)
        settle()
        dock = window.docks["sqrt_d"]
        window.actions["view_sqrt_d"].trigger()
        settle()
        assert dock.isFloating() == floats and in_front(dock)
        assert dock.width() >= 600 and dock.height() >= 440
        window.model.undo_stack.setClean()


def test_two_panels_opened_floating_in_turn_do_not_hide_each_other(qtbot, home):
    window = open_window(qtbot, size=(1600, 1000))
    settle()
    window.actions["view_sensitivity"].trigger()
    settle()
    window.actions["view_ab_diff"].trigger()
    settle()
    first, second = window.docks["sensitivity"], window.docks["ab_diff"]
    assert first.isFloating() and second.isFloating()
    a, b = first.geometry().topLeft(), second.geometry().topLeft()
    assert abs(a.x() - b.x()) >= 20 or abs(a.y() - b.y()) >= 20  # apart by a title bar's height at the least
    assert not second.frameGeometry().intersects(title_bar(first))  # the first's title bar is not under the second
    window.model.undo_stack.setClean()


@pytest.mark.parametrize("size", [(1024, 640), (1600, 1000)], ids=["1024x640", "1600x1000"])
def test_many_panels_opened_floating_each_leave_every_title_bar_in_reach(qtbot, home, size):
    """Opened one after another from the View menu, every panel that floats goes on top of those floating already
    (as a new window does) and covers none of their title bars, so each can still be moved, docked or closed; all
    stay in the screen. (They used to land exactly on top of each other.)"""
    window = open_window(qtbot, size=size)
    settle()
    room = window.screen().availableGeometry()
    opened = []
    for name in (*LARGE, "sensitivity", "ab_diff", "sqrt_d"):
        dock = window.docks[name]
        window.actions[f"view_{name}"].trigger()
        for _ in range(3):
            settle()
            qtbot.wait(10)
        if not dock.isFloating():
            continue  # (the √d lesson has room in its tab at 1600 × 1000)
        for other in opened:
            bar = title_bar(other)
            assert not dock.frameGeometry().intersects(bar), (name, "covers the title bar of", other.objectName())
        opened.append(dock)
        for each in opened:
            assert room.contains(each.frameGeometry()), (each.objectName(), each.frameGeometry(), room)
    assert len(opened) >= 9
    window.model.undo_stack.setClean()


def test_edits_do_not_place_the_floating_panels_again(qtbot, home, monkeypatch):
    """At 1024 × 640 nine panels floated in turn: some were made shorter than their content asks so every title
    bar stays in reach. An edit re-lays their content out, asking for the same sizes: none is placed again (each
    used to be placed and raised again at every edit, or every step of a drag)."""
    from explorer import floating_panels

    window = open_window(qtbot, size=(1024, 640))
    settle()
    for name in (*LARGE, "sensitivity", "ab_diff"):
        window.actions[f"view_{name}"].trigger()
        for _ in range(3):
            settle()
            qtbot.wait(10)
    placed = []
    real = floating_panels.fit_floating
    monkeypatch.setattr(floating_panels, "fit_floating", lambda *a, **k: placed.append(a[1].objectName()) or real(*a, **k))
    geometries = {name: dock.geometry() for name, dock in window.docks.items() if dock.isFloating()}
    for value in (0.25, 0.5, 0.75, 1.0):
        window.model.set_cell("V", 1, 0, value)
        window.model.flush()
        for _ in range(3):
            settle()
            qtbot.wait(10)
    assert placed == []
    assert {name: window.docks[name].geometry() for name in geometries} == geometries
    window.model.undo_stack.setClean()
