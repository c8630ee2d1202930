"""F5 attention lines: the lines drawn are the model's weights; hover isolates, click selects (offscreen)."""
import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtWidgets import QApplication

from explorer.core.presets import random_session
from explorer.panels.lines import DEFAULT_TOP_K, MAX_LINES, AttentionLinesPanel
from tests.gui.panel_helpers import show_panel

CAT, CHASE, RED, DOT = range(4)  # 猫 追 红色 激光点


def make(qtbot, session=None, size=(450, 500)):
    return show_panel(qtbot, AttentionLinesPanel, session=session, size=size)


def weights_of(model):
    return model.results.heads.weights[model.settings.selected_head]


def as_matrix(edges, n):
    """The drawn edges as an (n, n) matrix of weights (0 where no line), checking there are no duplicates."""
    m = np.zeros((n, n))
    for q, k, w in edges:
        assert m[q, k] == 0, f"edge {q}→{k} drawn twice"
        m[q, k] = w
    return m


def hover(qtbot, canvas, side, i):
    qtbot.mouseMove(canvas, canvas.token_rect(side, i).center().toPoint())
    qtbot.waitUntil(lambda: canvas.hovered == (side, i), timeout=2000)


def blank_point(canvas):
    """A point between the two columns, on no token."""
    r = canvas.token_rect("query", 0)
    return QPoint(canvas.width() // 2, int(r.top()) - 30 if r.top() > 40 else canvas.height() - 2)


def test_edges_are_the_weights_of_the_selected_head(qtbot):
    model, panel = make(qtbot)
    canvas = panel.canvas
    assert panel.k() is None and panel.top_k.text() == "all"  # L = 4: every line
    edges = canvas.edges()
    assert canvas.hovered is None
    np.testing.assert_allclose(as_matrix(edges, 4), weights_of(model))
    assert len(edges) == 16
    assert "Head 1 of 1." in panel.caption.text()
    assert "darker and thicker = more weight" in panel.caption.text()
    # another head: the lines follow it
    model.set_param("heads", 3)
    model.set_selection(head=2)
    model.flush()
    np.testing.assert_allclose(as_matrix(canvas.edges(), 4), model.results.heads.weights[2])
    assert "Head 3 of 3." in panel.caption.text()


def test_hovering_a_query_isolates_its_lines_and_leaving_restores(qtbot):
    model, panel = make(qtbot)
    canvas = panel.canvas
    before = sorted(canvas.edges())
    hover(qtbot, canvas, "query", RED)
    edges = canvas.edges()
    assert {q for q, _, _ in edges} == {RED}
    np.testing.assert_allclose(sorted(w for _, _, w in edges), sorted(weights_of(model)[RED]))
    qtbot.mouseMove(canvas, blank_point(canvas))
    qtbot.waitUntil(lambda: canvas.hovered is None, timeout=2000)
    assert sorted(canvas.edges()) == before
    hover(qtbot, canvas, "query", DOT)
    QApplication.sendEvent(canvas, QEvent(QEvent.Type.Leave))  # the pointer leaves the panel
    assert canvas.hovered is None and sorted(canvas.edges()) == before
    assert model.settings.selected_row == CHASE  # hovering selects nothing


def test_hovering_a_key_isolates_the_lines_into_it(qtbot):
    model, panel = make(qtbot)
    canvas = panel.canvas
    hover(qtbot, canvas, "key", RED)
    edges = canvas.edges()
    assert {k for _, k, _ in edges} == {RED} and len(edges) == 4
    np.testing.assert_allclose(sorted(q for q, _, _ in edges), range(4))
    np.testing.assert_allclose([w for q, _, w in sorted(edges)], weights_of(model)[:, RED])


def test_clicking_a_query_token_selects_its_row(qtbot):
    model, panel = make(qtbot)
    canvas = panel.canvas
    assert model.settings.selected_row == CHASE
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=canvas.token_rect("query", DOT).center().toPoint())
    assert model.settings.selected_row == DOT
    model.flush()
    assert canvas.focus() == ("query", DOT)
    # clicking a key selects nothing
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=canvas.token_rect("key", CAT).center().toPoint())
    model.flush()
    assert model.settings.selected_row == DOT
    # the selected row's lines are drawn last (on top), the others under them
    edges = canvas.edges()
    assert {q for q, _, _ in edges[-4:]} == {DOT}


def test_causal_mask_leaves_no_line_to_a_later_key(qtbot):
    model, panel = make(qtbot)
    model.set_param("causal", True)
    model.flush()
    edges = panel.canvas.edges()
    assert edges and all(k <= q for q, k, _ in edges)
    assert len(edges) == 10  # the lower triangle of 4 × 4
    np.testing.assert_allclose(as_matrix(edges, 4), weights_of(model))


def test_top_k_spin_box_keeps_the_largest_of_each_query(qtbot):
    model, panel = make(qtbot)
    panel.top_k.setValue(1)
    edges = panel.canvas.edges()
    w = weights_of(model)
    assert sorted((q, k) for q, k, _ in edges) == [(i, int(np.argmax(w[i]))) for i in range(4)]
    panel.top_k.setValue(0)
    assert len(panel.canvas.edges()) == 16


