"""F14 the √d lesson panel: the d slider and the seed drive three plots and a readout (offscreen)."""
import html
import math
import re

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QStyle, QStyleOptionSlider

from explorer.core import sqrt_d_point
from explorer.core.scaling import dimension_grid, sharpness_curve
from explorer.panels.sqrt_d import QUOTE_EN, QUOTE_ZH, SCALED_COLOR, UNSCALED_COLOR, SqrtDPanel
from tests.gui.panel_helpers import show_panel


def make(qtbot, size=(900, 600)):
    return show_panel(qtbot, SqrtDPanel, size=size)


def plain(label):
    return html.unescape(re.sub(r"<[^>]+>", "", label.text())).replace("\xa0", " ")


def drawn(panel):
    """What the panel shows, read back from its plot items and readout (in the data's own units)."""
    sx, sy = panel.spread_marker.getData()
    ex, ey = panel.entropy_marker.getData()
    assert len(sx) == 1 and len(ex) == 2
    return {
        "d_marked": 2.0 ** sx[0],
        "d_lines": (2.0 ** panel.spread_line.value(), 2.0 ** panel.entropy_line.value()),
        "spread": 2.0 ** sy[0],
        "entropy": tuple(ey),  # (unscaled, scaled)
        "bars_unscaled": np.asarray(panel.bars_unscaled.opts["height"], float),
        "bars_scaled": np.asarray(panel.bars_scaled.opts["height"], float),
        "readout": plain(panel.readout),
        "title": panel.bars_plot.getPlotItem().titleLabel.text,
    }


def expected_readout(p):
    return (f"d = {p.d}: q·k spread ≈ {p.spread:#.3g} (√d = {p.sqrt_d:#.3g}); "
            f"unscaled max weight {p.max_weight_unscaled:.2f}, scaled {p.max_weight_scaled:.2f}")


def assert_shows(panel, d, seed=0):
    """Every drawn number at d equals what the core gives for (d, seed)."""
    p = sqrt_d_point(d, row=0, seed=seed)
    shown = drawn(panel)
    assert panel.d == d and panel.seed == seed
    assert shown["d_marked"] == pytest.approx(d, rel=1e-12)
    assert shown["d_lines"] == pytest.approx((d, d), rel=1e-12)
    assert shown["spread"] == pytest.approx(p.spread, rel=1e-12)
    assert shown["entropy"] == pytest.approx((p.entropy_unscaled, p.entropy_scaled), rel=1e-12)
    np.testing.assert_array_equal(shown["bars_unscaled"], p.row_unscaled)
    np.testing.assert_array_equal(shown["bars_scaled"], p.row_scaled)
    assert shown["readout"].startswith(expected_readout(p)), (shown["readout"], expected_readout(p))
    assert f"d = {d}<br>" in shown["title"]
    return shown


def handle_center(slider):
    option = QStyleOptionSlider()
    slider.initStyleOption(option)
    rect = slider.style().subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                         QStyle.SubControl.SC_SliderHandle, slider)
    return rect.center()


# ---------------------------------------------------------------- start

def test_starts_at_d_128_seed_0_with_the_core_numbers(qtbot):
    _, panel = make(qtbot)
    assert panel.d_slider.value() == 128 and panel.d_slider.read_out.text() == "128"
    shown = assert_shows(panel, 128)
    # "d=128 时分数动辄几十": the spread is about √128 ≈ 11.3, and unscaled softmax piles on one key
    assert "(√d = 11.3)" in shown["readout"]
    assert shown["bars_unscaled"].max() > 0.5 > shown["bars_scaled"].max()
    np.testing.assert_allclose(shown["bars_unscaled"].sum(), 1.0)
    np.testing.assert_allclose(shown["bars_scaled"].sum(), 1.0)


def test_curves_are_the_core_curves_on_the_grid(qtbot):
    _, panel = make(qtbot)
    grid = dimension_grid(1024)
    curve = sharpness_curve(grid, seed=0)
    x, y = panel.measured.getData()
    np.testing.assert_allclose(2.0 ** x, grid, rtol=1e-12)
    np.testing.assert_allclose(2.0 ** y, curve.spread, rtol=1e-12)
    x, y = panel.entropy_unscaled.getData()
    np.testing.assert_allclose(2.0 ** x, grid, rtol=1e-12)
    np.testing.assert_array_equal(y, curve.entropy_unscaled)
    _, y = panel.entropy_scaled.getData()
    np.testing.assert_array_equal(y, curve.entropy_scaled)
    assert curve.entropy_unscaled[-1] < 0.5 < 2.0 < curve.entropy_scaled[-1]


