"""The heatmap's lean pyqtgraph parts (widgets/lean_plot.py) build less at start-up but draw, lay out
and behave as pyqtgraph's own PlotItem and AxisItem do (offscreen, pytest-qt)."""
from contextlib import nullcontext

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QMenu

import explorer.widgets.heatmap as heatmap_module
import explorer.widgets.lean_plot as lean_plot
from explorer.widgets.heatmap import Heatmap
from explorer.widgets.lean_plot import LeanAxisItem, LeanPlotItem, held_labels
from tests.gui.test_heatmap import make

pytestmark = pytest.mark.skipif(not lean_plot.LEAN, reason=f"pyqtgraph {pg.__version__}: the lean classes are off")

TOKENS = ["猫", "追", "红色", "激光点"]
MENU_PARTS = {"ctrl", "ctrlMenu", "stateGroup", "titleLabel"}  # made on first use


def pixels(widget) -> np.ndarray:
    img = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    w, h, bpl = img.width(), img.height(), img.bytesPerLine()
    return np.frombuffer(img.constBits(), np.uint8, count=h * bpl).reshape(h, bpl)[:, : w * 3].reshape(h, w, 3).copy()


def shown(qtbot, item, size=(400, 300)):
    view = pg.GraphicsLayoutWidget()
    qtbot.addWidget(view)
    view.addItem(item)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    return view


def test_a_lean_plot_item_is_made_and_laid_out_as_a_plot_item(qtbot):
    ref, lean = pg.PlotItem(enableMenu=False), LeanPlotItem()
    assert set(ref.__dict__) - set(lean.__dict__) == MENU_PARTS  # everything else PlotItem.__init__ sets
    assert set(lean.__dict__) <= set(ref.__dict__)
    assert not MENU_PARTS & set(lean.__dict__)  # …and no menu was built
    assert {k: (a["pos"], a["item"].isVisible()) for k, a in lean.axes.items()} == {
        k: (a["pos"], a["item"].isVisible()) for k, a in ref.axes.items()}
    assert lean.vb.menu is None and not lean.menuEnabled()
    views = [shown(qtbot, p) for p in (ref, lean)]
    assert lean.vb.geometry() == ref.vb.geometry()
    for side in ("left", "bottom"):
        assert lean.getAxis(side).geometry() == ref.getAxis(side).geometry()
    np.testing.assert_array_equal(pixels(views[1]), pixels(views[0]))


def test_the_options_menu_and_the_title_are_made_when_first_used(qtbot):
    plot = LeanPlotItem()
    plot.showGrid(x=True, alpha=0.5)  # reads the menu's check boxes: they are made now
    assert plot.ctrl.xGridCheck.isChecked() and not plot.ctrl.yGridCheck.isChecked()
    assert plot.getAxis("bottom").grid is not False
    menu = plot.getMenu()
    assert isinstance(menu, QMenu)
    assert [m.title() for m in menu.findChildren(QMenu)] == ["Transforms", "Downsample", "Average", "Alpha",
                                                            "Grid", "Points"]
    state = plot.saveState()
    plot.restoreState(state)
    with pytest.raises(AttributeError):
        plot.no_such_attribute  # noqa: B018 — unknown names still fail as before
    plot.setTitle("hello")
    assert plot.titleLabel.isVisible() and plot.titleLabel.text == "hello"
    assert plot.layout.rowMaximumHeight(0) == 30
    plot.setTitle(None)
    assert not plot.titleLabel.isVisible() and plot.layout.rowMaximumHeight(0) == 0


def test_an_axis_label_is_laid_out_once_per_block_and_matches_pyqtgraph(qtbot):
    ref, lean = pg.AxisItem("left"), LeanAxisItem("left")
    for axis in (ref, lean):
        axis.setPen("k")
        axis.setLabel("query", color="#000000")
    assert lean.label.toHtml() == ref.label.toHtml()
    assert (lean.minimumWidth(), lean.maximumWidth()) == (ref.minimumWidth(), ref.maximumWidth())
    with held_labels([lean]):
        lean.setLabel("key", color="#000000")
        assert "query" in lean.label.toHtml()  # held: not laid out yet
    assert "key" in lean.label.toHtml() and "query" not in lean.label.toHtml()
    ref.setLabel("key", color="#000000")
    assert lean.label.toHtml() == ref.label.toHtml()
    assert (lean.minimumWidth(), lean.maximumWidth()) == (ref.minimumWidth(), ref.maximumWidth())


