"""The FlashAttention panel (F23): stepping shows the running max m and sum ℓ derived by hand on the demo
猫 追 红色 激光点 (q·k / √3), the last step's O is softmax(S)·V written here, it follows an edit of Q, and it
does nothing while it is a tab behind another."""
import math

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from explorer.panels.flash import FlashAttentionPanel
from tests.gui.panel_helpers import show_panel

R3 = math.sqrt(3)


def reference_output(q, k, v, causal=False):
    """softmax(q·kᵀ/√d)·V from the definition, row by row (masked keys j > i dropped when causal)."""
    out = np.zeros((len(q), v.shape[1]))
    for i in range(len(q)):
        keys = range(i + 1) if causal else range(len(k))
        s = np.array([q[i] @ k[j] / math.sqrt(q.shape[1]) for j in keys])
        e = np.exp(s - s.max())
        out[i] = (e / e.sum()) @ v[list(keys)]
    return out


@pytest.fixture
def shown(qtbot):
    return show_panel(qtbot, FlashAttentionPanel, size=(700, 1000))


def approx(values):
    return pytest.approx(values, rel=1e-14, abs=1e-15)


def test_stepping_block_one_shows_m_and_l_by_hand(shown):
    model, panel = shown
    # B_r = B_c = 2 at L = 4; the demo selects 追 (row 1): block 1 = 猫, 追
    assert (panel.b_r.value(), panel.b_c.value(), panel.block.value()) == (2, 2, 1)
    assert panel.slider.maximum() == 2 and panel.step_label.text() == "step 1 of 2"
    # tile 1, keys 猫 追: 猫 scores (1, 3)/√3, 追 scores (4, 0)/√3
    assert panel.shown("m old") == [-math.inf, -math.inf]
    assert panel.shown("m new") == approx([3 / R3, 4 / R3])
    assert panel.shown("ℓ new") == approx([1 + math.exp(-2 / R3), 1 + math.exp(-4 / R3)])
    assert panel.shown("rescale") == [0.0, 0.0]  # nothing summed yet
    panel.next.click()
    # tile 2, keys 红色 激光点: 猫 (0, 1)/√3, 追 (0, 4)/√3 — neither max rises, factor 1
    assert panel.step_label.text() == "step 2 of 2" and not panel.next.isEnabled()
    assert panel.shown("m new") == approx([3 / R3, 4 / R3])
    assert panel.shown("rescale") == [1.0, 1.0]
    assert panel.shown("ℓ new") == approx([1 + 2 * math.exp(-2 / R3) + math.exp(-3 / R3), 2 + 2 * math.exp(-4 / R3)])
    panel.previous.click()
    assert panel.shown("ℓ new") == approx([1 + math.exp(-2 / R3), 1 + math.exp(-4 / R3)])


def test_in_block_two_the_max_rises_and_the_sum_is_rescaled(shown):
    model, panel = shown
    panel.block.setValue(2)  # 红色 (1, 0, 0.8) and 激光点 (0.3, 0, 2)
    assert panel.slider.value() == 1
    assert panel.shown("m new") == approx([2 / R3, 0.6 / R3])
    assert panel.shown("ℓ new") == approx([1 + math.exp(-2 / R3), 1 + math.exp(-0.6 / R3)])
    panel.slider.setValue(2)
    # 红色: (1.6, 2.8)/√3 raise m to 2.8/√3; 激光点: (4, 2.6)/√3 raise it to 4/√3
    assert panel.shown("m old") == approx([2 / R3, 0.6 / R3])
    assert panel.shown("m new") == approx([2.8 / R3, 4 / R3])
    assert panel.shown("rescale") == approx([math.exp(-0.8 / R3), math.exp(-3.4 / R3)])
    assert panel.shown("ℓ new") == approx([(1 + math.exp(-2 / R3)) * math.exp(-0.8 / R3) + math.exp(-1.2 / R3) + 1,
                                           (1 + math.exp(-0.6 / R3)) * math.exp(-3.4 / R3) + 1 + math.exp(-1.4 / R3)])
    assert "rises in 2 rows" in panel.step_text.text()


def test_the_last_step_is_softmax_times_v(shown):
    model, panel = shown
    want = reference_output(model.matrix("Q"), model.matrix("K"), model.matrix("V"))
    for block in (1, 2):
        panel.block.setValue(block)
        assert "step to the end" in panel.check.text()
        panel.slider.setValue(panel.slider.maximum())
        rows = slice(2 * block - 2, 2 * block)
        np.testing.assert_allclose(panel.current_step().o, want[rows], rtol=0, atol=1e-15)
        np.testing.assert_allclose(panel.o_norm.image_array(), want[rows], rtol=0, atol=1e-15)
        assert "✓" in panel.check.text() and panel.whole_difference < 1e-15
    # Õ / ℓ at the end is the same O
    step = panel.current_step()
    np.testing.assert_allclose(step.o_unnormalised / step.l_new[:, None], step.o, rtol=1e-15)


def test_it_follows_an_edit_of_q(shown):
    model, panel = shown
    panel.next.click()
    assert model.set_cell("Q", 1, 0, 3.0)  # 追 = (3, 0, 0): scores 6/√3 with 猫 and 激光点
    model.flush()
    QApplication.processEvents()
    assert panel.slider.value() == 2  # the step stays where it was
    assert panel.shown("m new")[1] == pytest.approx(6 / R3, rel=1e-14)
    assert panel.shown("ℓ new")[1] == pytest.approx(2 + 2 * math.exp(-6 / R3), rel=1e-14)
    want = reference_output(model.matrix("Q"), model.matrix("K"), model.matrix("V"))
    np.testing.assert_allclose(panel.current_step().o, want[:2], rtol=0, atol=1e-15)


