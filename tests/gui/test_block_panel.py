"""F17 the Transformer block panel: what its chain of heatmaps and its plot show, checked against numbers worked
out by hand and against the TransformerEncoderLayer reference of tests/core/block_reference.py."""
import math

import numpy as np
from PySide6.QtWidgets import QApplication

from explorer.core.block import BlockSettings, block_weights
from explorer.core.presets import demo_session, translation_session
from explorer.core.session import Session, Settings
from explorer.panels.block import BlockPanel
from tests.core import block_reference as ref
from tests.gui.panel_helpers import show_panel

TIGHT = dict(rtol=1e-12, atol=1e-12)


def hand_session():
    """X = [[1, 3], [3, 1]], W_q = W_k = 0 (every score 0: each token takes the mean of the V rows), W_v = W_o = I:
    attention gives every token the mean of its input's rows."""
    zero, eye = np.zeros((2, 2)), np.eye(2)
    mats = {"Q": zero, "K": zero, "V": np.array([[1.0, 3.0], [3.0, 1.0]]), "X": np.array([[1.0, 3.0], [3.0, 1.0]]),
            "Wq": zero, "Wk": zero, "Wv": eye, "Wo": eye}
    return Session(tokens=("a", "b"), matrices=mats, settings=Settings(source="projected"), title="hand")


def random_session(seed=3, length=5, width=8, heads=2, causal=True):
    rng = np.random.default_rng(seed)
    mats = {"X": rng.standard_normal((length, width)),
            **{n: rng.standard_normal((width, width)) / math.sqrt(width) for n in ("Wq", "Wk", "Wv", "Wo")}}
    mats.update(Q=mats["X"] @ mats["Wq"].T, K=mats["X"] @ mats["Wk"].T, V=mats["X"] @ mats["Wv"].T)
    return Session(tokens=tuple(f"t{i}" for i in range(length)), matrices=mats,
                   settings=Settings(source="projected", heads=heads, causal=causal), title="random")


def shown(panel, key):
    """The matrix the node ``key``'s heatmap shows (its image), found by the node's place in the chain."""
    stack, _ = panel.view.result()
    index = [node.key for node in stack.first.nodes].index(key)
    return panel.maps[index].image_array()


def choose(box, value):
    box.setCurrentIndex(box.findData(value))
    box.activated.emit(box.currentIndex())
    QApplication.processEvents()


def test_post_ln_attention_and_first_residual_by_hand(qtbot):
    model, panel = show_panel(qtbot, BlockPanel, hand_session(), size=(900, 700))
    choose(panel.placement, "post")
    assert "Post-LN" in panel.formula.text()
    np.testing.assert_allclose(shown(panel, "x"), [[1, 3], [3, 1]], **TIGHT)
    np.testing.assert_allclose(shown(panel, "attn"), [[2, 2], [2, 2]], **TIGHT)  # the mean of the two rows
    np.testing.assert_allclose(shown(panel, "sum1"), [[3, 5], [5, 3]], **TIGHT)
    assert [c.text().split("</b>")[0] for c in panel.captions][:3] == [
        "<b>x — the residual stream in", "↓ <b>Attn(x) — tokens talk along L (交流)",
        "↓ <b>x + Attn — 存款 into the residual stream"]
    assert "mean ‖row‖ = 3.16)" in panel.captions[0].text()  # ‖(1, 3)‖ = √10
    assert "(2×8" in panel.captions[4].text()  # the FFN's hidden layer is F = 4·D = 8 wide


def test_pre_ln_attention_by_hand(qtbot):
    """Pre-LN: attention reads LayerNorm₁(x) = ±(−1, 1)/√(1 + eps)·γ + β, whose two rows average to β."""
    model, panel = show_panel(qtbot, BlockPanel, hand_session(), size=(900, 700))
    beta = block_weights(2, BlockSettings()).bias1  # the block's own seeded β (an input, not a result)
    gamma = block_weights(2, BlockSettings()).gain1
    s = math.sqrt(1 + 1e-5)
    np.testing.assert_allclose(shown(panel, "norm1"), [[-gamma[0] / s + beta[0], gamma[1] / s + beta[1]],
                                                       [gamma[0] / s + beta[0], -gamma[1] / s + beta[1]]], **TIGHT)
    np.testing.assert_allclose(shown(panel, "attn"), [beta, beta], **TIGHT)
    np.testing.assert_allclose(shown(panel, "h"), [[1 + beta[0], 3 + beta[1]], [3 + beta[0], 1 + beta[1]]], **TIGHT)