def test_sqrt_d_curve_is_sqrt_d_over_the_whole_range(qtbot):
    _, panel = make(qtbot)
    x, y = panel.sqrt_curve.getData()
    d = 2.0 ** x
    assert d[0] == pytest.approx(1.0) and d[-1] == pytest.approx(1024.0)
    assert len(d) > 50
    np.testing.assert_allclose(2.0 ** y, np.sqrt(d), rtol=1e-12)
    # and the measured spread sits on it: within 10 % at every grid point from d = 4 on
    mx, my = panel.measured.getData()
    big = 2.0 ** mx >= 4
    np.testing.assert_allclose(2.0 ** my[big], np.sqrt(2.0 ** mx[big]), rtol=0.1)


# ---------------------------------------------------------------- the d slider

@pytest.mark.parametrize("d", [1, 4, 37, 1024])
def test_setting_d_redraws_the_mark_bars_and_readout(qtbot, d):
    _, panel = make(qtbot)
    before = drawn(panel)
    panel.d_slider.setValue(d)
    shown = assert_shows(panel, d)
    assert shown["readout"] != before["readout"]
    assert not np.array_equal(shown["bars_unscaled"], before["bars_unscaled"])


def test_at_d_1_scaling_changes_nothing_and_at_1024_one_key_takes_all(qtbot):
    _, panel = make(qtbot)
    panel.d_slider.setValue(1)
    shown = drawn(panel)
    np.testing.assert_array_equal(shown["bars_unscaled"], shown["bars_scaled"])
    panel.d_slider.setValue(1024)
    shown = drawn(panel)
    assert shown["bars_unscaled"].max() > 0.9 and shown["bars_scaled"].max() < 0.5


def test_dragging_the_slider_moves_everything_with_it(qtbot):
    _, panel = make(qtbot)
    slider = panel.d_slider.slider
    start = handle_center(slider)
    seen = []
    qtbot.mousePress(slider, Qt.MouseButton.LeftButton, pos=start)
    assert slider.isSliderDown()
    for dx in (-15, -40, -90, -140):
        qtbot.mouseMove(slider, start + type(start)(dx, 0))
        # while dragging, the drawing follows the slider: d is its value, rounded half up
        assert panel.d == math.floor(panel.d_slider.value() + 0.5)
        assert_shows(panel, panel.d)
        seen.append(panel.d)
    qtbot.mouseRelease(slider, Qt.MouseButton.LeftButton, pos=start + type(start)(-140, 0))
    assert not slider.isSliderDown()
    assert seen == sorted(seen, reverse=True) and len(set(seen)) == len(seen) and seen[-1] < 128
    # on release the slider shows the whole d that is drawn
    d = seen[-1]
    assert panel.d_slider.value() == d and panel.d_slider.read_out.text() == str(d)
    assert_shows(panel, d)


def test_typed_fractional_d_is_rounded_and_shown_whole(qtbot):
    _, panel = make(qtbot)
    read_out = panel.d_slider.read_out
    read_out.selectAll()
    qtbot.keyClicks(read_out, "63.6")
    qtbot.keyClick(read_out, Qt.Key.Key_Return)
    assert_shows(panel, 64)
    assert panel.d_slider.value() == 64 and read_out.text() == "64"


def test_keyboard_steps_move_d(qtbot):
    _, panel = make(qtbot)
    qtbot.keyClick(panel.d_slider.slider, Qt.Key.Key_PageUp)
    assert panel.d > 128
    assert_shows(panel, panel.d)


# ---------------------------------------------------------------- the seed

