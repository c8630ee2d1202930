"""The heatmaps as a person reads them (hover, click) and the dock layout (View menu, persistence)."""
import re

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QToolTip

from explorer.widgets.number_text import format_number
from tests.gui.same_numbers import assert_same_numbers


def test_score_tooltip_names_the_dot_product_and_the_scale(qtbot, window):
    scores = window.panels["scores"]
    window.model.flush()
    q, k = window.model.matrix("Q"), window.model.matrix("K")
    text = scores.tooltip(1, 3)
    assert "score[追 → 激光点]" in text
    # names the pair (by index, q_1·k_3, or by token, q(追) · k(激光点)) and its dot product
    pair = re.search(r"q(_1|\(追\))\s*·\s*k(_3|\(激光点\)) = (\S+)", text)
    assert pair and pair.group(3) == format_number(float(q[1] @ k[3])), text
    assert f"× scale {format_number(1 / np.sqrt(3))}" in text
    assert f"= {format_number(float(q[1] @ k[3]) / np.sqrt(3))}" in text
    weights = window.panels["weights"]
    assert weights.tooltip(1, 3).startswith("weight[追 → 激光点] = ")

    QToolTip.hideText()
    heatmap = scores.heatmap
    with qtbot.waitSignal(heatmap.cellHovered, timeout=2000) as hovered:
        qtbot.mouseMove(heatmap.viewport(), heatmap.cell_center(1, 3).toPoint())
    assert hovered.args == [1, 3]
    qtbot.waitUntil(lambda: QToolTip.text() == text, timeout=2000)
    QToolTip.hideText()


def test_tooltip_tells_temperature_and_mask(qtbot, window):
    window.model.set_param("temperature", 2.0)
    window.model.set_param("causal", True)
    window.model.flush()
    scores = window.panels["scores"]
    assert "÷ temperature 2" in scores.tooltip(2, 1)
    assert "masked" not in scores.tooltip(2, 1)
    assert "masked" in scores.tooltip(1, 2)
    assert "masked" in window.panels["weights"].tooltip(1, 2)
    QToolTip.hideText()
    with qtbot.waitSignal(scores.heatmap.cellHovered, timeout=2000):
        qtbot.mouseMove(scores.heatmap.viewport(), scores.heatmap.cell_center(0, 3).toPoint())
    qtbot.waitUntil(lambda: "masked" in QToolTip.text(), timeout=2000)
    QToolTip.hideText()


def test_clicking_a_heatmap_row_selects_that_query_everywhere(qtbot, window, ui):
    controls = window.panels["controls"]
    assert window.model.settings.selected_row == 1 and controls.row.currentIndex() == 1
    weights = window.panels["weights"].heatmap
    before, dpr = ui.grab_rgb(weights)
    heat = window.panels["scores"].heatmap
    qtbot.mouseClick(heat.viewport(), Qt.MouseButton.LeftButton, pos=heat.cell_center(3, 0).toPoint())
    window.model.flush()
    assert window.model.settings.selected_row == 3
    assert controls.row.currentIndex() == 3 and controls.row.currentText() == "3: 激光点"
    # the weights heatmap moved its row outline from row 1 to row 3 (only pixels there changed)
    after, _ = ui.grab_rgb(weights)
    changed = np.argwhere(np.any(before != after, axis=2))[:, 0] / dpr
    assert len(changed)
    half = (weights.cell_center(1, 0).y() - weights.cell_center(0, 0).y()) / 2
    near = [abs(changed - weights.cell_center(r, 0).y()) <= half + 3 for r in (1, 3)]
    assert near[0].any() and near[1].any() and np.all(near[0] | near[1])
    # selecting is not an edit: nothing to undo, nothing to save
    assert window.model.undo_stack.count() == 0 and not window.isWindowModified()


def test_choosing_a_row_in_the_controls_combo(qtbot, window):
    controls = window.panels["controls"]
    qtbot.keyClick(controls.row, Qt.Key.Key_Up)
    assert window.model.settings.selected_row == 0