def test_causal_skips_the_tile_above_the_diagonal(shown):
    model, panel = shown
    model.set_param("causal", True)
    model.flush()
    QApplication.processEvents()
    assert panel.block.value() == 1 and panel.slider.maximum() == 1  # 猫, 追 see only 猫, 追: tile 2 skipped
    assert "skipped, never computed" in panel.block_text.text()
    assert panel.overlay.crossed == [1] and panel.overlay.current == 0
    # 猫 sees only itself (1/√3, ℓ = 1); 追 sees 猫 and itself, as without the mask
    assert panel.shown("m new") == approx([1 / R3, 4 / R3])
    assert panel.shown("ℓ new") == approx([1.0, 1 + math.exp(-4 / R3)])
    want = reference_output(model.matrix("Q"), model.matrix("K"), model.matrix("V"), causal=True)
    np.testing.assert_allclose(panel.current_step().o, want[:2], rtol=0, atol=1e-15)
    assert "✓" in panel.check.text()


def test_tile_sizes_and_the_overlay(shown):
    model, panel = shown
    panel.b_c.setValue(1)  # four tiles of one key: four steps
    assert panel.slider.maximum() == 4 and panel.slider.value() == 1
    panel.slider.setValue(3)
    assert panel.overlay.done == [0, 1] and panel.overlay.current == 2 and panel.overlay.ahead == [3]
    assert panel.b_r.maximum() == 4 and panel.b_c.minimum() == 1
    assert "4 cells" not in panel.memory.text() and "has 2 cells" in panel.memory.text()
    assert "not a measurement" in panel.hbm.text() and "N = 4" in panel.hbm.text()


def test_play_runs_to_the_end_and_stops(shown, qtbot):
    model, panel = shown
    panel.b_c.setValue(1)
    panel.timer.setInterval(10)
    panel.play.click()
    assert panel.timer.isActive() and "Pause" in panel.play.text()
    qtbot.waitUntil(lambda: not panel.timer.isActive(), timeout=3000)
    assert panel.slider.value() == 4 and "Play" in panel.play.text()


def test_keys_step(shown, qtbot):
    model, panel = shown
    panel.activateWindow()
    panel.slider.setFocus()
    qtbot.keyClick(panel.slider, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: panel.slider.value() == 2, timeout=2000)
    qtbot.keyClick(panel.slider, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: panel.slider.value() == 1, timeout=2000)


def test_in_the_window_it_waits_behind_its_tab(qtbot, window):
    assert window.actions["view_flash"].shortcut().toString() == "Ctrl+Shift+8"
    assert window.docks["flash"] in window.tabifiedDockWidgets(window.docks["model_view"])
    assert not window.panels.is_built("flash")  # never shown: never built
    window.actions["view_flash"].trigger()
    qtbot.waitUntil(lambda: window.panels.is_built("flash") and window.panels["flash"]._on_screen, timeout=3000)
    panel = window.panels["flash"]
    qtbot.waitUntil(lambda: panel.run is not None, timeout=3000)
    panel.b_c.setValue(1)
    run = panel.run
    panel.play.click()
    assert panel.timer.isActive()
    assert window.docks["flash"].isFloating()  # its tab is too small to read it: it opens floating
    window.docks["flash"].setFloating(False)  # docked back by the person: a tab again
    window.docks["flash"].raise_()
    window.docks["readout"].raise_()
    qtbot.waitUntil(lambda: not panel._on_screen, timeout=3000)
    assert not panel.timer.isActive()  # playing stops behind the tab
    window.model.set_cell("Q", 0, 0, 2.0)
    window.model.flush()
    QApplication.processEvents()
    assert panel.run is run and panel._stale  # behind its tab: nothing recomputed
    window.docks["flash"].raise_()
    qtbot.waitUntil(lambda: panel.run is not run, timeout=3000)
    want = reference_output(window.model.matrix("Q"), window.model.matrix("K"), window.model.matrix("V"))
    np.testing.assert_allclose(panel.whole.output, want, rtol=0, atol=1e-15)


def test_a_lesson_hides_what_it_has_not_revealed(shown):
    model, panel = shown
    model.set_revealed(2)  # ① and ② shown, ③ not yet
    QApplication.processEvents()
    assert panel.o_norm.is_hidden() and panel.o_tilde.is_hidden() and not panel.scores.is_hidden()
    assert "hidden" in panel.check.text() and "✓" not in panel.check.text()
    model.set_revealed(0)
    QApplication.processEvents()
    assert panel.scores.is_hidden() and panel.table.isHidden()
    model.set_revealed(3)
    QApplication.processEvents()
    assert not panel.o_norm.is_hidden() and not panel.scores.is_hidden() and not panel.table.isHidden()


def test_it_follows_the_shown_head_of_grouped_query_attention(qtbot):
    from explorer.core.presets import grouped_query_session

    model, panel = show_panel(qtbot, FlashAttentionPanel, session=grouped_query_session(), size=(700, 1000))
    model.set_selection(head=5)  # 8 query heads of width 2 share 2 K/V heads: head 5 reads K/V head 1
    QApplication.processEvents()
    q, k, v = model.matrix("Q")[:, 10:12], model.matrix("K")[:, 2:4], model.matrix("V")[:, 2:4]
    np.testing.assert_allclose(panel.whole.output, reference_output(q, k, v, causal=True), rtol=0, atol=1e-14)
    assert "head 6" in panel.check.text() or "head 6" in panel._head_words()
