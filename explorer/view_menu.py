"""The View menu: its panel items bring a panel to the front (only one already in front hides), and
the tab bars of docked panels name them in full.

Qt's own ``toggleViewAction`` hides a dock that is a tab behind another (nothing seems to happen, and the
next choice brings the tab back still behind); these items raise it instead.
"""
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from explorer.dock_layout import open_panel


def in_front(dock):
    """Whether the dock is shown and not a tab behind another (a floating dock is in front)."""
    return dock.isVisible() and (dock.isFloating() or not dock.visibleRegion().isEmpty())


def choose_panel(window, dock, readable=None):
    """What choosing the dock's View item does: bring it to the front (a large panel whose place is too small
    opens floating: dock_layout.open_panel), or hide it when it is in front already."""
    if not dock.isHidden() and in_front(dock):
        dock.close()
        return
    open_panel(window, dock, readable)


def panel_action(window, dock, shortcut, tip, readable=None):
    """A checkable View item for ``dock`` (checked while it is not closed) that does ``choose_panel``."""
    action = QAction(dock.windowTitle(), window)
    action.setCheckable(True)
    action.setShortcut(QKeySequence(shortcut))
    action.setStatusTip(tip)
    toggle = dock.toggleViewAction()  # Qt keeps its check in step with the dock's close button and layouts
    action.setChecked(toggle.isChecked())
    toggle.toggled.connect(action.setChecked)
    # after Qt's own handling, whatever the trigger was: the check says whether the dock is open
    action.triggered.connect(lambda checked=False: (choose_panel(window, dock, readable),
                                                    action.setChecked(not dock.isHidden())))
    return action


def readable_tabs(bar):
    """A tab bar of docks names its panels in full ("Attention lines", not "Att…"): when they do not all
    fit, it scrolls (arrows at its end) rather than cutting every name short."""
    if bar.elideMode() != Qt.TextElideMode.ElideNone:
        bar.setElideMode(Qt.TextElideMode.ElideNone)
        bar.setUsesScrollButtons(True)