def test_output_and_residual_norms_equal_the_torch_reference(qtbot):
    session = random_session()
    model, panel = show_panel(qtbot, BlockPanel, session, size=(900, 700))
    panel.blocks.setValue(3)
    choose(panel.activation, "relu")
    for placement in ("pre", "post"):
        choose(panel.placement, placement)
        w = block_weights(8, BlockSettings(activation="relu"))
        m = session.matrices
        p = ref.torch_parameters(m, w)
        x, means = m["X"], [np.linalg.norm(m["X"], axis=1).mean()]
        for n in range(3):
            x = ref.torch_encoder_layer(x, p, norm_first=placement == "pre", activation="relu", n_heads=2,
                                        causal=True, eps=1e-5)
            if n == 0:
                np.testing.assert_allclose(shown(panel, "out"), x, **TIGHT)
            means.append(np.linalg.norm(x, axis=1).mean())
        xs, ys = panel.curve.getData()
        np.testing.assert_array_equal(xs, [0, 1, 2, 3])
        np.testing.assert_allclose(ys, means, **TIGHT)


def test_block_settings_are_no_edit_of_the_session(qtbot):
    model, panel = show_panel(qtbot, BlockPanel, random_session(), size=(900, 700))
    before = model.undo_stack.count(), model.to_session()
    first = shown(panel, "out").copy()
    choose(panel.norm, "rmsnorm")
    choose(panel.activation, "swiglu")
    panel.seed.setValue(5)
    assert panel.view.settings == BlockSettings(norm="rmsnorm", activation="swiglu", seed=5)
    assert "RMSNorm₁(x)" in panel.captions[1].text() and "SwiGLU" in panel.captions[5].text()
    assert not np.allclose(shown(panel, "out"), first)
    assert (model.undo_stack.count(), model.to_session()) == before


def test_an_edit_of_x_reaches_the_block(qtbot):
    model, panel = show_panel(qtbot, BlockPanel, hand_session(), size=(900, 700))
    model.set_cell("X", 0, 0, 5.0)
    model.flush()
    QApplication.processEvents()
    np.testing.assert_array_equal(shown(panel, "x"), [[5, 3], [3, 1]])


def test_direct_mode_offers_to_switch_in_one_undo_step(qtbot):
    model, panel = show_panel(qtbot, BlockPanel, demo_session(), size=(900, 700))
    assert panel.note.isVisible() and "projected mode" in panel.note.text()
    assert panel.make_ready.isVisible() and panel.make_ready.text() == "Switch to projected mode"
    assert not panel.chain.isVisible()
    steps = model.undo_stack.count()
    panel.make_ready.click()
    model.flush()
    QApplication.processEvents()
    assert model.projected and model.undo_stack.count() == steps + 1
    x = model.matrix("X")
    assert x.shape == (4, 9) and model.matrix("Wo").shape == (9, 3)
    np.testing.assert_array_equal(model.matrix("Wo")[6:], np.eye(3))  # the old W_o = I in the last rows
    np.testing.assert_array_equal(model.matrix("Wo")[:6], 0)
    assert panel.chain.isVisible() and not panel.note.isVisible()
    np.testing.assert_array_equal(shown(panel, "x"), x)
    model.undo_stack.undo()
    model.flush()
    QApplication.processEvents()
    assert not model.projected and panel.note.isVisible()


def test_cross_attention_is_refused_without_a_button(qtbot):
    model, panel = show_panel(qtbot, BlockPanel, translation_session(), size=(900, 700))
    model.set_param("source", "projected")
    model.flush()
    QApplication.processEvents()
    assert "cross-attention" in panel.note.text() and not panel.make_ready.isVisible()


def test_the_dock_waits_behind_its_tab_then_opens_from_the_view_menu(qtbot, window):
    assert not window.panels.is_built("block")
    window.actions["view_block"].trigger()
    qtbot.waitUntil(lambda: window.panels.is_built("block"), timeout=3000)
    panel = window.panels["block"]
    qtbot.waitUntil(panel.isVisible, timeout=3000)
    assert window.actions["view_block"].shortcut().toString() == "Ctrl+Shift+6"
    assert panel.note.isVisible()  # the demo edits Q, K, V directly
