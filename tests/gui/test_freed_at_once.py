"""Nothing of a panel, the model or the window is left for the cyclic collector: a dropped panel and
its model, and the closed window with every panel, are freed at once by their last reference.

A panel kept alive only by a reference cycle was freed whenever the collector next ran — once inside
another widget's paint, where deleting its Qt objects crashed a test run. These tests run with the
automatic collector off and say exactly what is still alive; the window test also forces a full
collection inside paints while every dock is opened, edited, closed, reopened and floated.
"""
import gc
import weakref

import pytest
import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication, QGraphicsItem

from explorer.main_window import DOCKS
from tests.gui.panel_helpers import show_panel

CTRL, SHIFT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier
KEYS = {key: getattr(Qt.Key, f"Key_{key}") for key in [*map(str, range(10)), *"ABCDEFGHIJKLMNOPQRSTUVWXYZ"]}


@pytest.fixture
def no_collector():
    """The automatic collector off for the test (what is freed, is freed by reference counting); what
    earlier tests left (widgets still to be deleted, their cycles) is gone before it starts."""
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    gc.disable()
    yield
    gc.enable()
    gc.collect()


def live_qt_objects_of_ours(objects):
    """The explorer's Qt objects among ``objects`` whose C++ side still exists: freeing their wrappers
    deletes them, wherever the collector happens to run."""
    return [o for o in objects if isinstance(o, (QObject, QGraphicsItem)) and shiboken6.isValid(o)
            and type(o).__module__.startswith("explorer.")]


class CollectInPaint(QObject):
    """Asked (``due``), runs a full collection inside the next paint of any widget — where a freed cycle
    once crashed — and keeps the explorer's live Qt objects that collection found unreachable."""

    def __init__(self):
        super().__init__()
        self.due, self.runs, self.found = False, 0, []

    def eventFilter(self, watched, event):
        if self.due and event.type() == QEvent.Type.Paint:
            self.due = False
            self.runs += 1
            gc.set_debug(gc.DEBUG_SAVEALL)
            try:
                gc.collect()
            finally:
                gc.set_debug(0)
            self.found += [f"{type(o).__name__} {o.objectName()!r}" if isinstance(o, QObject) else type(o).__name__
                           for o in live_qt_objects_of_ours(gc.garbage)]
            gc.garbage.clear()
            gc.collect()  # and now really: the cycles go inside this paint
        return False


@pytest.mark.parametrize("spec", DOCKS, ids=[spec.name for spec in DOCKS])
def test_a_dropped_panel_is_freed_at_once(qtbot, no_collector, spec):
    model, panel = show_panel(qtbot, spec.panel_class(), size=(900, 600))
    model.set_cell("Q", 0, 0, 2.5)
    model.set_selection(row=1)
    model.flush()
    panel.resize(520, 700)
    panel.refresh()
    QApplication.processEvents()
    gone = weakref.ref(panel)
    panel.close()
    del panel
    QApplication.processEvents()
    assert gone() is None, f"{spec.name}: its panel outlived its last reference (a cycle, or a slot that keeps it)"
    gone = weakref.ref(model)
    del model
    assert gone() is None, f"{spec.name}: the model outlived its last reference"


def shortcut(qtbot, window, spec):
    """Press the dock's View shortcut (Ctrl+4, Ctrl+Shift+7, …) on the window."""
    *mods, key = spec.shortcut.split("+")
    if QApplication.activeWindow() is not window:  # (a dock floated and docked again took it along)
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    modifiers = CTRL | (SHIFT if "Shift" in mods else Qt.KeyboardModifier.NoModifier)
    qtbot.keyClick(window, KEYS[key], modifiers)


def paint_with_collection(qtbot, window, collector):
    collector.due = True
    window.repaint()
    QApplication.processEvents()


def open_edit_close_and_delete(qtbot, ui, collector):
    """Every dock opened by its shortcut, edits, every dock closed, reopened, floated and docked again, a
    collection inside a paint after each step; then the window closed and deleted. Weak references to the
    window, its parts and every panel (the window's last strong reference goes with this function's frame)."""
    window = ui.open_window(qtbot)
    for spec in DOCKS:  # each dock by its shortcut: shown and in front (built, drawn)
        dock = window.docks[spec.name]
        if not (dock.isVisible() and not dock.visibleRegion().isEmpty()):
            shortcut(qtbot, window, spec)
        qtbot.waitUntil(lambda: window.panels.is_built(spec.name) and dock.isVisible())
        paint_with_collection(qtbot, window, collector)
    for row in range(2):  # edits every panel follows
        assert window.model.set_cell("Q", row, 0, 1.5 + row)
        window.model.set_selection(row=row)
        window.model.flush()
        paint_with_collection(qtbot, window, collector)
    for spec in DOCKS:
        dock = window.docks[spec.name]
        dock.close()
        paint_with_collection(qtbot, window, collector)
        shortcut(qtbot, window, spec)
        qtbot.waitUntil(dock.isVisible)
        dock.setFloating(True)
        paint_with_collection(qtbot, window, collector)
        dock.setFloating(False)
        paint_with_collection(qtbot, window, collector)
    refs = {name: weakref.ref(panel) for name, panel in window.panels.built().items()}
    assert set(refs) == {spec.name for spec in DOCKS}
    for part in ("model", "menus", "documents", "covers", "recovery"):
        refs[part] = weakref.ref(getattr(window, part))
    refs["window"] = weakref.ref(window)
    window.model.undo_stack.setClean()
    window.close()
    window.deleteLater()
    return refs


def test_every_dock_opened_edited_closed_and_the_window_freed_at_once(qtbot, home, ui, no_collector):
    collector = CollectInPaint()
    QApplication.instance().installEventFilter(collector)
    try:
        refs = open_edit_close_and_delete(qtbot, ui, collector)
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        left = [name for name, ref in refs.items() if ref() is not None]
        assert left == [], "still alive after the window was deleted (only the collector would free them)"
        assert collector.runs >= 3 * len(DOCKS)
        assert collector.found == []  # no Qt object of ours was ever left to the collector
    finally:
        QApplication.instance().removeEventFilter(collector)