def test_a_long_sequence_draws_only_the_top_k_of_each_query(qtbot):
    model, panel = make(qtbot, random_session(100, 8, seed=2))
    assert panel.k() == DEFAULT_TOP_K == 3
    w = weights_of(model)
    edges = panel.canvas.edges()
    per_query = np.bincount([q for q, _, _ in edges], minlength=100)
    assert per_query.max() <= 3 and len(edges) == 300
    third = np.sort(w, axis=1)[:, -3]
    for q, k, weight in edges:
        assert weight == w[q, k] and weight >= third[q]
    hover(qtbot, panel.canvas, "query", 50)
    assert len(panel.canvas.edges()) == 3
    # every label would overlap: only some are drawn, but every row can still be hovered
    assert panel.canvas._geometry()["step"] > 1


def test_very_long_sequence_caps_the_number_of_lines(qtbot):
    model, panel = make(qtbot, random_session(1024, 8, seed=0))
    panel.top_k.setValue(0)  # "all"
    edges = panel.canvas.edges()
    assert len(edges) == MAX_LINES
    assert f"only the {MAX_LINES:,} strongest drawn" in panel.note.text()
    # the selected query's lines are all kept (emphasised); the rest are the strongest of the others
    sel = model.settings.selected_row
    n_sel = sum(q == sel for q, _, _ in edges)
    others = np.delete(weights_of(model), sel, axis=0)
    cut = np.sort(others, axis=None)[-(MAX_LINES - n_sel)]
    assert min(w for q, _, w in edges if q != sel) >= cut
    assert n_sel == np.count_nonzero(weights_of(model)[sel] > 1e-3)


def test_hidden_weights_draw_no_lines(qtbot, ui):
    model, panel = make(qtbot)
    canvas = panel.canvas
    model.set_revealed(1)
    model.flush()
    assert canvas.edges() == []
    hover(qtbot, canvas, "query", CAT)
    assert canvas.edges() == []
    rgb, dpr = ui.grab_rgb(canvas)
    a, b = line_ends(canvas, CHASE, CAT)
    band = rgb[:, int(a[0] * dpr) + 4:int(b[0] * dpr) - 4].astype(int)
    # no blue line anywhere between the columns (the italic message is grey, not blue)
    assert not np.any(band[..., 2] - band[..., 0] > 60), "a blue line was drawn while weights are hidden"
    assert band.sum(axis=2).min() < 500  # but the message is there
    model.set_revealed(3)
    model.flush()
    assert len(canvas.edges()) == 4  # still hovering 猫


def line_ends(canvas, q, k):
    """Where the line q → k starts and ends (the inner edges of the two label columns, at the rows)."""
    from explorer.widgets.lines_canvas import GAP

    rq, rk = canvas.token_rect("query", q), canvas.token_rect("key", k)
    return (np.array([rq.right() + GAP, rq.center().y()]), np.array([rk.left() - GAP, rk.center().y()]))


def test_a_strong_line_is_drawn_darker_than_the_background(qtbot, ui):
    model, panel = make(qtbot)
    canvas = panel.canvas
    w = weights_of(model)
    assert w[CHASE, CAT] > 0.4  # 追 looks for nouns: half of its budget goes to 猫
    rgb, dpr = ui.grab_rgb(canvas)
    background = rgb[2, 2].astype(int)
    a, b = line_ends(canvas, CHASE, CAT)
    x, y = ((a + b) / 2 * dpr).round().astype(int)
    patch = rgb[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3).astype(int)
    darkest = patch[np.argmin(patch.sum(axis=1))]
    assert darkest.sum() < background.sum() - 120, (darkest, background)
    assert darkest[2] > darkest[0] + 40  # blue
    # hovering 猫 on the key side keeps the line; hovering 红色 on the query side removes it
    hover(qtbot, canvas, "query", RED)
    rgb2, _ = ui.grab_rgb(canvas)
    patch2 = rgb2[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3).astype(int)
    assert patch2.sum(axis=1).min() > darkest.sum() + 60


def test_hover_prints_weights_next_to_the_other_column(qtbot, ui):
    model, panel = make(qtbot)
    canvas = panel.canvas

    def left_of_queries():
        rgb, dpr = ui.grab_rgb(canvas)
        r = canvas.token_rect("query", DOT)
        x1 = int(r.left() * dpr) - 2
        y0, y1 = int(canvas.token_rect("query", 0).top() * dpr), int(r.bottom() * dpr)
        return rgb[y0:y1, 2:x1].astype(int).sum(axis=2)

    assert left_of_queries().min() > 600  # the selected query's weights are printed by the keys, not here
    hover(qtbot, canvas, "key", RED)
    assert left_of_queries().min() < 400  # "0.59" etc. by the queries


@pytest.mark.parametrize("n", [1, 40])
def test_sizes_render(qtbot, n):
    model, panel = make(qtbot, random_session(n, 4, seed=1))
    assert panel.k() is None
    assert len(panel.canvas.edges()) == n * n
    panel.canvas.grab()
    assert panel.canvas._geometry()["step"] == 1  # up to 40 tokens every label is drawn
