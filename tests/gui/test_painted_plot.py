"""The painted plot under the Readout: its round ticks, its data ↔ pixel mapping, what it paints where."""
import numpy as np
import pytest
from PySide6.QtCore import QPoint, QRectF
from PySide6.QtGui import QColor

from explorer.widgets.nice import nice_ceiling, round_ticks
from explorer.widgets.number_text import tick_text, tick_texts
from explorer.widgets.painted_plot import PaintedPlot, spanned
from explorer.widgets.palette import blended

FG, BG = QColor("#000000"), QColor("#ffffff")


def test_round_ticks_by_hand():
    """The step is the first of 1, 2, 5 × 10^k at least span · min_px / pixels; ticks at its multiples."""
    assert round_ticks(-0.03, 0.52, 100, 26) == ([0.0, 0.2, 0.4], 1)  # 0.55 · 26 / 100 = 0.143 → 0.2
    assert round_ticks(-0.1, 1.1, 150, 50) == ([0.0, 0.5, 1.0], 1)  # 1.2 · 50 / 150 = 0.4 → 0.5
    assert round_ticks(-0.1, 1.1, 300, 50) == ([0.0, 0.2, 0.4, 0.6, 0.8, 1.0], 1)  # 0.2 → 0.2 itself
    assert round_ticks(-3.2, 1.7, 400, 40) == ([-3.0, -2.5, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5], 1)  # 0.49
    assert round_ticks(0.0, 1000.0, 300, 50) == ([0.0, 200.0, 400.0, 600.0, 800.0, 1000.0], 0)  # 166.7 → 200
    assert round_ticks(0.0, 70.0, 100, 30) == ([0.0, 50.0], 0)  # 21 → 50
    assert round_ticks(2.0, 2.0, 100, 30) == ([], 0)  # nothing to tick


def test_tick_texts_write_a_true_minus_and_a_plain_zero():
    assert [tick_text(v, 1) for v in (-0.5, 0.0, 1.5)] == ["−0.5", "0", "1.5"]


def test_ticks_below_the_smallest_normal_float_do_not_fail():
    """V may hold 5e−324 (finite, below 1e6): the step 5e−324 · 50 / 300 underflows to 0, and 10^−324 too;
    the step is then the nice ceiling of the smallest normal float, 2.2e−308 → 5e−308, which ticks only 0."""
    assert nice_ceiling(0.0) == pytest.approx(5e-308)
    assert nice_ceiling(1e-320, (1, 1.5, 2, 3, 5, 7.5)) == pytest.approx(3e-308)
    assert round_ticks(0.0, 5e-324, 300, 50) == ([0.0], 308)


def test_an_axis_of_tiny_numbers_writes_them_with_an_exponent():
    """At 1e−9 a plain number is "0.0000000015": the digits the step resolves, then the power of ten."""
    assert tick_texts([-1e-9, -5e-10, 0.0, 5e-10, 1e-9, 1.5e-9], 10) == \
        ["−1.0e−9", "−5e−10", "0", "5e−10", "1.0e−9", "1.5e−9"]
    assert tick_texts([1e-300, 2e-300], 300) == ["1e−300", "2e−300"]
    # up to four decimals, or numbers from 0.001 up, stay plain
    assert tick_texts([0.0, 0.0005, 0.001], 4) == ["0", "0.0005", "0.0010"]
    assert tick_texts([0.00100, 0.00102], 5) == ["0.00100", "0.00102"]
    assert tick_texts([1000.0, 1000.00002], 5) == ["1000.00000", "1000.00002"]


def test_a_translucent_colour_blended_over_its_background_by_hand(qtbot):
    """Alpha a over a background: a · colour + (1 − a) · background, opaque; the grid is 15 % text over the base."""
    assert blended(QColor(0, 0, 0, 64), QColor("#ffffff")).getRgb() == (191, 191, 191, 255)  # 255 · (1 − 64/255)
    assert blended(QColor(255, 0, 0, 128), QColor(0, 0, 255)).getRgb() == (128, 0, 127, 255)
    plot = PaintedPlot(None, FG, BG)
    qtbot.addWidget(plot)
    assert plot.grid.getRgb() == (217, 217, 217, 255)  # 255 · (1 − 38/255): the 15 % alpha is 38 of 255


