"""``widgets.plots.pooled``: items reused, grown and trimmed, and grown without giving the scene focus (an
active scene's FocusIn hides any tooltip on screen: the Readout grows its labels while one is shown)."""
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QLineEdit, QVBoxLayout, QWidget

from explorer.widgets.plots import pooled


class FocusIns(QObject):
    """The objects that received a FocusIn (an application-wide event filter)."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.FocusIn:
            self.seen.append(obj)
        return False


def test_pooled_reuses_grows_and_trims(qtbot):
    plot = pg.PlotItem()
    made = []

    def make():
        made.append(pg.PlotCurveItem())
        return made[-1]

    items = pooled(plot, [], 3, make)
    assert items == made and all(item.parentItem() is not None and item.isVisible() for item in items)
    again = pooled(plot, items, 2, make)
    assert again == made[:2] and made[2].parentItem() is None and len(made) == 3  # trimmed, nothing new made
    grown = pooled(plot, again, 4, make)
    assert grown[:2] == made[:2] and len(made) == 5 and all(item.isVisible() for item in grown)


def test_growing_a_pool_in_an_active_window_sends_no_focus_in(qtbot):
    window = QWidget()
    layout = QVBoxLayout(window)
    layout.addWidget(QLineEdit())
    view = pg.PlotWidget()
    layout.addWidget(view)
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(view.scene().isActive, timeout=2000)
    focus = FocusIns()
    QApplication.instance().installEventFilter(focus)
    try:
        items = pooled(view.getPlotItem(), [], 3, lambda: pg.TextItem("x"))
        QApplication.processEvents()
    finally:
        QApplication.instance().removeEventFilter(focus)
    assert len(items) == 3 and all(item.isVisible() for item in items)
    assert focus.seen == []
