"""The RoPE panel in its default dock with Llama 3.1's scaling on: its control groups share rows while they
fit (the old narrow arrangement gave each its own row, ten rows, and the plots began below the dock), and
none reaches past the dock's edge."""
from PySide6.QtCore import QPoint, QRect

from tests.gui.test_model_view_layout import sized_window  # noqa: F401  (a fixture: 1024 × 640 and 1600 × 1000)
from tests.gui.test_window_small import show_dock


def rect_in(widget, ancestor):
    return QRect(widget.mapTo(ancestor, QPoint(0, 0)), widget.size())


def test_llama3_groups_share_rows_inside_the_dock(sized_window):  # noqa: F811
    sized_window.model.set_param("rope", True)
    sized_window.model.set_param("rope_scaling", "llama3")
    scroll = show_dock(sized_window, "rope").widget()
    panel = scroll.widget()
    shown = [g for g in panel.groups.values() if g.isVisible()]
    assert len(shown) == 13  # rope, base, pairs, offset, scaling, factor, 3 llama3 numbers, head, query, key, pair
    rects = [rect_in(g, scroll.viewport()) for g in shown]
    for i, a in enumerate(rects):
        assert a.left() >= 0 and a.right() < scroll.viewport().width()  # inside the dock, no sideways scroll
        for b in rects[i + 1:]:
            assert not a.intersects(b)
    rows = {r.top() for r in rects}
    if sized_window.width() == 1600:  # a 560 px dock: two or three groups a row (seven rows at the most)
        assert len(rows) <= 7
    else:  # the 390 px dock at 1024 × 640 still puts "RoPE on" beside its base
        assert len(rows) < len(shown)


def test_log_ticks_label_powers_of_ten_at_most_five():
    from explorer.panels.rope.plots import log_ticks
    assert log_ticks(-1.35, 1.35) == [(-1.0, "0.1"), (0.0, "1"), (1.0, "10")]
    # 10^-7 … 10^0: eight powers, every second one (ceil(8 / 5) = 2)
    assert [t for _, t in log_ticks(-7.2, 0.3)] == ["1e-07", "1e-05", "0.001", "0.1"]


def test_the_spectrum_of_one_pair_has_three_labels_apart(qtbot):
    """d_h = 2: one pair, θ_0 = base^0 = 1. Its axis spans two decades around 1 (0.1, 1, 10), each label a
    line's height or more from the next (they used to be 1, 0.9, 0.8, 0.7, 0.6 on top of each other)."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QFontMetricsF

    from explorer.core.presets import grouped_query_session
    from explorer.panels.rope import RopePanel
    from tests.gui.panel_helpers import show_panel
    model, panel = show_panel(qtbot, RopePanel, session=grouped_query_session(), size=(560, 1100))
    model.set_param("rope", True)
    model.flush()
    qtbot.wait(50)
    axis = panel.spectrum.getPlotItem().getAxis("left")
    ticks = axis._tickLevels[0]
    assert ticks == [(-1.0, "0.1"), (0.0, "1"), (1.0, "10")]
    vb = panel.spectrum.getPlotItem().getViewBox()
    ys = [vb.mapViewToScene(QPointF(0, v)).y() for v, _ in ticks]
    line = QFontMetricsF(axis.style.get("tickFont") or panel.font()).height()
    assert all(abs(a - b) >= line for a, b in zip(ys, ys[1:])), (ys, line)
