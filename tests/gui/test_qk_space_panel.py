"""F24 Query–key space panel (offscreen): one point per query and key in their colours, hovering names the
strongest partners from the model's ② weights, it follows edits, and it does nothing behind its tab."""
import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

import explorer.panels.qk_space.panel as panel_module
from explorer.core.presets import grouped_query_session, random_session, translation_session
from explorer.panels.qk_space import QKSpacePanel
from explorer.widgets.palette import BLUE, VERMILLION
from tests.gui.panel_helpers import show_panel
from tests.gui.test_edit_repaints import counting

CAT, CHASE, RED, DOT = range(4)  # 猫 追 红色 激光点


def make(qtbot, session=None, size=(480, 520)):
    return show_panel(qtbot, QKSpacePanel, session=session, size=size)


def strongest(row, k):
    """The k largest weights of a row, largest first, ties by lower index, zeros left out (written here)."""
    return [j for _, j in sorted((-w, j) for j, w in enumerate(row) if w > 0)[:k]]


def hover(qtbot, panel, side, i):
    view = panel.plot.widget
    at = view.mapFromScene(panel.plot.scene_pos_of(side, i))
    for where in (at + QPoint(3, 3), at):  # a move first: none comes to where the pointer is already
        qtbot.wait(40)  # pyqtgraph's scene drops moves that follow each other too closely
        qtbot.mouseMove(view.viewport(), where)
    qtbot.waitUntil(lambda: panel.plot.hover == (side, i), timeout=2000)


def independent_plane(q, k):
    """AttentionViz's normalisation and PCA written again: s from the mean norms, keys onto the queries'
    centroid, the covariance's two leading eigenvectors (eigh)."""
    s = np.sqrt(np.linalg.norm(k, axis=1).mean() / np.linalg.norm(q, axis=1).mean())
    qs, ks = q * s, k / s
    ks = ks + qs.mean(axis=0) - ks.mean(axis=0)
    both = np.vstack([qs, ks])
    centred = both - both.mean(axis=0)
    _, vecs = np.linalg.eigh(centred.T @ centred)
    return centred @ vecs[:, [-1, -2]], len(q)


def assert_same_up_to_sign(got, want):
    for a in range(2):
        sign = np.sign(got[:, a] @ want[:, a]) or 1.0
        np.testing.assert_allclose(got[:, a], sign * want[:, a], atol=1e-9)


def test_one_point_per_query_and_key_in_their_colours(qtbot):
    model, panel = make(qtbot)
    assert len(panel.plot.queries.data) == 4 and len(panel.plot.keys.data) == 4
    assert panel.plot.queries.opts["brush"].color().name() == QColor(BLUE).name()
    assert panel.plot.keys.opts["brush"].color().name() == QColor(VERMILLION).name()
    picture = panel.plot.widget.grab().toImage()
    rgb = np.array([[picture.pixelColor(x, y).name() for x in range(0, picture.width(), 1)]
                    for y in range(0, picture.height(), 1)])
    assert (rgb == QColor(BLUE).name()).sum() > 20 and (rgb == QColor(VERMILLION).name()).sum() > 20
    # few points: every token named, queries in blue and keys in vermillion
    texts = sorted((label.textItem.toPlainText(), label.color.name()) for label in panel.plot.labels)
    assert texts == sorted([(t, QColor(BLUE).name()) for t in model.query_tokens] +
                           [(t, QColor(VERMILLION).name()) for t in model.tokens])
    assert "look" in panel.caption.text() and "found by" in panel.caption.text()
    assert "variance" in panel.note.text() and "projection" in panel.note.text()


def test_the_points_are_the_normalised_queries_and_keys_projected(qtbot):
    model, panel = make(qtbot)
    q, k = model.matrix("Q"), model.matrix("K")
    want, n = independent_plane(q, k)
    got = np.vstack([panel.plot.q_pts, panel.plot.k_pts])
    assert_same_up_to_sign(got, want)
    # the panel follows an edit
    model.set_cell("K", CAT, 1, 1.5)
    model.flush()
    QApplication.processEvents()
    want, _ = independent_plane(model.matrix("Q"), model.matrix("K"))
    assert_same_up_to_sign(np.vstack([panel.plot.q_pts, panel.plot.k_pts]), want)
    assert "query 追 looks for → " in panel.focus_text.text()  # the selected row without a hover


