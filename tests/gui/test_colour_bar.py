"""The colour bar (widgets/colour_bar.py) draws as pyqtgraph's own ColorBarItem, pixel for pixel, without
being a PlotItem; its levels, ticks and frame (offscreen, pytest-qt)."""
import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage, QPainter

from explorer.widgets.colour_bar import ColourBar
from explorer.widgets.heatmap import Heatmap
from tests.gui.test_lean_plot import pixels, shown

SIDES = ("left", "top", "right", "bottom")


def pyqtgraphs_own(cmap, levels):
    """The bar as pyqtgraph makes it: a non-interactive vertical ColorBarItem, every axis in black."""
    bar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=cmap, width=14, interactive=False, colorMapMenu=False)
    for side in SIDES:
        bar.getAxis(side).setPen("k")
        bar.getAxis(side).setTextPen("k")
        bar.getAxis(side).enableAutoSIPrefix(False)
    bar.setLevels(levels)
    return bar


@pytest.mark.parametrize("size", [(80, 300), (70, 520), (90, 151)])
@pytest.mark.parametrize("name, levels", [("CET-CBD1", (0.0, 5.0)), ("viridis", (0.0, 1.0))])
def test_the_bar_is_drawn_as_pyqtgraphs_colour_bar(qtbot, size, name, levels):
    cmap = pg.colormap.get(name)
    ours = ColourBar(cmap, width=14, pen="k")
    ours.setLevels(levels)
    views = [shown(qtbot, bar, size=size) for bar in (pyqtgraphs_own(cmap, levels), ours)]
    for view in views:
        view.setBackground("w")
    qtbot.wait(20)
    np.testing.assert_array_equal(pixels(views[1]), pixels(views[0]))


def test_the_strip_runs_from_the_lowest_colour_at_the_bottom_to_the_highest_on_top_inside_a_frame(qtbot):
    cmap = pg.ColorMap([0.0, 1.0], [(255, 0, 0), (0, 0, 255)])  # red at the low end, blue at the high
    bar = ColourBar(cmap, width=14, pen="k")
    view = shown(qtbot, bar, size=(80, 300))
    view.setBackground("w")
    qtbot.wait(20)
    rgb = pixels(view).astype(int)
    strip = bar.strip.mapRectToScene(bar.strip.rect())
    left, top, right, bottom = (int(round(v)) for v in (strip.left(), strip.top(), strip.right(), strip.bottom()))
    x, y = (left + right) // 2, (top + bottom) // 2
    assert np.abs(rgb[top + 2, x] - (0, 0, 255)).sum() <= 6  # within a few of 256 steps of either end
    assert np.abs(rgb[bottom - 3, x] - (255, 0, 0)).sum() <= 6
    # framed: a black line within two pixels outside the strip on every side
    black = (0, 0, 0)
    assert any(tuple(rgb[top - d, x]) == black for d in (1, 2))
    assert any(tuple(rgb[bottom - 1 + d, x]) == black for d in (1, 2))
    assert any(tuple(rgb[y, left - d]) == black for d in (1, 2))
    assert any(tuple(rgb[y, right - 1 + d]) == black for d in (1, 2))


def test_levels_set_the_axis_and_ticks_use_a_true_minus(qtbot):
    bar = ColourBar(pg.colormap.get("CET-CBD1"), pen="k")
    view = shown(qtbot, bar, size=(80, 300))  # (kept: the bar lives as long as its view)
    assert bar.levels() == (0.0, 1.0) and view.isVisible()
    bar.setLevels((-4, 4))
    assert bar.levels() == (-4.0, 4.0) and tuple(bar.axis.range) == (-4.0, 4.0)
    image = QImage(10, 10, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    texts = [t for *_, t in bar.axis.generateDrawSpecs(painter)[2]]
    painter.end()
    assert {"−4", "0", "4"} <= set(texts) and not any("-" in t for t in texts)


def test_a_heatmap_builds_no_plot_for_its_colour_bar(qtbot):
    h = Heatmap(cmap="diverging", colorbar_label="score")
    qtbot.addWidget(h)
    assert not any(isinstance(item, (pg.PlotItem, pg.ViewBox)) for item in h.colorbar.childItems())
    assert sum(isinstance(item, pg.AxisItem) for item in h.scene().items()) == 5  # four around the matrix, one value axis


def drawn_labels(bar):
    """The value axis's labels as it would draw them now: (text, rect) from top to bottom."""
    image = QImage(10, 10, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    specs = bar.axis.generateDrawSpecs(painter)[2]
    painter.end()
    return sorted(((text, rect) for rect, _, text in specs), key=lambda label: label[1].top())


@pytest.mark.parametrize("levels, ends", [((-5, 5), ("5", "−5")), ((-7.5, 7.5), ("7.5", "−7.5")),
                                          ((0, 1), ("1.0", "0")),
                                          # the Transformer block's ends: three significant digits, inside the axis
                                          ((-2.9249, 2.9249), ("2.92", "−2.92")), ((-0.8305, 0.8305), ("0.83", "−0.83"))])
@pytest.mark.parametrize("height", [170, 120, 300])
def test_a_bar_tall_enough_for_two_labels_always_says_both_end_values(qtbot, levels, ends, height):
    # ① at 1024 × 640: a −5 … 5 bar ~150 px tall was labelled 4, 2, 0, −2, −4 (ticks every 2), its ends not at all
    bar = ColourBar(pg.colormap.get("CET-CBD1"), pen="k")
    bar.setLevels(levels)
    view = shown(qtbot, bar, size=(80, height))
    assert view.isVisible()
    labels = drawn_labels(bar)
    assert (labels[0][0], labels[-1][0]) == ends
    axis = bar.axis.mapRectFromParent(bar.axis.geometry())
    assert abs(labels[0][1].center().y() - axis.top()) < 0.5 and abs(labels[-1][1].center().y() - axis.bottom()) < 0.5
    assert all(rect.right() <= axis.right() for _, rect in labels)  # no label is cut by the axis's edge
    for (_, upper), (_, lower) in zip(labels, labels[1:]):  # none on another, every one a readable gap apart
        assert lower.top() - upper.bottom() >= 0


def test_a_bar_too_short_for_two_labels_is_labelled_as_pyqtgraph_labels_it(qtbot):
    bar = ColourBar(pg.colormap.get("CET-CBD1"), pen="k")
    bar.setLevels((-5, 5))
    view = pg.GraphicsView()
    qtbot.addWidget(view)
    view.scene().addItem(bar)
    bar.resize(60, 22)  # the axis 20 px: not two labels' height (~11 px each)
    view.show()
    qtbot.waitExposed(view)
    image = QImage(10, 10, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    pyqtgraphs = [text for *_, text in pg.AxisItem.generateDrawSpecs(bar.axis, painter)[2]]
    painter.end()
    assert bar.axis.height() == 20 and sorted(text for text, _ in drawn_labels(bar)) == sorted(pyqtgraphs)
