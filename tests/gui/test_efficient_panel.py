"""F18 Efficient attention panel: what it shows on the demo (猫 追 红色 激光点) against hand-derived patterns
and error figures computed here from the chapter's formula, its controls, and its cost while hidden."""
import html
import math
import re
import weakref

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from explorer.core.presets import demo_session, random_session
from explorer.panels.efficient import EfficientPanel
from tests.gui.conftest import open_window
from tests.gui.panel_helpers import show_panel

BAND_CAUSAL = np.array([[1, 0, 0, 0],  # w = 2, causal: itself and the token before
                        [1, 1, 0, 0],
                        [0, 1, 1, 0],
                        [0, 0, 1, 1]], bool)
BAND = np.array([[1, 1, 0, 0],  # w = 2: itself and both neighbours
                 [1, 1, 1, 0],
                 [0, 1, 1, 1],
                 [0, 0, 1, 1]], bool)


def plain(label):
    return html.unescape(re.sub(r"<[^>]+>", "", label.text())).replace("\xa0", " ").replace("\u2009", "")


def demo_reference(keep):
    """The demo head by the chapter's formula: S = QKᵀ/√3, A = softmax by rows over ``keep`` only, O = A·V."""
    s = demo_session()
    q, k, v = (np.asarray(s.matrices[n], dtype=np.float64) for n in "QKV")
    scores = q @ k.T / math.sqrt(3)
    full = np.exp(scores - scores.max(axis=1, keepdims=True))
    exact = full / full.sum(axis=1, keepdims=True)
    cut = np.where(keep, full, 0.0)
    approx = cut / cut.sum(axis=1, keepdims=True)
    return exact, approx, v


@pytest.mark.parametrize("causal", [False, True])
def test_demo_window_two_hatches_the_cells_outside_the_band(qtbot, causal):
    model, panel = show_panel(qtbot, EfficientPanel, size=(1100, 420))
    if causal:
        model.set_param("causal", True)
        model.flush()
    panel.set_mechanism("window", window=2)
    band = BAND_CAUSAL if causal else BAND
    np.testing.assert_array_equal(panel.approx.masked_array(), ~band)
    shown = panel.approx.image_array()
    np.testing.assert_array_equal(shown[~band], 0.0)

    exact, approx, v = demo_reference(band if not causal else band & np.tri(4, dtype=bool))
    if causal:  # the exact ② is causal too: softmax over j ≤ i
        _, exact, _ = demo_reference(np.tri(4, dtype=bool))
    np.testing.assert_allclose(shown, approx, atol=1e-12)
    frob = np.linalg.norm(approx @ v - exact @ v) / np.linalg.norm(exact @ v)
    mass = np.where(band, exact, 0.0).sum(axis=1).mean()
    kl = np.mean([sum(a * math.log(a / e) for a, e in zip(ra, re_) if a > 0) for ra, re_ in zip(approx, exact)])
    assert panel.figures.frobenius == pytest.approx(frob, rel=1e-12)
    assert panel.figures.mass == pytest.approx(mass, rel=1e-12)
    assert panel.figures.kl == pytest.approx(kl, rel=1e-9)
    text = plain(panel.readout)
    cells = int(band.sum())
    assert f"{cells} of 16 cells ({100 * cells / 16:.0f} %)" in text
    assert f"‖O′ − O‖/‖O‖ = {frob:.3g}" in text
    assert f"mean KL(A′‖A) = {kl:.3g} nats (4 rows)" in text
    assert f"exact mass inside = {mass:.3g}" in text
    title = html.unescape(re.sub(r"<[^>]+>", " ", panel.cost.widget.getPlotItem().titleLabel.text))
    assert f"multiply-adds: {cells * 6} vs {16 * 6} at L = 4" in title  # d = d_v = 3