# ----- the View menu and the layout ------------------------------------------------------------
def test_view_menu_toggles_each_dock_and_reset_layout_brings_them_back(qtbot, window):
    for name, dock in window.docks.items():
        toggle = window.actions[f"view_{name}"]
        assert toggle.isChecked() and dock.isVisible()
        dock.raise_()  # in front: choosing a tab behind another brings it forward instead (issue 14, item 8)
        QApplication.processEvents()
        toggle.trigger()
        assert dock.isHidden() and not toggle.isChecked()
        toggle.trigger()
        assert dock.isVisible() and toggle.isChecked()
    for name in ("controls", "output", "weights"):
        window.actions[f"view_{name}"].trigger()
    window.docks["scores"].setFloating(True)
    assert window.docks["output"].isHidden()
    window.actions["reset_layout"].trigger()
    for name, dock in window.docks.items():
        assert dock.isVisible() and not dock.isFloating(), name
        assert window.actions[f"view_{name}"].isChecked()
    assert window.dockWidgetArea(window.docks["editor"]) == Qt.DockWidgetArea.LeftDockWidgetArea
    assert window.dockWidgetArea(window.docks["weights"]) == Qt.DockWidgetArea.RightDockWidgetArea


def test_reset_layout_in_a_small_window_gives_the_layout_a_fresh_start_gives(qtbot, home):
    """View ▸ Reset layout at 1024 × 640 puts the docks where a fresh start at that size puts them, ① as
    wide as ② and both far wider than a strip (a layout kept in pixels of 1600 × 1000 squeezed ① to ~20 px)."""
    from tests.gui.conftest import open_window

    names = ("editor", "controls", "scores", "weights", "output", "readout")

    def geometry(w):
        QApplication.processEvents()
        return {n: w.docks[n].geometry().getRect() for n in names}

    fresh = geometry(open_window(qtbot, size=(1024, 640), persist_layout=False, recovery=False))
    window = open_window(qtbot, size=(1024, 640), persist_layout=False, recovery=False)
    window.resizeDocks([window.docks["editor"], window.docks["scores"]], [700, 324], Qt.Orientation.Horizontal)
    assert geometry(window) != fresh
    window.actions["reset_layout"].trigger()
    after = geometry(window)
    for n in names:
        assert all(abs(a - b) <= 2 for a, b in zip(after[n], fresh[n])), (n, after[n], fresh[n])
    scores, weights = after["scores"][2], after["weights"][2]
    assert abs(scores - weights) <= 2 and scores > 1024 // 4, after


def test_a_hidden_panel_catches_up_when_shown_again(qtbot, window, ui):
    window.actions["view_weights"].trigger()
    window.model.set_cell("Q", 0, 0, 4.0)
    window.model.flush()
    window.actions["view_weights"].trigger()
    qtbot.waitUntil(window.docks["weights"].isVisible)
    assert_same_numbers(window.panels["weights"].heatmap.image_array(),
                                  ui.expected(window.model).weights)


def test_layout_persists_across_close_and_reopen(qtbot, home, ui):
    first = ui.open_window(qtbot)
    first.actions["view_output"].trigger()
    first.actions["view_controls"].trigger()
    first.resize(700, 600)  # within the offscreen screen (800×800): Qt clamps restored geometry to it
    size = (first.width(), first.height())  # the docks' minimum sizes may make it a little wider
    assert first.close()
    assert (home / "settings.ini").exists()

    second = ui.open_window(qtbot, size=None)
    assert second.docks["output"].isHidden() and second.docks["controls"].isHidden()
    assert second.docks["editor"].isVisible() and second.docks["weights"].isVisible()
    assert not second.actions["view_output"].isChecked()
    assert (second.width(), second.height()) == size
    second.actions["reset_layout"].trigger()
    assert second.docks["output"].isVisible()
    assert second.close()

    third = ui.open_window(qtbot, size=None)
    assert all(d.isVisible() for d in third.docks.values())


# regression (was a bug): the selected query row is 'not an undo step', yet undoing an unrelated settings
# change (temperature) puts the selection back to where it was when that change was made: StateCommand
# snapshots include selected_row/selected_head
def test_undo_of_a_setting_keeps_the_selected_row(qtbot, window):
    window.model.set_param("temperature", 2.0)
    heat = window.panels["weights"].heatmap
    window.model.flush()
    qtbot.mouseClick(heat.viewport(), Qt.MouseButton.LeftButton, pos=heat.cell_center(3, 0).toPoint())
    assert window.model.settings.selected_row == 3
    window.actions["undo"].trigger()
    window.model.flush()
    assert window.model.settings.temperature == 1.0
    assert window.model.settings.selected_row == 3
    assert window.panels["controls"].row.currentIndex() == 3