def test_seed_draws_new_numbers_and_the_same_seed_the_same_numbers(qtbot):
    _, panel = make(qtbot)
    first = drawn(panel)
    first_curve = panel.measured.getData()[1].copy()
    qtbot.keyClick(panel.seed_box, Qt.Key.Key_Up)  # through the spin box, as a user would
    assert panel.seed == 1
    second = assert_shows(panel, 128, seed=1)
    assert second["readout"] != first["readout"]
    assert not np.array_equal(second["bars_unscaled"], first["bars_unscaled"])
    assert not np.array_equal(panel.measured.getData()[1], first_curve)
    np.testing.assert_array_equal(panel.measured.getData()[1],
                                  np.log2(sharpness_curve(dimension_grid(1024), seed=1).spread))
    panel.seed_box.setValue(0)
    again = assert_shows(panel, 128, seed=0)
    assert again["readout"] == first["readout"]
    np.testing.assert_array_equal(again["bars_unscaled"], first["bars_unscaled"])
    np.testing.assert_array_equal(again["bars_scaled"], first["bars_scaled"])
    np.testing.assert_array_equal(panel.measured.getData()[1], first_curve)


def test_seed_and_d_together(qtbot):
    _, panel = make(qtbot)
    panel.seed_box.setValue(7)
    panel.d_slider.setValue(300)
    assert_shows(panel, 300, seed=7)


# ---------------------------------------------------------------- the model, the text, the pixels

def test_model_changes_leave_the_lesson_alone(qtbot):
    model, panel = make(qtbot)
    panel.d_slider.setValue(16)
    before = drawn(panel)
    model.randomize(seed=3)
    model.flush()
    panel.refresh()
    after = drawn(panel)
    assert after["readout"] == before["readout"]
    np.testing.assert_array_equal(after["bars_unscaled"], before["bars_unscaled"])


def test_the_chapter_sentence_and_its_translation(qtbot):
    _, panel = make(qtbot)
    zh = plain(panel.quote_zh)
    assert QUOTE_ZH in zh
    assert "d=128 时分数动辄几十" in zh and "温度过低的贫富分化" in zh and "「有分辨力但不极端」" in zh
    assert plain(panel.quote_en) == QUOTE_EN
    assert "temperature" in QUOTE_EN and "√d" in QUOTE_EN


def test_readout_shows_whole_numbers_of_the_law(qtbot):
    _, panel = make(qtbot)
    panel.d_slider.setValue(1024)
    assert "(√d = 32.0)" in drawn(panel)["readout"]
    panel.d_slider.setValue(1)
    assert "(√d = 1.00)" in drawn(panel)["readout"]


def _pixel(plot, x, y):
    """The colour drawn at data point (x, y) of a PlotWidget."""
    scene = plot.getViewBox().mapViewToScene(QPointF(x, y))
    pos = plot.mapFromScene(scene)
    image = plot.grab().toImage()
    ratio = image.devicePixelRatio()
    return QColor(image.pixel(int(pos.x() * ratio), int(pos.y() * ratio)))


def _close(colour, hex_name, tol=40):
    target = QColor(hex_name)
    return all(abs(a - b) <= tol for a, b in ((colour.red(), target.red()), (colour.green(), target.green()),
                                              (colour.blue(), target.blue())))


def test_the_bars_are_drawn_where_the_weights_say(qtbot):
    _, panel = make(qtbot)
    panel.d_slider.setValue(1024)
    shown = drawn(panel)
    top = int(np.argmax(shown["bars_unscaled"]))
    # half-way up the tallest unscaled bar: vermillion; half-way up its scaled neighbour: blue
    assert _close(_pixel(panel.bars_plot, top - 0.2, shown["bars_unscaled"][top] / 2), UNSCALED_COLOR)
    assert _close(_pixel(panel.bars_plot, top + 0.2, shown["bars_scaled"][top] / 2), SCALED_COLOR)
    # above the scaled bar (and below the unscaled one's top) there is no blue
    assert not _close(_pixel(panel.bars_plot, top + 0.2, (shown["bars_scaled"][top] + 1) / 2), SCALED_COLOR)


def test_narrow_panel_stacks_the_tiles(qtbot):
    _, panel = make(qtbot, size=(460, 900))
    positions = [panel.tiles.getItemPosition(panel.tiles.indexOf(w))[:2]
                 for w in (panel.spread_plot, panel.bars_plot, panel.entropy_plot, panel.quote)]
    assert positions == [(0, 0), (1, 0), (2, 0), (3, 0)]
    panel.resize(900, 600)
    qtbot.waitUntil(lambda: panel.tiles.getItemPosition(panel.tiles.indexOf(panel.quote))[:2] == (1, 1))
    assert math.isclose(drawn(panel)["d_marked"], 128)