def test_controls_follow_the_mechanism(qtbot):
    model, panel = show_panel(qtbot, EfficientPanel, size=(1100, 420))
    visible = lambda: {n for n, b in panel.boxes.items() if b.isVisible()}  # noqa: E731
    assert visible() == {"window"}
    panel.set_mechanism("global_window")
    assert visible() == {"window", "global_tokens"}
    panel.set_mechanism("fixed", stride=3)
    assert visible() == {"stride", "summary"} and panel.boxes["summary"].maximum() == 3
    panel.set_mechanism("linformer")
    assert visible() == {"rank", "projection", "seed"} and panel.boxes["rank"].maximum() == 4  # k ≤ L
    assert panel.mixed.isVisible() and not panel.approx.isVisible()
    assert "rows are not distributions" in plain(panel.readout)
    assert not panel.notes.isVisible()
    model.set_param("causal", True)
    model.flush()
    assert panel.notes.isVisible() and "Linformer has no causal form" in plain(panel.notes)
    panel.set_mechanism("linear")
    assert visible() == {"phi"} and panel.approx.isVisible()
    panel.set_mechanism("linformer", projection="pooling")
    assert panel.approx.isVisible() and not panel.boxes["seed"].isEnabled()
    assert panel.approx.masked_array() is None  # Linformer keeps no mask, so none is drawn
    panel.set_mechanism("performer", features=16)
    assert visible() == {"features", "seed"} and panel.boxes["seed"].isEnabled() and panel.approx.isVisible()
    assert "φ(q_i)·φ(k_j)" in plain(panel.approx_title) and "Performer" in panel.kind.currentText()
    np.testing.assert_array_equal(panel.approx.masked_array(), ~np.tri(4, dtype=bool))  # causal by running sums
    for name, box in panel.boxes.items():
        assert box.toolTip(), name


@pytest.mark.parametrize("kind", ["linformer", "linear", "performer"])
def test_no_pattern_no_mass_inside(qtbot, kind):
    """Linformer, linear attention and Performer keep no pattern of cells: the exact mass inside one would be 1
    by construction, so it reads "—" and the readout's tooltip says why; a window keeps cells and has a mass."""
    model, panel = show_panel(qtbot, EfficientPanel, size=(1100, 420))
    panel.set_mechanism(kind)
    assert panel.figures.mass is None
    text = plain(panel.readout)
    assert "exact mass inside = —" in text and "exact mass inside = 1" not in text
    assert "keeps no pattern" in panel.readout.toolTip()
    panel.set_mechanism("window", window=2)
    assert "exact mass inside = —" not in plain(panel.readout) and panel.readout.toolTip() == ""


def test_linear_attention_causal_matches_the_masked_formula(qtbot):
    """φ = elu + 1 on the demo, causal: A′ = φ(q_i)·φ(k_j) over j ≤ i, normalised by rows; O′ = A′·V."""
    model, panel = show_panel(qtbot, EfficientPanel, size=(1100, 420))
    model.set_param("causal", True)
    model.flush()
    panel.set_mechanism("linear", phi="elu+1")
    s = demo_session()
    q, k, v = (np.asarray(s.matrices[n], dtype=np.float64) for n in "QKV")
    phi = lambda x: np.where(x > 0, x + 1, np.exp(np.minimum(x, 0)))  # noqa: E731
    sim = np.tril(phi(q) @ phi(k).T)
    a = sim / sim.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(panel.approx.image_array(), a, atol=1e-12)
    np.testing.assert_array_equal(panel.approx.masked_array(), ~np.tri(4, dtype=bool))
    np.testing.assert_allclose(panel.approximation.output, a @ v, atol=1e-12)


