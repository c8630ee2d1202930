"""The Query–key space's names never overprint: where points crowd, each name goes beside its own point where
it covers no other name (or is left off), inside the plot — the demo (the query 追 in focus sits on the key 猫),
a random L = 12 session, and points all on one place."""
import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication

from explorer.core.presets import demo_session, random_session
from explorer.core.session import Session, Settings
from explorer.panels.qk_space import QKSpacePanel
from tests.gui.panel_helpers import show_panel
from tests.gui.test_qk_space_panel import hover

NEAR_PX = 12  # a name is beside its point: its box this close to the point's centre (9 px gap and a pixel or two)


def shown_names(panel):
    """(text, scene rect) of every name drawn."""
    return [(label.textItem.toPlainText(), label.mapRectToScene(label.boundingRect()))
            for label in panel.plot.labels if label.isVisible()]


def point_in_scene(panel, x, y):
    return panel.plot.view.mapViewToScene(QPointF(float(x), float(y)))


def distance_to(rect, point):
    dx = max(rect.left() - point.x(), 0.0, point.x() - rect.right())
    dy = max(rect.top() - point.y(), 0.0, point.y() - rect.bottom())
    return float(np.hypot(dx, dy))


def assert_apart_and_beside(panel, named):
    """No two names drawn share a pixel, each lies in the plot, beside the point it names (``named``: text →
    (x, y) points it may belong to)."""
    view = panel.plot.view
    inside = view.mapRectToScene(view.boundingRect()).adjusted(-1, -1, 1, 1)
    names = shown_names(panel)
    for i, (text, rect) in enumerate(names):
        assert inside.contains(rect), (text, rect, inside)
        near = min(distance_to(rect, point_in_scene(panel, *p)) for p in named[text])
        assert near <= NEAR_PX, (text, near)
        for other, rect2 in names[i + 1:]:  # (to within half a pixel: positions go through the view's transform)
            assert not rect.adjusted(0.5, 0.5, -0.5, -0.5).intersects(rect2), (text, other, rect, rect2)
    return [text for text, _ in names]


def points_named(model, panel):
    named = {}
    for tokens, pts in ((model.query_tokens, panel.plot.q_pts), (model.tokens, panel.plot.k_pts)):
        for token, p in zip(tokens, pts):
            named.setdefault(token, []).append(p)
    return named


def test_the_demos_names_stand_apart(qtbot):
    model, panel = show_panel(qtbot, QKSpacePanel, session=demo_session(), size=(480, 520))
    QApplication.processEvents()
    texts = assert_apart_and_beside(panel, points_named(model, panel))
    # four queries and four keys, room for every name at this size: all eight are drawn
    assert sorted(texts) == sorted(["猫", "追", "红色", "激光点"] * 2)


@pytest.mark.parametrize("size", [(480, 520), (720, 600)])
def test_a_random_session_of_twelve_names_those_in_focus_apart(qtbot, size):
    model, panel = show_panel(qtbot, QKSpacePanel, session=random_session(12), size=size)
    QApplication.processEvents()
    for side, i in (("query", 1), ("key", 4), ("query", 7)):
        hover(qtbot, panel, side, i)
        texts = assert_apart_and_beside(panel, points_named(model, panel))
        assert f"t{i}" in texts  # the point in focus is always named


def test_names_of_points_on_one_place_are_left_off_rather_than_overprinted(qtbot):
    # every query the same vector, every key the same: all queries on one place, all keys on another
    q = np.tile([1.0, 0.5, 0.0, 0.2], (8, 1))
    k = np.tile([0.2, 1.0, 0.3, 0.0], (8, 1))
    session = Session(tokens=tuple(f"w{i}" for i in range(8)), matrices={"Q": q, "K": k, "V": np.eye(8, 4)},
                      settings=Settings(), title="one place")
    model, panel = show_panel(qtbot, QKSpacePanel, session=session, size=(480, 520))
    QApplication.processEvents()
    texts = assert_apart_and_beside(panel, points_named(model, panel))
    assert len(panel.plot.labels) == 16 and 2 <= len(texts) < 16
    assert model.query_tokens[model.settings.selected_row] in texts  # the query in focus keeps its name


def test_a_top_k_of_every_key_tries_the_first_ranked_names_only(qtbot):
    """Top-k raised to L = 150 asks for 151 names (placing each looks at all placed before it): at most
    MAX_NAMED are tried, the query in focus first, then the keys its lines go to."""
    from explorer.panels.qk_space.plane import MAX_NAMED

    model, panel = show_panel(qtbot, QKSpacePanel, session=random_session(150), size=(900, 700))
    panel.top_k.setValue(150)
    QApplication.processEvents()
    assert len(panel.plot.labels) == 151 and MAX_NAMED < 151
    names = shown_names(panel)
    assert 0 < len(names) <= MAX_NAMED
    assert model.query_tokens[model.settings.selected_row] in [text for text, _ in names]  # the focus keeps its name
