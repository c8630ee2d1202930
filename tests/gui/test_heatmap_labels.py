"""Column labels of a heatmap: each shows when it fits beside the labels shown next to it (one long
token does not hide its short neighbours), and shown labels never overlap."""
import numpy as np
from PySide6.QtGui import QFontMetricsF

from explorer.widgets.heatmap import Heatmap
from explorer.widgets.heatmap_ticks import fitting_columns, label_step

GAP = 8.0


def test_a_short_label_between_shown_ones_comes_back():
    # widths 14, 14, 26, 39 px at 28 px cells: 红色|激光点 need (26 + 39)/2 + 8 = 40.5 > 28, so every 2nd;
    # 追 then keeps (14 + 14)/2 + 8 = 22 ≤ 28 from 猫 and (14 + 26)/2 + 8 = 28 ≤ 28 from 红色: shown;
    # 激光点 would need 40.5 from 红色: not shown.
    widths = np.array([14.0, 14.0, 26.0, 39.0])
    assert label_step(widths, 28.0, GAP) == 2
    assert fitting_columns(widths, 28.0, GAP, 2) == [0, 1, 2]


def test_equal_labels_keep_their_even_step():
    # ten 20 px labels at 12 px cells: 28 px apart needed → every 5th; none between fits (3 cells = 36 from
    # the left one but 2 cells = 24 < 28 from the right one)
    widths = np.full(10, 20.0)
    assert label_step(widths, 12.0, GAP) == 5
    assert fitting_columns(widths, 12.0, GAP, 5) == [0, 5]
    assert fitting_columns(widths, 40.0, GAP, 1) == list(range(10))


def test_shown_column_labels_fit_and_every_dropped_one_would_overlap(qtbot):
    # cells narrower than a line of text: the labels cannot stand up (test_heatmap_standing_labels), so some lie
    tokens = ["猫", "追", "红色", "激光点", "的", "a", "longer-token"]
    h = Heatmap(cmap="sequential", row_title="query", col_title="key")
    qtbot.addWidget(h)
    h.resize(220, 300)
    h.show()
    qtbot.waitExposed(h)
    h.set_matrix(np.zeros((3, len(tokens))), row_labels=["x", "y", "z"], col_labels=tokens, levels=(0.0, 1.0))
    qtbot.wait(50)
    fm = QFontMetricsF(h.font())
    centre = [h.cell_center(0, j).x() for j in range(len(tokens))]
    cell = centre[1] - centre[0]
    assert 8 < cell < fm.height()  # the size the rule is about
    assert h.plot.getAxis("top").upright() is None
    shown = [j for j, _ in h.ticks("top")]
    assert 0 < len(shown) < len(tokens)

    def span(j):
        w = fm.horizontalAdvance(tokens[j])
        return centre[j] - w / 2, centre[j] + w / 2

    for a, b in zip(shown, shown[1:]):
        assert span(a)[1] <= span(b)[0], (tokens[a], tokens[b])  # shown labels do not overlap
    for j in set(range(len(tokens))) - set(shown):
        left = max((i for i in shown if i < j), default=None)
        right = min((i for i in shown if i > j), default=None)
        crowded = ((left is not None and span(j)[0] - span(left)[1] < GAP)
                   or (right is not None and span(right)[0] - span(j)[1] < GAP))
        assert crowded, tokens[j]  # dropped only because it would come too close to a shown one


def test_the_fill_keeps_every_stepped_column():
    # medians 10 px → a fine step of 2 at 12 px cells (18 > 12, 18 ≤ 24); a 40 px label at column 6 makes the
    # step 5 ((10 + 40)/2 + 8 = 33 > 24 at step 2; columns 0, 5: 18 ≤ 60); 0 and 5 stay; 2 keeps 18 ≤ 24
    # from 0 and 18 ≤ 36 from 5: shown; 4 is 24 from 2 but only 12 from 5: not; 6 (40 px) needs 33 > 12
    # from 5: not; 8 is 36 from 5 and has no stepped column after it: shown
    widths = np.array([10.0, 10, 10, 10, 10, 10, 40, 10, 10])
    assert label_step(widths, 12.0, GAP) == 5
    assert fitting_columns(widths, 12.0, GAP, 5) == [0, 2, 5, 8]