def test_linformer_pooling_on_the_demo_by_hand(qtbot):
    """k = 2 on 4 tokens: E = F pool (猫, 追) and (红色, 激光点); P = softmax(Q(EK)ᵀ/√3), A′ = P·F: each row gives
    half of P's first weight to 猫 and 追 and half of its second to 红色 and 激光点."""
    model, panel = show_panel(qtbot, EfficientPanel, size=(1100, 420))
    panel.set_mechanism("linformer", rank=2, projection="pooling")
    s = demo_session()
    q, k, v = (np.asarray(s.matrices[n], dtype=np.float64) for n in "QKV")
    pooled_k = np.stack([k[:2].mean(axis=0), k[2:].mean(axis=0)])
    e = np.exp(q @ pooled_k.T / math.sqrt(3))
    p = e / e.sum(axis=1, keepdims=True)
    a = np.repeat(p / 2, 2, axis=1)
    np.testing.assert_allclose(panel.approx.image_array(), a, atol=1e-12)
    _, exact, _ = demo_reference(np.ones((4, 4), bool))
    kl = np.mean(np.sum(a * np.log(a / exact), axis=1))
    assert panel.figures.kl == pytest.approx(kl, rel=1e-9)
    assert f"mean KL(A′‖A) = {kl:.3g} nats (4 rows)" in plain(panel.readout)


def test_cost_plot_marks_the_sessions_length(qtbot):
    """Window w = 2 (not causal) computes 3L − 2 cells: at L = 8192, (3·8192 − 2)·(d + d_v) multiply-adds."""
    model, panel = show_panel(qtbot, EfficientPanel, session=random_session(64, 8, seed=1), size=(1100, 420))
    panel.set_mechanism("window", window=2)
    lengths, full, mine, here = panel.cost.shown
    assert here == 64 and 64 in lengths and lengths[-1] == 8192
    assert full[-1] == 8192 ** 2 * 16 and mine[-1] == (3 * 8192 - 2) * 16
    x, y = panel.cost.marks.getData()
    np.testing.assert_allclose(2.0 ** x, [64, 64])
    np.testing.assert_allclose(10.0 ** y, [64 * 64 * 16, (3 * 64 - 2) * 16], rtol=1e-12)
    assert panel.cost.line.value() == pytest.approx(6.0)


def test_another_head_is_shown(qtbot):
    model, panel = show_panel(qtbot, EfficientPanel, session=random_session(8, 4, seed=2), size=(1100, 420),
                              heads=2)
    panel.set_mechanism("window", window=8)  # everything: the approximation is the exact head
    model.set_selection(head=1)
    model.flush()
    QApplication.processEvents()
    np.testing.assert_allclose(panel.approx.image_array(), model.results.heads.weights[1], atol=1e-12)
    assert panel.figures.frobenius < 1e-12
    assert "head 2/2" in plain(panel.approx_title)


def test_a_dropped_panel_goes_at_once(qtbot):
    """No reference cycle keeps it for the collector (which, running inside a later paint, crashed a test run)."""
    model, panel = show_panel(qtbot, EfficientPanel, size=(900, 400))
    for kind in ("linformer", "performer", "window"):
        panel.set_mechanism(kind)
    assert panel.approx.tooltip_provider(0, 0).startswith("A′[猫 → 猫]")
    gone = weakref.ref(panel)
    panel.close()
    del panel
    QApplication.processEvents()
    assert gone() is None


def test_costs_nothing_behind_its_tab(qtbot, home, monkeypatch):
    """Behind another tab, edits do not make it draw; brought to the front, it draws once, up to date."""
    window = open_window(qtbot)
    dock = window.docks["efficient"]
    dock.show()
    dock.raise_()
    qtbot.waitUntil(lambda: window.panels.is_built("efficient"), timeout=3000)
    panel = window.panels["efficient"]
    qtbot.waitUntil(lambda: panel.figures is not None, timeout=3000)
    draws = []
    original = EfficientPanel._draw
    monkeypatch.setattr(EfficientPanel, "_draw", lambda self: (draws.append(1), original(self)))
    window.docks["readout"].raise_()
    QApplication.processEvents()
    for value in (0.5, 1.5, 2.5):
        window.model.set_cell("Q", 0, 0, value)
        window.model.flush()
        QApplication.processEvents()
    assert draws == []
    dock.raise_()
    qtbot.waitUntil(lambda: len(draws) == 1, timeout=3000)
    np.testing.assert_array_equal(panel.exact.image_array(), window.model.results.heads.weights[0])
