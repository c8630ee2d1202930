"""F8 split/merge drawing: the shapes and numbers of (L, D) → (H, L, d_h) → concat (→ W_o), following the model."""
import math
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor

from explorer.core.presets import demo_session, grouped_query_session, random_session
from explorer.core.session import Session, Settings
from explorer.panels.split_merge import SplitMergePanel
from explorer.widgets.palette import head_colour
from explorer.widgets.split_merge_canvas import tint
from tests.gui.panel_helpers import show_panel


def reference_heads(q, k, v, n_heads):
    """(H, L, d_v/H) head outputs from the definition, in plain Python, independent of explorer.core:
    head h owns columns h·d_h … (h+1)·d_h − 1; o_i = Σ_j softmax_j(q_i·k_j / √d_h) v_j over every key j."""
    q, k, v = (np.asarray(m, float).tolist() for m in (q, k, v))
    dh, dvh = len(q[0]) // n_heads, len(v[0]) // n_heads
    out = []
    for h in range(n_heads):
        qc, vc = range(h * dh, (h + 1) * dh), range(h * dvh, (h + 1) * dvh)
        rows = []
        for i in range(len(q)):
            s = [sum(q[i][c] * k[j][c] for c in qc) / math.sqrt(dh) for j in range(len(k))]
            e = [math.exp(x - max(s)) for x in s]
            rows.append([sum(e[j] * v[j][c] for j in range(len(v))) / sum(e) for c in vc])
        out.append(rows)
    return np.array(out)


def reference_concat(heads_out):
    """(H, L, d) → (L, H·d): row i is head 0's row i, then head 1's, … (written out, not reshaped)."""
    return np.array([[x for head in heads_out for x in head[i]] for i in range(len(heads_out[0]))])


def hand_session():
    """3 tokens, D = 4, 2 heads; K = 0 so every score is 0 and, with the causal mask, row i is the
    plain mean of V's rows 0…i — every expected number below is worked out by hand from this."""
    q = np.arange(1.0, 13.0).reshape(3, 4)  # [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
    k = np.zeros((3, 4))
    v = np.array([[6.0, 0.0, 3.0, 12.0], [0.0, 6.0, 3.0, 0.0], [3.0, 3.0, 0.0, 6.0]])
    return Session(tokens=("a", "b", "c"), matrices={"Q": q, "K": k, "V": v},
                   settings=Settings(causal=True, heads=2), title="hand-made")


def make(qtbot, session=None, heads=None, size=(800, 500)):
    return show_panel(qtbot, SplitMergePanel, session=session, size=size, heads=heads)


def with_wo(model, panel, wo):
    """Projected mode's output projection, stood in for: the results' output becomes concat · W_oᵀ."""
    r = model.results
    wo = np.asarray(wo, float)
    model.results = replace(r, heads=replace(r.heads, output=r.heads.concat @ wo.T), wo=wo)
    panel.refresh()


