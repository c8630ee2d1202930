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
