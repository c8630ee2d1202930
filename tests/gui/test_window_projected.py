"""Projected mode, positions and shuffling driven through the window (issue 5)."""
import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from explorer.core import multi_head_attention, sinusoidal_positions
from explorer.panels.positions import PositionsPanel


def switch_to_projected(qtbot, window):
    controls = window.panels["controls"]
    box = controls.source
    box.setCurrentIndex(box.findData("projected"))
    box.activated.emit(box.currentIndex())
    window.model.flush()


def test_the_source_combo_switches_the_editor_and_keeps_the_numbers(qtbot, window, ui):
    before = window.panels["output"].heatmap.image_array().copy()
    switch_to_projected(qtbot, window)
    editor = window.panels["editor"]
    assert editor.pages.currentIndex() == 1
    assert editor.views["X"].isVisible() and not editor.views["Q"].isVisible()
    assert editor.actions["add_dim_x"].isVisible()
    np.testing.assert_allclose(window.panels["output"].heatmap.image_array(), before, atol=1e-15)
    window.actions["undo"].trigger()
    window.model.flush()
    assert editor.pages.currentIndex() == 0 and window.model.settings.source == "direct"


def test_typing_into_x_and_w_recomputes_everything(qtbot, window, ui):
    switch_to_projected(qtbot, window)
    editor = window.panels["editor"]
    ui.type_into(qtbot, editor.views["X"], 1, 0, "-1.5")
    ui.type_into(qtbot, editor.views["Wk"], 0, 3, "2")
    m = window.model
    m.flush()
    assert m.matrix("X")[1, 0] == -1.5 and m.matrix("Wk")[0, 3] == 2.0
    x = m.matrix("X")
    exp = multi_head_attention(x @ m.matrix("Wq").T, x @ m.matrix("Wk").T, x @ m.matrix("Wv").T, 1,
                               wo=m.matrix("Wo"))
    np.testing.assert_allclose(window.panels["weights"].heatmap.image_array(), exp.weights[0], atol=1e-15)
    np.testing.assert_allclose(editor.tables["derivedK"].value(1, 0), (x @ m.matrix("Wk").T)[1, 0])
    assert not (editor.tables["derivedQ"].flags(editor.tables["derivedQ"].index(0, 0)) & Qt.ItemIsEditable)


def test_positions_toggle_and_heatmap(qtbot, window):
    panel = window.panels["positions"]
    window.docks["positions"].raise_()
    qtbot.waitUntil(panel.isVisible)
    assert not panel.add.isEnabled() and panel.to_projected.isVisibleTo(panel)
    qtbot.mouseClick(panel.to_projected, Qt.LeftButton)
    window.model.flush()
    assert window.model.projected and panel.add.isEnabled()
    np.testing.assert_allclose(panel.heatmap.image_array(), sinusoidal_positions(4, 9), atol=1e-7)
    QApplication.processEvents()
    assert panel.heatmap.plot.getViewBox().height() >= 100  # its rows readable: the low dock scrolls instead
    panel.add.click()
    window.model.flush()
    assert window.model.settings.positions == "sinusoidal"
    np.testing.assert_array_equal(window.model.results.x, window.model.matrix("X") + sinusoidal_positions(4, 9))


def test_shuffle_check_says_equivariant_then_not_with_positions(qtbot, window):
    panel: PositionsPanel = window.panels["positions"]
    window.docks["positions"].raise_()
    qtbot.waitUntil(panel.isVisible)
    qtbot.mouseClick(panel.shuffle, Qt.LeftButton)
    window.model.flush()
    panel.refresh()
    assert "✓ equivariant" in panel.check.text()
    window.actions["undo"].trigger()
    qtbot.mouseClick(panel.to_projected, Qt.LeftButton)
    window.model.flush()
    panel.add.click()
    qtbot.mouseClick(panel.shuffle, Qt.LeftButton)
    window.model.flush()
    panel.refresh()
    assert "✗ not equivariant" in panel.check.text() and "positions" in panel.check.text()


def test_multi_head_preset_from_the_menu(qtbot, window):
    window.actions["preset_multi_head"].trigger()
    m = window.model
    m.flush()
    assert m.projected and m.settings.heads == 2 and len(m.tokens) == 6
    w = m.results.heads.weights
    assert np.argmax(w[0, 3]) == 2 and not np.allclose(w[0], w[1])
