"""What one edit paints in the default window (issue 18): paint events counted, never timed.

A Q cell of another query row repaints the three heatmaps (and the editor's cell), nothing of the
Readout or the Controls; a cell of the Readout's own row repaints each of its texts once and asks for
no new layout of it; panels behind tabs receive neither a render call nor a paint until raised.
"""
from collections import Counter

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from tests.gui.test_edit_repaints import counting

HEATMAPS = ("scores", "weights", "output")


class Census(QObject):
    """Counts the paint and layout-request events each panel's widgets receive, by panel name."""

    def __init__(self, window):
        super().__init__()
        self.panels = {id(p): name for name, p in window.panels.built().items()}
        self.paints, self.layouts, self.painted = Counter(), Counter(), Counter()

    def owner(self, widget):
        while widget is not None and id(widget) not in self.panels:
            widget = widget.parentWidget()
        return self.panels.get(id(widget), "window") if widget is not None else "window"

    def eventFilter(self, obj, event):
        if obj.isWidgetType() and event.type() == QEvent.Type.Paint:
            self.paints[self.owner(obj)] += 1
            self.painted[obj] += 1
        elif obj.isWidgetType() and event.type() == QEvent.Type.LayoutRequest:
            self.layouts[self.owner(obj)] += 1
        return False


def settle(window):
    for _ in range(5):
        QApplication.processEvents()
    window.grab()  # whatever the start left to paint, painted now
    for _ in range(5):
        QApplication.processEvents()


def edit(window, row, col, census=None):
    """A Q cell set through the editor's table model (what the delegate does on Enter)."""
    table = window.panels["editor"].tables["Q"]
    value = float(window.model.matrix("Q")[row, col]) + 0.37
    app = QApplication.instance()
    if census is not None:
        app.installEventFilter(census)
    try:
        assert table.setData(table.index(row, col), repr(value))
        window.model.flush()
        for _ in range(3):
            QApplication.processEvents()
    finally:
        if census is not None:
            app.removeEventFilter(census)


def ready(qtbot, window):
    qtbot.waitUntil(lambda: window.panels.is_built("readout") and window.panels["readout"].isVisible())
    settle(window)


def test_an_edit_of_another_row_paints_the_heatmaps_and_nothing_of_the_readout(qtbot, window):
    ready(qtbot, window)
    selected = window.model.settings.selected_row
    other = (selected + 1) % len(window.model.tokens)
    edit(window, other, 0)  # the first edit may still settle sizes (the editor's column widths)
    settle(window)
    census = Census(window)
    edits = 4
    for k in range(edits):
        edit(window, other, k % 2, census)
    for name in HEATMAPS:
        assert 1 <= census.paints[name] <= edits, (name, census.paints)  # its view, once per edit
    assert census.paints["readout"] == 0 and census.paints["controls"] == 0, census.paints
    assert set(census.paints) <= set(HEATMAPS) | {"editor", "window"}, census.paints
    assert sum(census.layouts.values()) == 0, census.layouts


def test_an_edit_of_the_readouts_row_paints_each_text_once_and_lays_nothing_out(qtbot, window):
    ready(qtbot, window)
    readout = window.panels["readout"]
    edit(window, window.model.settings.selected_row, 0)
    settle(window)
    census = Census(window)
    header_before = readout.header.text()
    edit(window, window.model.settings.selected_row, 1, census)
    assert readout.header.text() != header_before  # the weights in the formula changed
    for label in (readout.header, readout.legend):
        assert census.painted[label] <= 1, census.painted[label]
    assert census.painted[readout.header] == 1
    assert census.layouts["readout"] == 0, census.layouts  # a new text of the same height: no new layout


def test_panels_behind_tabs_do_no_work_per_edit_and_catch_up_when_raised(qtbot, window, monkeypatch):
    ready(qtbot, window)
    for name in ("lines", "heads"):  # built once, then sent behind the Readout's tab again
        window.docks[name].raise_()
        qtbot.waitUntil(lambda name=name: window.panels.is_built(name) and window.panels[name]._on_screen)
    window.docks["readout"].raise_()
    qtbot.waitUntil(lambda: not window.panels["lines"]._on_screen and not window.panels["heads"]._on_screen)
    settle(window)
    renders = {name: counting(monkeypatch, window.panels[name], "render") for name in ("lines", "heads")}
    census = Census(window)
    for k in range(3):
        edit(window, k % len(window.model.tokens), 0, census)
    assert renders == {"lines": [], "heads": []}
    assert census.paints["lines"] == 0 and census.paints["heads"] == 0
    window.docks["lines"].raise_()
    qtbot.waitUntil(lambda: len(renders["lines"]) == 1)  # one render catches up on the three edits
    assert renders["heads"] == []


def test_cell_numbers_are_laid_out_once_and_drawn_where_qt_centres_them(qtbot, monkeypatch):
    """After an edit only the changed numbers are laid out again (each paint laid out all 16 with
    drawText); they are drawn where ``drawText(cell, AlignCenter)`` draws them."""
    import numpy as np
    from PySide6.QtCore import QPointF, QRectF, Qt
    from PySide6.QtGui import QColor, QImage, QPainter

    import explorer.widgets.cell_text as cell_text
    from tests.gui.test_heatmap import make

    made = []

    class Counted(cell_text.QStaticText):
        def __init__(self, text):
            super().__init__(text)
            made.append(text)

    monkeypatch.setattr(cell_text, "QStaticText", Counted)
    h = make(qtbot, size=(520, 460))
    values = np.arange(16.0).reshape(4, 4) / 20
    h.set_matrix(values, row_labels=list("abcd"), col_labels=list("abcd"), levels=(0.0, 1.0))
    h.grab()
    assert sorted(made) == sorted(f"{v:.2f}" for v in values.ravel())  # one layout per distinct number
    made.clear()
    values = values.copy()
    values[2] += 0.005  # one row: four new numbers
    h.set_matrix(values, row_labels=list("abcd"), col_labels=list("abcd"), levels=(0.0, 1.0))
    h.grab()
    assert sorted(made) == sorted(f"{v:.2f}" for v in values[2])

    # the reference: Qt's own centred drawText of the same text in the same cell, same font and pen
    item, font = h._text_item, cell_text.QFont()
    font.setPixelSize(13)
    for cell in (QRectF(37.3, 20.6, 61.0, 47.5), QRectF(10.5, 10.5, 40.0, 30.0)):
        inks = []
        for draw in ("static", "drawText"):
            image = QImage(200, 100, QImage.Format.Format_RGB32)
            image.fill(QColor("white"))
            p = QPainter(image)
            p.setFont(font)
            p.setPen(QColor(20, 20, 20))
            p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
            if draw == "static":
                (static, half), line = item._laid_out("0.45", font, 13), cell_text.QFontMetricsF(font).height()
                p.drawStaticText(QPointF(cell.center().x() - half, cell.center().y() - line / 2), static)
            else:
                p.drawText(cell, Qt.AlignmentFlag.AlignCenter, "0.45")
            p.end()
            inks.append(ink(image))
        assert inks[0][0] == inks[1][0]  # the same box of ink
        assert abs(inks[0][1] - inks[1][1]) <= 0.02 * inks[1][1]  # and as much of it


def ink(image):
    """The box (x0, x1, y0, y1) of the non-white pixels of an RGB32 image, and how dark they are in all."""
    import numpy as np

    a = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine() // 4, 4)
    dark = 765 - a[:, :image.width(), :3].astype(int).sum(axis=2)
    ys, xs = np.nonzero(dark > 65)
    return (int(xs.min()), int(xs.max()), int(ys.min()), int(ys.max())), int(dark.sum())