def test_demo_three_heads_shapes_numbers_and_colours(qtbot):
    model, panel = make(qtbot, heads=3)
    r = model.results
    assert panel.blocks() == [("Q", (4, 3)), ("Q heads", (3, 4, 1)), ("head outputs", (3, 4, 1)), ("concat", (4, 3))]
    assert panel.numbers_shown is True
    assert panel.has_wo is False
    q = [[0.5, 1.5, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.8], [0.3, 0.0, 2.0]]  # the demo's Q
    np.testing.assert_array_equal(panel.values("Q"), q)
    # d_h = 1: head h is column h of Q
    np.testing.assert_array_equal(panel.values("Q heads"), [[[0.5], [2.0], [1.0], [0.3]],
                                                            [[1.5], [0.0], [0.0], [0.0]],
                                                            [[0.0], [0.0], [0.8], [2.0]]])
    k = [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [2.0, 0.0, 1.0]]
    v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.3, 0.8]]
    heads_out = reference_heads(q, k, v, 3)
    np.testing.assert_allclose(panel.values("head outputs"), heads_out, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(panel.values("concat"), reference_concat(heads_out), rtol=1e-12, atol=1e-15)
    colours = panel.head_colours()
    assert colours == [head_colour(h).name() for h in range(3)]
    assert len(set(colours)) == 3
    assert panel.column_colours("Q") == colours  # d_h = 1: column c belongs to head c
    assert panel.column_colours("concat") == colours
    names = [a[0] for a in panel.arrows()]
    assert names == ["split_heads", "attention", "merge_heads"]
    assert "(L, D) → (H, L, d_h)" in panel.arrows()[0]
    assert any("1/√1" in line for line in panel.arrows()[1])
    assert panel.canvas.stage("concat").note == "concat = output (no W_o)"
    assert "(L, D) → (H, L, d_h)" in panel.caption.text()


def test_shapes_follow_the_heads_count(qtbot):
    model, panel = make(qtbot, random_session(6, 8, seed=1), heads=2)
    assert panel.blocks() == [("Q", (6, 8)), ("Q heads", (2, 6, 4)), ("head outputs", (2, 6, 4)), ("concat", (6, 8))]
    c = panel.head_colours()
    assert panel.column_colours("Q") == [c[0]] * 4 + [c[1]] * 4
    model.set_param("heads", 4)
    model.flush()
    assert panel.blocks() == [("Q", (6, 8)), ("Q heads", (4, 6, 2)), ("head outputs", (4, 6, 2)), ("concat", (6, 8))]
    c = panel.head_colours()
    assert panel.column_colours("concat") == [c[0], c[0], c[1], c[1], c[2], c[2], c[3], c[3]]
    q, k, v = (random_session(6, 8, seed=1).matrices[n] for n in "QKV")
    got = panel.values("Q heads")
    for h in range(4):  # head h owns columns 2h and 2h + 1
        np.testing.assert_array_equal(got[h], q[:, [2 * h, 2 * h + 1]])
    np.testing.assert_allclose(panel.values("head outputs"), reference_heads(q, k, v, 4),
                               rtol=1e-10, atol=1e-12)
    assert panel.canvas.stage("Q heads").shape_text == "(H=4, L=6, d_h=2)"


def test_edits_redraw_the_numbers(qtbot):
    model, panel = make(qtbot, heads=3)
    model.set_cell("Q", 1, 2, 1.25)
    model.flush()
    assert panel.values("Q heads")[2, 1, 0] == 1.25
    s = demo_session()
    q = np.array(s.matrices["Q"])
    q[1, 2] = 1.25
    want = reference_concat(reference_heads(q, s.matrices["K"], s.matrices["V"], 3))
    np.testing.assert_allclose(panel.values("concat"), want, rtol=1e-12, atol=1e-15)


def test_hand_made_split_and_merge(qtbot):
    """A 3×4 Q cut into 2 heads, and the outputs of K = 0 under the causal mask, written out by hand."""
    model, panel = make(qtbot, hand_session())
    assert panel.blocks() == [("Q", (3, 4)), ("Q heads", (2, 3, 2)), ("head outputs", (2, 3, 2)), ("concat", (3, 4))]
    np.testing.assert_array_equal(panel.values("Q heads"), [[[1, 2], [5, 6], [9, 10]],
                                                            [[3, 4], [7, 8], [11, 12]]])
    # row 0 = v0; row 1 = (v0 + v1) / 2; row 2 = (v0 + v1 + v2) / 3 — head 0 on columns 0-1, head 1 on 2-3
    np.testing.assert_allclose(panel.values("head outputs"), [[[6, 0], [3, 3], [3, 3]],
                                                              [[3, 12], [3, 6], [2, 6]]], rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(panel.values("concat"), [[6, 0, 3, 12], [3, 3, 3, 6], [3, 3, 2, 6]],
                               rtol=1e-15, atol=1e-15)
    model.set_cell("Q", 2, 3, -1.5)  # Q[2, 3] is head 1, row 2, column 1
    model.flush()
    np.testing.assert_array_equal(panel.values("Q heads")[1], [[3, 4], [7, 8], [11, -1.5]])


def test_long_sequences_are_drawn_as_blocks(qtbot):
    model, panel = make(qtbot, random_session(64, 8, seed=1), heads=4)
    assert panel.numbers_shown is False
    assert panel.blocks()[1] == ("Q heads", (4, 64, 2))
    model2, panel2 = make(qtbot, random_session(6, 24, seed=1), heads=3)  # D > 12: blocks too
    assert panel2.numbers_shown is False


def test_block_colours_on_screen_are_the_heads_colours(qtbot, ui):
    model, panel = make(qtbot, random_session(64, 8, seed=1), heads=4)
    canvas = panel.canvas
    rgb, dpr = ui.grab_rgb(canvas)
    body = canvas.body_rect("Q")
    colours = panel.column_colours("Q")
    for j in (0, 3, 4, 7):  # one column of each band: head j // 2
        x = body.left() + (j + 0.5) * body.width() / 8
        y = body.center().y()
        got = rgb[int(y * dpr), int(x * dpr)].astype(int)
        want = QColor(colours[j])
        assert np.abs(got - [want.red(), want.green(), want.blue()]).max() <= 3, (j, got, colours[j])


def test_numbered_cells_are_tinted_with_their_heads_colour(qtbot, ui):
    model, panel = make(qtbot, heads=3)
    canvas = panel.canvas
    rgb, dpr = ui.grab_rgb(canvas)
    body = canvas.body_rect("concat")
    band = canvas._geo["band"]
    cw = canvas._geo["cw"] * canvas.zoom
    for j in range(3):  # a corner of the first cell of each column, away from its number
        x, y = body.left() + j * cw + 3, body.top() + band * canvas.zoom + 3
        got = rgb[int(y * dpr), int(x * dpr)].astype(int)
        want = tint(head_colour(j))
        assert np.abs(got - [want.red(), want.green(), want.blue()]).max() <= 3, (j, got)


def test_a_projection_adds_the_wo_step(qtbot):
    model, panel = make(qtbot, heads=3)
    wo = np.arange(6, dtype=float).reshape(2, 3) / 10  # (D_out = 2, d_v = 3)
    with_wo(model, panel, wo)
    assert panel.has_wo is True
    assert panel.blocks()[-1] == ("output", (4, 2))
    assert panel.arrows()[-1][0] == "· W_oᵀ"
    np.testing.assert_allclose(panel.values("output"), model.results.heads.concat @ wo.T)
    assert panel.canvas.stage("concat").note == ""
    assert "W_o" in panel.caption.text()
    # a square W_o that changes the values is shown too
    with_wo(model, panel, 2 * np.eye(3))
    assert panel.has_wo is True and panel.blocks()[-1] == ("output", (4, 3))
    # projected mode always has the W_o step, even while it is the identity
    with_wo(model, panel, np.eye(3))
    assert panel.has_wo is True and panel.blocks()[-1] == ("output", (4, 3))


def test_outputs_wait_for_the_lesson(qtbot):
    model, panel = make(qtbot, heads=3)
    model.set_revealed(2)
    model.flush()
    assert panel.canvas.stage("head outputs").hidden and panel.canvas.stage("concat").hidden
    assert not panel.canvas.stage("Q heads").hidden
    assert "hidden" in panel.caption.text()
    model.set_revealed(3)
    model.flush()
    assert not panel.canvas.stage("head outputs").hidden


@pytest.mark.parametrize("session, heads", [(demo_session, 3), (demo_session, 1),
                                            (lambda: random_session(6, 8, seed=1), 2),
                                            (lambda: random_session(6, 8, seed=1), 8),
                                            (lambda: random_session(64, 48, seed=2), 12)])
@pytest.mark.parametrize("size", [(800, 500), (1200, 400), (450, 700), (420, 260)])
def test_everything_is_inside_the_panel(qtbot, session, heads, size):
    model, panel = make(qtbot, session(), heads=heads, size=size)
    canvas = panel.canvas
    area = QRectF(canvas.rect()).adjusted(-0.5, -0.5, 0.5, 0.5)
    for label, _ in panel.blocks():
        assert area.contains(canvas.body_rect(label)), (label, canvas.body_rect(label), area)
        assert area.contains(canvas.under_rect(label)), (label, canvas.under_rect(label), area)


# ----- grouped K/V heads (GQA, MQA): K/V heads drawn as their own stack -------------------------------
def test_grouped_query_draws_the_kv_heads_as_their_own_stack(qtbot):
    """8 query heads share 2 K/V heads: a stack of 2 blocks, K's columns 0–1 and 2–3 (d_h = 2); query heads
    1–4 read K/V head 1 and 5–8 K/V head 2 (repeat_kv order), so they carry its colour."""
    session = grouped_query_session()
    model, panel = make(qtbot, session, size=(900, 600))
    assert panel.blocks() == [("Q", (6, 16)), ("Q heads", (8, 6, 2)), ("K/V heads", (2, 6, 2)),
                              ("head outputs", (8, 6, 2)), ("concat", (6, 16))]
    k = session.matrices["K"]
    np.testing.assert_array_equal(panel.values("K/V heads"), [k[:, 0:2], k[:, 2:4]])
    first, second = head_colour(0).name(), head_colour(1).name()
    assert panel.block_colours("K/V heads") == [first, second]
    assert panel.block_colours("Q heads") == [first] * 4 + [second] * 4
    assert panel.block_colours("head outputs") == [first] * 4 + [second] * 4
    assert panel.column_colours("Q") == [first] * 8 + [second] * 8
    assert panel.canvas.stage("K/V heads").note == "read by heads 1–4 | 5–8"


def test_multi_query_has_one_kv_head_and_multi_head_none_of_its_own(qtbot):
    model, panel = make(qtbot, grouped_query_session(length=4, heads=4, kv_heads=1), size=(900, 600))
    assert ("K/V heads", (1, 4, 2)) in panel.blocks()
    assert panel.canvas.stage("K/V heads").note == "read by heads 1–4"
    assert panel.block_colours("Q heads") == [head_colour(0).name()] * 4
    model.set_param("kv_heads", 4)  # a K/V head per query head: ordinary multi-head attention
    model.flush()
    assert [label for label, _ in panel.blocks()] == ["Q", "Q heads", "head outputs", "concat"]
    assert panel.block_colours("Q heads") == [head_colour(h).name() for h in range(4)]


@pytest.mark.parametrize("size", [(900, 600), (576, 299), (1300, 330), (402, 163)])
@pytest.mark.parametrize("heads, kv", [(4, 2), (8, 2), (4, 1), (32, 8)])
def test_grouped_stacks_are_inside_the_panel_and_apart(qtbot, size, heads, kv):
    model, panel = make(qtbot, grouped_query_session(length=4, heads=heads, kv_heads=kv), size=size)
    canvas = panel.canvas
    area = QRectF(canvas.rect()).adjusted(-0.5, -0.5, 0.5, 0.5)
    bodies = {label: canvas.body_rect(label) for label, _ in panel.blocks()}
    for label, body in bodies.items():
        assert area.contains(body) and area.contains(canvas.under_rect(label)), (label, body, area)
    for a in bodies:
        for b in bodies:
            if a < b:
                assert not bodies[a].intersects(bodies[b]), (a, b, bodies[a], bodies[b])
    if size == (900, 600) and heads == 4:
        assert panel.numbers_shown  # small enough to print: the K/V blocks with their numbers too


def test_projected_q_is_labelled_with_its_projected_width_d(qtbot):
    """Projected, Q = X·W_qᵀ has the projected width d, not X's model width D: the demo's 3 heads switched to
    projected make X = [Q | K | V] (4 × 9: D = 9) and W_q 3 × 9, so Q is (L = 4, d = 3)."""
    model, panel = make(qtbot, heads=3)
    assert panel.canvas.stage("Q").shape_text == "(L=4, D=3)"  # direct: Q's width is the model width
    model.set_param("source", "projected")
    model.flush()
    assert model.matrix("X").shape == (4, 9)
    assert panel.canvas.stage("Q").shape_text == "(L=4, d=3)"
    assert "(L, d) → (H, L, d_h)" in panel.arrows()[0]
    assert "(L, d) → (H, L, d_h)" in panel.caption.text() and "Q's d = 3 columns" in panel.caption.text()
    assert "D = 3" not in panel.caption.text()
