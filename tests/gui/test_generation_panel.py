"""Generation · KV cache: step through a decode of the session's own numbers."""
import math

import numpy as np
from PySide6.QtCore import Qt

from explorer.core.presets import demo_session
from explorer.panels.generation import GenerationPanel
from tests.gui.panel_helpers import show_panel


def causal_row(q, k, v, i):
    """Row i of one-head causal attention on the demo, from the definition."""
    s = np.array([q[i] @ k[j] / math.sqrt(q.shape[1]) for j in range(i + 1)])
    w = np.exp(s - s.max())
    w /= w.sum()
    return w, w @ v[:i + 1]


def test_starts_with_every_token_decoded_and_checks_the_equivalence(qtbot):
    model, panel = show_panel(qtbot, GenerationPanel, size=(900, 800))
    assert panel.t() == 4 and panel.slider.value() == 4
    assert "t = 4 of 4" in panel.caption.text() and "✓" in panel.equivalence.text()
    assert panel.causal_note.isVisible()  # the demo has no causal mask; the decode is causal anyway
    q, k, v = (demo_session().matrices[n] for n in "QKV")
    w, o = causal_row(q, k, v, 3)
    np.testing.assert_allclose(panel.weights._values[3], w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(panel.output._values[0], o, rtol=0, atol=1e-12)
    assert panel.weights._masked[0, 1:].all() and not panel.weights._masked[3].any()  # the future is greyed


def test_a_step_back_is_one_undo_step_and_recomputes_nothing(qtbot):
    model, panel = show_panel(qtbot, GenerationPanel, size=(900, 800))
    results = model.results
    qtbot.mouseClick(panel.back, Qt.MouseButton.LeftButton)
    model.flush()
    assert model.settings.decode_t == 3 and model.undo_stack.count() == 1
    assert model.results is results  # the decode step is not an input of the attention
    assert panel.k_cache._values.shape == (3, 3) and "t = 3 of 4" in panel.caption.text()
    np.testing.assert_array_equal(panel.k_cache._values, demo_session().matrices["K"][:3])
    model.undo_stack.undo()
    model.flush()
    assert model.settings.decode_t == 0 and panel.t() == 4


def test_the_panel_follows_an_edit_of_any_cell(qtbot):
    model, panel = show_panel(qtbot, GenerationPanel, size=(900, 800))
    panel.go(2)
    model.set_cell("K", 0, 1, 3.0)
    model.flush()
    q, k, v = (model.matrix(n).copy() for n in "QKV")
    w, o = causal_row(q, k, v, 1)
    np.testing.assert_allclose(panel.weights._values[1, :2], w, rtol=0, atol=1e-12)
    assert panel.weights._masked[2:].all()  # rows not decoded yet are greyed
    np.testing.assert_allclose(panel.output._values[0], o, rtol=0, atol=1e-12)
    assert "✓" in panel.equivalence.text()


def test_one_click_turns_the_causal_mask_on(qtbot):
    model, panel = show_panel(qtbot, GenerationPanel, size=(900, 800))
    qtbot.mouseClick(panel.causal_on, Qt.MouseButton.LeftButton)
    model.flush()
    assert model.settings.causal and not panel.causal_note.isVisible()


def test_play_decodes_from_the_prefill_to_the_end(qtbot):
    model, panel = show_panel(qtbot, GenerationPanel, size=(900, 800))
    panel.speed.setCurrentIndex(panel.speed.count() - 1)  # the fastest
    panel.play.setChecked(True)
    model.flush()
    assert panel.t() == 1  # back to the prefill first
    qtbot.waitUntil(lambda: not panel.play.isChecked(), timeout=5000)
    assert panel.t() == 4


def test_the_prefill_is_a_setting_and_bounds_the_steps(qtbot):
    model, panel = show_panel(qtbot, GenerationPanel, size=(900, 800))
    panel.prefill.setValue(3)
    model.flush()
    assert model.settings.decode_prefill == 3 and panel.slider.minimum() == 3
    panel.go(1)  # cannot go below the prefill
    model.flush()
    assert panel.t() == 3 and "prefill" in panel.caption.text()


def test_a_cell_edited_in_place_is_decoded_anew(qtbot):
    """Small edits update the results in place (the same object): the panel must not keep its decode."""
    model, panel = show_panel(qtbot, GenerationPanel, size=(900, 800))
    results = model.results
    model.set_cell("Q", 3, 0, -2.0)
    model.flush()
    assert model.results is results  # updated in place
    q, k, v = (model.matrix(n).copy() for n in "QKV")
    w, o = causal_row(q, k, v, 3)
    np.testing.assert_allclose(panel.output._values[0], o, rtol=0, atol=1e-12)
    np.testing.assert_allclose(panel.weights._values[3], w, rtol=0, atol=1e-12)


def test_one_play_run_is_one_undo_step(qtbot):
    model, panel = show_panel(qtbot, GenerationPanel, size=(900, 800))
    panel.go(2)
    assert model.undo_stack.count() == 1
    panel.speed.setCurrentIndex(panel.speed.count() - 1)
    panel.play.setChecked(True)  # from the prefill to the end: t = 1, 2, 3, 4
    qtbot.waitUntil(lambda: not panel.play.isChecked(), timeout=5000)
    assert model.undo_stack.count() == 2 and panel.t() == 4
    model.undo_stack.undo()
    assert panel.t() == 2  # back to before the run, in one step


def test_the_explanations_fold_to_one_line_and_open_on_a_click(qtbot):
    model, panel = show_panel(qtbot, GenerationPanel, size=(562, 800))
    for details in (panel.trap, panel.causal_note):
        assert details.isVisible() and not details.body.isVisible()  # one line until asked
        qtbot.mouseClick(details.summary, Qt.MouseButton.LeftButton)
        assert details.is_open() and details.body.isVisible()
    assert "is_causal=True" in panel.trap.text() and "top-left" in panel.trap.text()


def test_the_step_controls_wrap_in_a_narrow_dock(qtbot):
    model, panel = show_panel(qtbot, GenerationPanel, size=(900, 800))
    assert not panel.bar.stacked() and panel.back.y() == panel.slider.y()
    panel.resize(390, 800)  # the 1024 × 640 window's dock
    qtbot.waitUntil(lambda: panel.bar.stacked() and panel.slider.y() > panel.back.y())
    assert panel.width() == 390 and panel.prefill.geometry().right() < panel.bar.width()
    assert len({h.x() for h in panel.heatmaps()}) == 1  # one heatmap under another