def test_hovering_a_query_joins_it_to_its_strongest_keys(qtbot):
    model, panel = make(qtbot)
    w = model.results.heads.weights[0]
    for i in (CHASE, DOT):
        hover(qtbot, panel, "query", i)
        keys, ws = panel.partners()[2:]
        assert list(keys) == strongest(w[i], 3)
        np.testing.assert_array_equal(ws, w[i, keys])
        assert len(panel.plot.lines) == 3
        for line, j in zip(panel.plot.lines, keys):  # from the query to each key, darker for more weight
            xs, ys = line.getData()
            np.testing.assert_allclose([xs[1], ys[1]], panel.plot.k_pts[j])
            np.testing.assert_allclose([xs[0], ys[0]], panel.plot.q_pts[i])
        alphas = [line.opts["pen"].color().alpha() for line in panel.plot.lines]
        assert alphas == sorted(alphas, reverse=True)
        words = [f"{model.tokens[j]} {w[i, j]:.2f}" for j in keys]
        assert panel.hover_text == f"query {model.query_tokens[i]} looks for → " + " · ".join(words)
    panel.top_k.setValue(1)
    assert [len(panel.plot.lines)] == [1] and list(panel.partners()[2]) == [int(np.argmax(w[DOT]))]
    QApplication.sendEvent(panel.plot.widget, QEvent(QEvent.Type.Leave))
    assert panel.plot.hover is None and panel.hover_text == ""
    assert panel.focus() == ("query", CHASE) and model.settings.selected_row == CHASE  # hovering selects nothing


def test_hovering_a_key_names_the_queries_that_weigh_it_most(qtbot):
    model, panel = make(qtbot)
    w = model.results.heads.weights[0]
    hover(qtbot, panel, "key", RED)
    queries = panel.partners()[2]
    assert list(queries) == strongest(w[:, RED], 3)
    assert panel.hover_text.startswith(f"key 红色 is found by ← {model.query_tokens[queries[0]]}")


def test_clicking_a_query_selects_its_row(qtbot):
    model, panel = make(qtbot)
    panel._clicked(("query", DOT))
    model.flush()
    assert model.settings.selected_row == DOT and panel.focus() == ("query", DOT)
    panel._clicked(("key", CAT))  # a key selects nothing
    assert model.settings.selected_row == DOT


def test_cross_attention_and_grouped_heads(qtbot):
    model, panel = make(qtbot, translation_session())
    assert len(panel.plot.q_pts) == 7 and len(panel.plot.k_pts) == 4
    assert "cross-attention" in panel.caption.text()
    model, panel = make(qtbot, grouped_query_session())
    model.set_selection(head=5)
    model.flush()
    QApplication.processEvents()
    assert "Head 6 of 8" in panel.caption.text() and "K/V head 2, shared by query heads 5–8" in panel.caption.text()
    s = grouped_query_session()
    want, _ = independent_plane(s.matrices["Q"][:, 10:12], s.matrices["K"][:, 2:4])  # repeat_kv: head 5 reads 1
    assert_same_up_to_sign(np.vstack([panel.plot.q_pts, panel.plot.k_pts]), want)
    w = model.results.heads.weights[5]
    assert list(panel.partners()[2]) == strongest(w[model.settings.selected_row], 3)


def test_many_points_name_only_those_in_focus(qtbot):
    model, panel = make(qtbot, random_session(length=64, dim=8))
    assert len(panel.plot.q_pts) == 64 and len(panel.plot.labels) == 1 + 3
    hover(qtbot, panel, "key", 10)
    assert len(panel.plot.labels) == 4 and panel.plot.labels[-1].textItem.toPlainText() == "t10"