def test_the_heatmap_builds_no_menus_and_still_shows_its_colour_bar_and_titles(qtbot):
    h = Heatmap(cmap="diverging", colorbar_label="score", row_title="query", col_title="key")
    qtbot.addWidget(h)
    h.resize(520, 460)
    h.show()
    qtbot.waitExposed(h)
    h.set_matrix(np.array([[-2.0, 0.5], [1.0, 2.0]]), row_labels=TOKENS[:2], col_labels=TOKENS[:2], levels=(-2, 2))
    assert not {"ctrl", "ctrlMenu", "stateGroup"} & set(h.plot.__dict__)
    assert h.plot.vb.menu is None
    assert "query" in h.plot.getAxis("left").label.toHtml() and h.plot.getAxis("left").label.isVisible()
    assert "key" in h.plot.getAxis("top").label.toHtml() and h.plot.getAxis("top").label.isVisible()
    assert "score" in h.colorbar.axis.label.toHtml() and h.colorbar.axis.label.isVisible()
    assert h.colorbar.isVisible() and h.colorbar.levels() == (-2.0, 2.0)
    # the bar is painted with the map, low values at the bottom
    rgb = pixels(h)
    bar = h.colorbar.strip.sceneBoundingRect()
    x = int(bar.center().x() * h.devicePixelRatioF())
    top = rgb[int((bar.top() + 5) * h.devicePixelRatioF()), x].astype(int)
    bottom = rgb[int((bar.bottom() - 5) * h.devicePixelRatioF()), x].astype(int)
    lut = h.image_item.lut.astype(int)
    assert np.abs(top - lut[-1]).sum() < 30 and np.abs(bottom - lut[0]).sum() < 30
    # its tick labels use a true minus sign, as the cells do
    image = QImage(10, 10, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    texts = [t for *_, t in h.colorbar.axis.generateDrawSpecs(painter)[2]]
    painter.end()
    assert "−2" in texts and "2" in texts and not any("-" in t for t in texts)


def test_the_heatmap_looks_exactly_as_it_did_with_pyqtgraphs_own_parts(qtbot, monkeypatch):
    def draw(size):
        h = make(qtbot, cmap="diverging", size=size)
        values = np.array([[4.0, -1.5, 0.0, 2.5], [0.5, 16.0, -3.0, 1.0], [8.0, 0.0, 0.25, -2.0], [2.4, 0.0, 0.0, 2.4]])
        h.set_matrix(values, row_labels=TOKENS, col_labels=TOKENS, levels=(-20, 20),
                     masked=np.triu(np.ones((4, 4), bool), 1), row_notes=["Σ=1.000"] * 4,
                     flagged_rows=[False, True, False, False])
        h.set_selected_row(1)
        # an axis widens for its texts when it first paints them: wait until the picture settles
        previous = pixels(h)
        for _ in range(20):
            qtbot.wait(5)
            now = pixels(h)
            if np.array_equal(now, previous):
                return now
            previous = now
        raise AssertionError("the heatmap kept changing")

    lean = [draw(size) for size in ((520, 460), (300, 700))]
    # the same widget built on pyqtgraph's PlotItem and AxisItem, as before lean_plot (the colour bar is
    # compared with pyqtgraph's own in test_colour_bar.py)
    monkeypatch.setattr(heatmap_module, "LeanPlotItem", lambda axisItems: pg.PlotItem(axisItems=axisItems,
                                                                                       enableMenu=False))
    monkeypatch.setattr(heatmap_module, "held_labels", lambda axes: nullcontext())
    monkeypatch.setattr(lean_plot.LeanAxisItem, "__init__", pg.AxisItem.__init__)
    monkeypatch.setattr(lean_plot.LeanAxisItem, "_updateLabel", pg.AxisItem._updateLabel)
    plain = [draw(size) for size in ((520, 460), (300, 700))]
    for a, b in zip(lean, plain):
        np.testing.assert_array_equal(a, b)


def test_closing_a_lean_plot_does_not_build_its_options_menu(qtbot):
    plot = LeanPlotItem()
    view = shown(qtbot, plot)
    plot.close()
    view.close()
    assert "ctrl" not in plot.__dict__ and "stateGroup" not in plot.__dict__
