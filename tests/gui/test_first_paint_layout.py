"""Plots are laid out before their first paint, not after it (issue 18, start-up): layouts counted, never timed.

pyqtgraph's axes measured their tick labels only while painting and then widened, so every heatmap
and plot was painted, laid out again and painted a second time a moment after the window appeared.
The lean axes measure when laid out or given ticks: the first paint already shows the final layout.
"""
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from explorer.widgets import lean_plot
from explorer.widgets.heatmap import Heatmap


class FirstPaint(QObject):
    """Remembers what ``measure()`` gives at the first paint of each watched viewport."""

    def __init__(self, views, measure):
        super().__init__()
        self.views, self.measure, self.seen = views, measure, {}

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            for view in self.views:
                if obj is view.viewport() and view not in self.seen:
                    self.seen[view] = self.measure(view)
        return False


def geometry(view):
    """Where the axes and the view box of a heatmap (or a plot widget) sit in its scene."""
    plot = view.plot if isinstance(view, Heatmap) else view.getPlotItem()
    items = [plot.getViewBox()] + [plot.getAxis(side) for side in ("left", "right", "top", "bottom")]
    return [item.sceneBoundingRect().getRect() for item in items]


def test_a_heatmap_shows_its_final_layout_at_its_first_paint(qtbot):
    if not lean_plot.LEAN:
        return  # pyqtgraph's own axes: measured at the first paint, as pyqtgraph does
    h = Heatmap(cmap="diverging", colorbar_label="score", row_title="query", col_title="key")
    qtbot.addWidget(h)
    rows = ["a rather long label", "b", "c"]
    h.set_matrix([[1.0, -2.0, 3.0], [0.5, 0.0, -1.0], [2.5, 1.5, -3.5]], row_labels=rows,
                 col_labels=["k0", "k1", "k2"], levels=(-4.0, 4.0), row_notes=["Σ=1.000"] * 3)
    h.resize(520, 420)
    watch = FirstPaint([h], geometry)
    QApplication.instance().installEventFilter(watch)
    try:
        h.show()
        qtbot.waitUntil(lambda: h in watch.seen)
        for _ in range(5):
            QApplication.processEvents()
        h.grab()
    finally:
        QApplication.instance().removeEventFilter(watch)
    assert watch.seen[h] == geometry(h)  # nothing moved after the first paint
    left = h.plot.getAxis("left")
    assert left.width() > h.fontMetrics().horizontalAdvance("a rather long label")  # and the label fits


def test_the_windows_plots_are_painted_in_their_final_layout(qtbot, home):
    if not lean_plot.LEAN:
        return
    from explorer.main_window import MainWindow

    window = MainWindow(persist_layout=False, recovery=False)
    qtbot.addWidget(window, before_close_func=lambda w: w.model.undo_stack.setClean())
    window.resize(1600, 1000)
    heatmaps = [window.panels[name].heatmap for name in ("scores", "weights", "output")]
    watch = FirstPaint(heatmaps, geometry)
    QApplication.instance().installEventFilter(watch)
    try:
        window.show()
        qtbot.waitUntil(lambda: len(watch.seen) == 3 and window.panels.is_built("readout"))
        for _ in range(10):
            QApplication.processEvents()
        window.grab()
    finally:
        QApplication.instance().removeEventFilter(watch)
    for h in heatmaps:
        assert watch.seen[h] == geometry(h), h.parent().objectName()
    readout = window.panels["readout"]
    assert not readout.findChildren(pg.GraphicsView)  # its plots paint themselves (widgets/painted_plot.py)


class Resizes(QObject):
    """Counts the resize events of the heatmaps (by their dock's name) until it is removed."""

    def __init__(self):
        super().__init__()
        self.count = {}

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Resize and isinstance(obj, Heatmap):
            name = obj.parent().objectName() if obj.parent() is not None else ""
            self.count[name] = self.count.get(name, 0) + 1
        return False


def test_the_heatmaps_on_screen_get_their_size_once_at_start_up(qtbot, home):
    """The window's default dock sizes are fitted before it shows, not in its showEvent: the docks on screen build
    their panels as they show (before the window's showEvent), and a refit after it resized every heatmap again
    by a pixel, laying each out twice. Counted: one resize each (from no size to its size), none after."""
    from explorer.main_window import MainWindow
    from explorer.style import apply_style

    apply_style(QApplication.instance())  # the app's font, as at a start (the fixture puts the tests' back)
    window = MainWindow(persist_layout=False, recovery=False)
    qtbot.addWidget(window, before_close_func=lambda w: w.model.undo_stack.setClean())
    window.resize(1600, 1000)
    watch = Resizes()
    QApplication.instance().installEventFilter(watch)
    try:
        window.show()
        qtbot.waitUntil(lambda: not window.waiting_panels() and window.panels.is_built("readout"))
        for _ in range(10):
            QApplication.processEvents()
        window.grab()
    finally:
        QApplication.instance().removeEventFilter(watch)
    assert watch.count == {"scoresPanel": 1, "weightsPanel": 1, "outputPanel": 1}