def test_hidden_weights_draw_no_lines(qtbot):
    model, panel = make(qtbot)
    model.set_revealed(1)
    model.flush()
    QApplication.processEvents()
    assert panel.plot.lines == [] and "hidden until ② is revealed" in panel.focus_text.text()
    assert len(panel.plot.q_pts) == 4  # the points (Q and K are inputs) stay


@pytest.mark.parametrize("size", [(1024, 640), (1600, 1000)])
def test_the_dock_waits_behind_its_tab_and_does_no_work_there(qtbot, home, monkeypatch, size):
    from tests.gui.conftest import open_window
    window = open_window(qtbot, size=size)
    assert not window.panels.is_built("qk_space")  # behind the other tabs at start
    action = window.actions["view_qk_space"]
    assert action.shortcut().toString() == "Ctrl+Shift+9" and action.text() == "Query–key space"
    action.trigger()
    qtbot.waitUntil(lambda: window.panels.is_built("qk_space") and window.panels["qk_space"].isVisible(), timeout=3000)
    panel = window.panels["qk_space"]
    assert len(panel.plot.q_pts) == 4
    assert window.docks["qk_space"].isFloating()  # its tab is too small to read it: it opens floating
    window.docks["qk_space"].setFloating(False)  # docked back by the person: a tab again
    window.docks["readout"].raise_()
    qtbot.waitUntil(lambda: not panel._on_screen, timeout=3000)
    renders = counting(monkeypatch, panel, "render")
    planes = counting(monkeypatch, panel_module, "qk_plane")
    for value in (0.5, 0.9, 1.3):
        window.model.set_cell("Q", CAT, 0, value)
        window.model.flush()
        QApplication.processEvents()
    assert renders == [] and planes == []
    window.docks["qk_space"].raise_()
    qtbot.waitUntil(lambda: len(renders) == 1, timeout=3000)
    assert len(planes) == 1
    want, _ = independent_plane(window.model.matrix("Q"), window.model.matrix("K"))
    assert_same_up_to_sign(np.vstack([panel.plot.q_pts, panel.plot.k_pts]), want)
    window.model.undo_stack.setClean()


def test_a_real_models_induction_head_is_a_session_like_any(qtbot):
    """The shipped model's layer 2 head 1 made the session: 2·L points, and the second "cat" looks for "sat"
    (the token after the first "cat"), as the model's own forward pass weighs it."""
    from explorer.panels.model_view import ModelViewPanel
    model, view = show_panel(qtbot, ModelViewPanel, size=(700, 600))
    qtbot.waitUntil(lambda: model.checkpoints.model is not None, timeout=10_000)
    view.text.setText("the cat sat on the mat the cat sat on the mat")
    view.run()
    model.checkpoints.finish()
    qtbot.waitUntil(lambda: model.checkpoints.latest is not None, timeout=20_000)
    run = model.checkpoints.latest.run
    assert view.open_head(1, 0)
    model.flush()
    panel = QKSpacePanel(model)
    qtbot.addWidget(panel)
    panel.resize(480, 520)
    panel.show()
    qtbot.waitExposed(panel)
    n = len(model.tokens)
    assert len(panel.plot.q_pts) == n and len(panel.plot.k_pts) == n
    tokens = list(model.tokens)
    second_cat = max(i for i, t in enumerate(tokens) if t.strip() == "cat")
    model.set_selection(row=second_cat)
    model.flush()
    QApplication.processEvents()
    keys = panel.partners()[2]
    assert keys[0] == strongest(run.attentions[1, 0][second_cat], 1)[0]
    assert tokens[keys[0]].strip() == "sat"
    model.shutdown()


def test_a_removed_token_while_hovered_and_a_renamed_one(qtbot):
    model, panel = make(qtbot)
    hover(qtbot, panel, "key", DOT)
    model.remove_token(DOT)
    model.flush()
    QApplication.processEvents()
    assert len(panel.plot.k_pts) == 3 and panel.plot.hover is None  # its point is gone: the selected row again
    assert panel.focus() == ("query", CHASE)
    model.rename_token(CAT, "狗")
    model.flush()
    QApplication.processEvents()
    assert "狗" in panel.focus_text.text()  # 追 still looks for the noun, now named 狗