def test_an_empty_range_widens_to_one_unit():
    assert spanned((2.0, 2.0)) == (1.5, 2.5)
    assert spanned((3.0, 1.0)) == (1.5, 2.5)
    assert spanned((0.0, 4.0)) == (0.0, 4.0)


class Square(PaintedPlot):
    """Paints the data square (4, −0.2)–(6, 0.2) red: its middle is the data point (5, 0)."""

    def paint_data(self, p):
        (x0, y0), (x1, y1) = self.to_px([(4.0, -0.2), (6.0, 0.2)])
        p.fillRect(QRectF(x0, y1, x1 - x0, y0 - y1), QColor("#ff0000"))


def test_the_ranges_fill_the_data_area_and_paint_where_they_map(qtbot):
    plot = Square(None, FG, BG)
    qtbot.addWidget(plot)
    plot.resize(400, 300)
    plot.set_view((0.0, 10.0), (-1.0, 1.0))
    plot.set_title("x", "output dimension")
    plot.set_title("y", "share")
    rect = plot.data_rect()
    np.testing.assert_allclose(plot.to_px([(0.0, -1.0), (10.0, 1.0)]),
                               [(rect.left(), rect.bottom()), (rect.right(), rect.top())])
    np.testing.assert_allclose(plot.to_data((rect.center().x(), rect.center().y())), (5.0, 0.0), atol=1e-9)
    # room for the turned title, the widest tick text ("−0.5"), the ticks; the x title and texts below
    widest = plot.fontMetrics().horizontalAdvance("−0.5")
    assert rect.left() > widest + plot.fontMetrics().height()
    assert rect.bottom() < 300 - 2 * plot.fontMetrics().height()
    image = plot.grab().toImage()
    centre = rect.center().toPoint()
    assert QColor(image.pixel(centre)) == QColor("#ff0000")  # (5, 0) is the middle of the data area
    assert QColor(image.pixel(centre + QPoint(0, round(rect.height() / 4)))) != QColor("#ff0000")  # y = −0.5


def test_given_ticks_outside_the_range_are_left_out_and_a_callable_gets_the_width(qtbot):
    plot = PaintedPlot(None, FG, BG)
    qtbot.addWidget(plot)
    plot.resize(300, 200)
    seen = []
    plot.set_view((-0.5, 2.5), (0.0, 1.0))
    plot.set_ticks("x", lambda px: seen.append(px) or [(k, f"d{k}") for k in range(5)])
    rect, x_ticks = plot.data_rect(), plot._laid_out()[2]
    assert seen == [rect.width()]
    assert x_ticks == [(0.0, "d0"), (1.0, "d1"), (2.0, "d2")]


def test_tiny_ranges_keep_short_tick_texts_and_their_data_area(qtbot):
    """V cells of ~1e−9 gave tick texts of 12 characters; 1e−300 ones took the whole plot for their decimals."""
    plot = PaintedPlot(None, FG, BG)
    qtbot.addWidget(plot)
    plot.resize(300, 200)
    for lo, hi in ((-1.1e-9, 1.6e-9), (1e-300, 5e-300)):
        plot.set_view((lo, hi), (lo, hi))
        _, rect, x_ticks, y_ticks = plot._laid_out()
        assert len(x_ticks) >= 2 and len(y_ticks) >= 2
        assert all(len(text) <= 8 for _, text in x_ticks + y_ticks)
        assert rect.width() > 200


def test_the_end_tick_texts_stay_inside_the_widget(qtbot):
    """"1000000" under the right end of an axis up to 1e6 was cut off by the widget's edge."""
    plot = PaintedPlot(None, FG, BG)
    qtbot.addWidget(plot)
    plot.resize(400, 200)
    plot.set_view((-1e6, 1e6), (0.0, 1.0))
    _, rect, x_ticks, _ = plot._laid_out()
    assert x_ticks[0] == (-1e6, "−1000000") and x_ticks[-1] == (1e6, "1000000")
    shown = plot._x_tick_texts(x_ticks, plot.fontMetrics())
    assert [text for text, _ in shown][::len(shown) - 1] == ["−1000000", "1000000"]
    for _, (left, right) in shown:
        assert 0 <= left and right <= 400
    # one in the middle stays centred on its tick
    (middle,) = [span for text, span in shown if text == "0"]
    assert abs((middle[0] + middle[1]) / 2 - round(plot.to_px((0.0, 0.0))[0])) < 1
