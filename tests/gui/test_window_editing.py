"""The main window driven like a person: type, scrub, drag sliders, tick boxes, undo — and every
heatmap shows what ``explorer.core.attention`` computes for the numbers on screen."""
import re

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QStyle, QStyleOptionButton, QStyleOptionSlider

from explorer.core.attention import attention
from explorer.core.heads import split_heads
from tests.gui.same_numbers import assert_same_numbers


def panels(window):
    return window.panels["scores"], window.panels["weights"], window.panels["output"]


def assert_heatmaps_show(window, ui):
    """Scores, weights and output heatmaps hold exactly the core's numbers for the current model."""
    window.model.flush()
    want = ui.expected(window.model)
    scores, weights, output = panels(window)
    assert_same_numbers(scores.heatmap.image_array(), want.scores)
    assert_same_numbers(weights.heatmap.image_array(), want.weights)
    assert_same_numbers(output.heatmap.image_array(), want.output)


# ----- typing ------------------------------------------------------------------------------------
def test_typing_a_cell_recomputes_every_heatmap(qtbot, window, ui):
    view = window.panels["editor"].views["K"]
    before = panels(window)[1].heatmap.image_array().copy()
    ui.type_into(qtbot, view, 2, 0, "3.5")
    assert window.model.matrix("K")[2, 0] == 3.5
    assert view.model().data(view.model().index(2, 0)) == "3.5"
    # the recompute runs on the next event-loop turn: wait for it as a person would
    qtbot.waitUntil(lambda: panels(window)[1].heatmap.image_array()[0, 2] != before[0, 2])
    assert_heatmaps_show(window, ui)
    q, k, v = (window.model.matrix(n) for n in "QKV")
    np.testing.assert_allclose(panels(window)[0].heatmap.image_array(), q @ k.T / np.sqrt(3), rtol=1e-12)
    assert window.isWindowModified()
    assert window.model.undo_stack.undoText().startswith("Edit K[")


def test_typing_into_v_changes_only_the_output(qtbot, window, ui):
    scores, weights, output = (p.heatmap.image_array().copy() for p in panels(window))
    ui.type_into(qtbot, window.panels["editor"].views["V"], 0, 1, "-2")
    window.model.flush()
    assert_same_numbers(panels(window)[0].heatmap.image_array(), scores)
    assert_same_numbers(panels(window)[1].heatmap.image_array(), weights)
    assert not np.array_equal(panels(window)[2].heatmap.image_array(), output)
    assert_heatmaps_show(window, ui)


def test_several_edits_in_one_turn_recompute_once(qtbot, window, ui):
    table = window.panels["editor"].tables["Q"]
    seen = []
    window.model.changed.connect(seen.append)
    for i, text in enumerate(("1.25", "2.5", "3.75")):
        assert table.setData(table.index(i, 0), text)
    assert seen == []  # nothing until the event loop turns
    qtbot.waitUntil(lambda: len(seen) > 0)
    QApplication.processEvents()
    QApplication.processEvents()
    assert len(seen) == 1
    np.testing.assert_array_equal(window.model.matrix("Q")[:3, 0], [1.25, 2.5, 3.75])
    assert_heatmaps_show(window, ui)
    assert window.model.undo_stack.count() == 3  # three typed cells are three undo steps


# ----- scrubbing ---------------------------------------------------------------------------------
def test_scrubbing_a_cell_is_one_undo_step(qtbot, window, ui):
    view = window.panels["editor"].views["Q"]
    stack = window.model.undo_stack
    original = window.model.matrix("Q")[1, 1]
    before = panels(window)[1].heatmap.image_array().copy()
    start = ui.cell_pos(view, 1, 1)
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    for dx in (2, 6, 12, 20, 30):
        qtbot.mouseMove(view.viewport(), start + QPoint(dx, 0))
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=start + QPoint(30, 0))
    assert window.model.matrix("Q")[1, 1] == pytest.approx(original + 0.30)
    assert stack.count() == 1 and stack.index() == 1
    assert_heatmaps_show(window, ui)
    assert not np.array_equal(panels(window)[1].heatmap.image_array(), before)
    window.actions["undo"].trigger()
    assert window.model.matrix("Q")[1, 1] == original
    assert_heatmaps_show(window, ui)
    assert_same_numbers(panels(window)[1].heatmap.image_array(), before)
    assert not window.isWindowModified()


def test_scrubbing_with_shift_is_finer(qtbot, window, ui):
    view = window.panels["editor"].views["V"]
    vp = view.viewport()
    original = window.model.matrix("V")[2, 0]
    start = ui.cell_pos(view, 2, 0)
    left, shift = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ShiftModifier
    ui.send_mouse(vp, QEvent.Type.MouseButtonPress, start, left, shift)
    ui.send_mouse(vp, QEvent.Type.MouseMove, start + QPoint(20, 0), left, shift)
    ui.send_mouse(vp, QEvent.Type.MouseMove, start + QPoint(40, 0), left, shift)
    ui.send_mouse(vp, QEvent.Type.MouseButtonRelease, start + QPoint(40, 0), Qt.MouseButton.NoButton, shift)
    assert window.model.matrix("V")[2, 0] == pytest.approx(original + 40 * 0.001)
    assert window.model.undo_stack.count() == 1
    assert_heatmaps_show(window, ui)


def test_two_drags_are_two_undo_steps(qtbot, window, ui):
    view = window.panels["editor"].views["K"]
    start = ui.cell_pos(view, 0, 0)
    for _ in range(2):
        qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
        qtbot.mouseMove(view.viewport(), start + QPoint(10, 0))
        qtbot.mouseMove(view.viewport(), start + QPoint(20, 0))
        qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=start + QPoint(20, 0))
    assert window.model.matrix("K")[0, 0] == pytest.approx(2.0 + 0.4)
    assert window.model.undo_stack.count() == 2


# ----- the temperature slider --------------------------------------------------------------------
def slider_handle(slider):
    opt = QStyleOptionSlider()
    slider.initStyleOption(opt)
    return slider.style().subControlRect(QStyle.ComplexControl.CC_Slider, opt,
                                         QStyle.SubControl.SC_SliderHandle, slider).center()


def test_dragging_the_temperature_slider_is_one_undo_step(qtbot, window, ui):
    temperature = window.panels["controls"].temperature
    slider = temperature.slider
    before = panels(window)[1].heatmap.image_array().copy()
    handle = slider_handle(slider)
    qtbot.mousePress(slider, Qt.MouseButton.LeftButton, pos=handle)
    assert slider.isSliderDown()
    for dx in (5, 15, 30, 60):
        qtbot.mouseMove(slider, handle + QPoint(dx, 0))
    qtbot.mouseRelease(slider, Qt.MouseButton.LeftButton, pos=handle + QPoint(60, 0))
    t = window.model.settings.temperature
    assert t > 1.0 and t == temperature.value()
    assert window.model.undo_stack.count() == 1
    assert_heatmaps_show(window, ui)
    # hotter: every row of the weights is flatter than before
    after = panels(window)[1].heatmap.image_array()
    assert np.all(after.max(axis=1) < before.max(axis=1))
    assert "T = " in panels(window)[0].caption.text()
    window.actions["undo"].trigger()
    window.model.flush()
    assert window.model.settings.temperature == 1.0 and temperature.value() == 1.0
    assert_same_numbers(panels(window)[1].heatmap.image_array(), before)


def test_typing_a_temperature_in_the_read_out(qtbot, window, ui):
    read_out = window.panels["controls"].temperature.read_out
    read_out.selectAll()
    qtbot.keyClicks(read_out, "0.5")
    qtbot.keyClick(read_out, Qt.Key.Key_Return)
    assert window.model.settings.temperature == 0.5
    assert window.model.undo_stack.count() == 1
    assert_heatmaps_show(window, ui)


# ----- the causal mask ---------------------------------------------------------------------------
def click_check_box(qtbot, box):
    opt = QStyleOptionButton()
    box.initStyleOption(opt)
    rect = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, opt, box)
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=rect.center())


def test_causal_checkbox_masks_the_upper_triangle(qtbot, window, ui):
    box = window.panels["controls"].causal
    click_check_box(qtbot, box)
    assert box.isChecked() and window.model.settings.causal
    window.model.flush()
    scores, weights, _ = panels(window)
    upper = np.triu(np.ones((4, 4), bool), 1)
    w = weights.heatmap.image_array()
    assert np.all(w[upper] == 0)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    np.testing.assert_array_equal(weights.heatmap.masked_array(), upper)
    np.testing.assert_array_equal(scores.heatmap.masked_array(), upper)
    assert w[0, 0] == 1.0  # the first token can only look at itself
    assert_heatmaps_show(window, ui)
    # masked score cells are drawn grey, not in a colour of the map
    rgb, dpr = ui.grab_rgb(scores.heatmap)
    grey = ui.cell_colour(scores.heatmap, rgb, dpr, 0, 3)
    lut = scores.heatmap.image_item.lut.astype(float)
    assert np.min(np.abs(lut - grey).sum(axis=1)) > 40
    assert "masked" in scores.tooltip(0, 3)
    click_check_box(qtbot, box)
    window.model.flush()
    assert not window.model.settings.causal
    m = weights.heatmap.masked_array()
    assert m is None or not m.any()
    assert window.model.undo_stack.count() == 2


# ----- undo and redo -----------------------------------------------------------------------------
def test_undo_redo_actions_and_keys_restore_cells_and_heatmaps(qtbot, window, ui):
    view = window.panels["editor"].views["Q"]
    weights = panels(window)[1].heatmap
    original, w0 = window.model.matrix("Q").copy(), weights.image_array().copy()
    ui.type_into(qtbot, view, 3, 2, "-1.5")
    window.model.flush()
    edited, w1 = window.model.matrix("Q").copy(), weights.image_array().copy()
    assert not np.array_equal(w0, w1)

    def shows(q, w):
        window.model.flush()
        np.testing.assert_array_equal(window.model.matrix("Q"), q)
        assert view.model().value(3, 2) == q[3, 2]
        assert_same_numbers(weights.image_array(), w)
        assert_heatmaps_show(window, ui)

    window.actions["undo"].trigger()
    shows(original, w0)
    window.actions["redo"].trigger()
    shows(edited, w1)

    redo_keys = [k.toString() for k in window.actions["redo"].shortcuts()]
    assert "Ctrl+Shift+Z" in redo_keys and len(set(redo_keys)) == len(redo_keys)  # no ambiguous overload
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    shows(original, w0)
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    shows(edited, w1)
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(view, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    shows(edited, w1)


# ----- refused input -----------------------------------------------------------------------------
@pytest.mark.parametrize("text, why", [
    ("abc", "'abc' is not a number"),
    ("nan", "'nan' is not a number"),
    ("inf", "'inf' is infinite"),
    ("1e400", "'1e400' overflows"),
    ("", "empty text is not a number"),
])
def test_garbage_is_refused_and_the_status_bar_says_why(qtbot, window, ui, text, why):
    editor = window.panels["editor"]
    view, table = editor.views["V"], editor.tables["V"]
    before = ui.snapshot(window)
    heat = panels(window)[2].heatmap.image_array().copy()
    assert table.setData(table.index(1, 2), text) is False
    message = window.statusBar().currentMessage()
    assert "Row 追, column d2: " in message and why in message  # names the place and the problem
    window.statusBar().clearMessage()
    ui.type_into(qtbot, view, 1, 2, text)  # and through the real cell editor
    assert why in window.statusBar().currentMessage()
    window.model.flush()
    ui.assert_same(ui.snapshot(window), before)
    assert table.data(table.index(1, 2)) == "0"
    assert_same_numbers(panels(window)[2].heatmap.image_array(), heat)


def test_an_accepted_edit_clears_a_refusal_it_made_stale(qtbot, window, ui):
    """'nan' typed is refused and said; the next value typed is taken, and the refusal leaves the status bar
    (it stayed its 10 s, over edits that were taken). A note said with an edit that is taken stays."""
    view, bar = window.panels["editor"].views["V"], window.statusBar()
    ui.type_into(qtbot, view, 1, 2, "nan")
    assert "'nan' is not a number" in bar.currentMessage()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # the closed cell editor goes
    ui.type_into(qtbot, view, 2, 0, "0.5")
    assert window.model.matrix("V")[2, 0] == 0.5
    assert bar.currentMessage() == ""
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    ui.type_into(qtbot, view, 0, 0, "abc")
    assert "'abc' is not a number" in bar.currentMessage()
    window.actions["undo"].trigger()  # undone: the refusal is stale too (the undo says what it undid)
    assert window.model.matrix("V")[2, 0] == 0.0 and "not a number" not in bar.currentMessage()
    window.model.set_param("heads", 3)
    window.model.flush()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    ui.type_into(qtbot, view, 0, 0, "abc")
    window.model.remove_dim("qk")  # Q/K width 3 → 2: 3 heads no longer divide it, and that is said
    assert "no longer divide" in bar.currentMessage()


# ----- shape: tokens, dimensions, heads ----------------------------------------------------------
def shapes(window):
    window.model.flush()
    editor = window.panels["editor"]
    tables = {n: (t.rowCount(), t.columnCount()) for n, t in editor.tables.items()}
    heat = {k: window.panels[k].heatmap.image_array().shape for k in ("scores", "weights", "output")}
    return tables, heat


def test_add_and_remove_token_and_dimensions(qtbot, window, ui):
    acts = window.panels["editor"].actions
    assert shapes(window) == ({"Q": (4, 3), "K": (4, 3), "V": (4, 3)},
                              {"scores": (4, 4), "weights": (4, 4), "output": (4, 3)})
    acts["add_token"].trigger()
    assert shapes(window) == ({"Q": (5, 3), "K": (5, 3), "V": (5, 3)},
                              {"scores": (5, 5), "weights": (5, 5), "output": (5, 3)})
    assert len(window.panels["scores"].heatmap.ticks("left")) == 5
    assert_heatmaps_show(window, ui)
    acts["add_dim_qk"].trigger()
    acts["add_dim_v"].trigger()
    acts["add_dim_v"].trigger()
    assert shapes(window) == ({"Q": (5, 4), "K": (5, 4), "V": (5, 5)},
                              {"scores": (5, 5), "weights": (5, 5), "output": (5, 5)})
    assert_heatmaps_show(window, ui)
    acts["remove_dim_v"].trigger()
    acts["remove_dim_qk"].trigger()
    acts["remove_token"].trigger()
    acts["remove_token"].trigger()
    assert shapes(window) == ({"Q": (3, 3), "K": (3, 3), "V": (3, 4)},
                              {"scores": (3, 3), "weights": (3, 3), "output": (3, 4)})
    assert_heatmaps_show(window, ui)
    assert window.panels["controls"].row.count() == 3
    assert window.model.undo_stack.count() == 8
    while window.actions["undo"].isEnabled():
        window.actions["undo"].trigger()
    assert shapes(window) == ({"Q": (4, 3), "K": (4, 3), "V": (4, 3)},
                              {"scores": (4, 4), "weights": (4, 4), "output": (4, 3)})
    assert window.panels["scores"].heatmap.ticks("left") == list(enumerate(("猫", "追", "红色", "激光点")))


def test_removing_the_last_token_is_refused_with_a_message(qtbot, window):
    acts = window.panels["editor"].actions
    for _ in range(3):
        acts["remove_token"].trigger()
    window.model.flush()
    assert len(window.model.tokens) == 1
    acts["remove_token"].trigger()
    assert len(window.model.tokens) == 1
    assert "cannot remove the last token" in window.statusBar().currentMessage()
    assert window.panels["weights"].heatmap.image_array().shape == (1, 1)


HEAD_1_OF_3 = re.compile(r"head 1\s*(of|/)\s*3")  # "head 1 of 3" or "head 1/3"


def choose(qtbot, combo, target):
    """Pick item ``target`` by keyboard, as a person would (emits ``activated``)."""
    assert 0 <= target < combo.count()
    key = Qt.Key.Key_Down if target > combo.currentIndex() else Qt.Key.Key_Up
    while combo.currentIndex() != target:
        qtbot.keyClick(combo, key)


def test_heads_offer_only_divisors_and_three_heads_show_head_one_of_three(qtbot, window, ui):
    controls = window.panels["controls"]
    assert [controls.heads.itemData(i) for i in range(controls.heads.count())] == [1, 3]
    assert not controls.head.isEnabled()
    choose(qtbot, controls.heads, controls.heads.findData(3))
    window.model.flush()
    assert window.model.settings.heads == 3
    scores, weights, output = panels(window)
    assert HEAD_1_OF_3.search(scores.caption.text()) and HEAD_1_OF_3.search(weights.caption.text())
    assert controls.head.isEnabled() and controls.head.count() == 3
    q, k, v = (window.model.matrix(n) for n in "QKV")
    per_head = attention(split_heads(q, 3), split_heads(k, 3), split_heads(v, 3))
    assert_same_numbers(scores.heatmap.image_array(), per_head.scores[0])
    assert_same_numbers(weights.heatmap.image_array(), per_head.weights[0])
    assert "scale 1" in scores.tooltip(0, 0)  # d_h = 1: 1/√1
    choose(qtbot, controls.head, 2)  # the third head ("head 3")
    window.model.flush()
    assert re.search(r"head 3\s*(of|/)\s*3", scores.caption.text())
    assert_same_numbers(weights.heatmap.image_array(), per_head.weights[2])
    # a fourth Q/K dimension: 3 no longer divides 4, so the window falls back to one head
    window.panels["editor"].actions["add_dim_qk"].trigger()
    window.model.flush()
    assert window.model.settings.heads == 1
    assert [controls.heads.itemData(i) for i in range(controls.heads.count())] == [1]


# ----- renaming ----------------------------------------------------------------------------------
def test_double_click_a_token_to_rename_it(qtbot, window, monkeypatch):
    asked = []

    def get_text(parent, title, label, *args, **kwargs):
        asked.append((title, label, kwargs.get("text")))
        return "狗", True

    monkeypatch.setattr("PySide6.QtWidgets.QInputDialog.getText", get_text)
    header = window.panels["editor"].views["K"].verticalHeader()
    pos = QPoint(header.width() // 2, header.sectionViewportPosition(0) + header.sectionSize(0) // 2)
    qtbot.mouseDClick(header.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert asked and asked[0][0] == "Rename token" and asked[0][2] == "猫"
    window.model.flush()
    assert window.model.tokens[0] == "狗"
    for name in ("scores", "weights", "output"):
        assert window.panels[name].heatmap.ticks("left")[0] == (0, "狗")
    assert window.panels["scores"].heatmap.ticks("top")[0] == (0, "狗")
    for table in window.panels["editor"].tables.values():
        assert table.headerData(0, Qt.Orientation.Vertical) == "狗"
    assert window.panels["controls"].row.itemText(0) == "0: 狗"
    window.actions["undo"].trigger()
    window.model.flush()
    assert window.panels["weights"].heatmap.ticks("left")[0] == (0, "猫")


def test_a_cancelled_or_bad_rename_changes_nothing(qtbot, window, monkeypatch, ui):
    header = window.panels["editor"].views["Q"].verticalHeader()
    pos = QPoint(header.width() // 2, header.sectionViewportPosition(1) + header.sectionSize(1) // 2)
    before = ui.snapshot(window)
    monkeypatch.setattr("PySide6.QtWidgets.QInputDialog.getText", lambda *a, **k: ("x", False))
    qtbot.mouseDClick(header.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    monkeypatch.setattr("PySide6.QtWidgets.QInputDialog.getText", lambda *a, **k: ("   ", True))
    qtbot.mouseDClick(header.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert "a name must be" in window.statusBar().currentMessage()
    window.model.flush()
    ui.assert_same(ui.snapshot(window), before)


# ----- copy and paste ----------------------------------------------------------------------------
def test_copy_and_paste_a_block_through_the_edit_menu(qtbot, window, ui):
    editor = window.panels["editor"]
    view_q, view_v = editor.views["Q"], editor.views["V"]
    qtbot.mouseClick(view_q.viewport(), Qt.MouseButton.LeftButton, pos=ui.cell_pos(view_q, 0, 0))
    qtbot.mouseClick(view_q.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ShiftModifier,
                     pos=ui.cell_pos(view_q, 1, 1))
    window.actions["copy"].trigger()
    assert QGuiApplication.clipboard().text() == "0.5\t1.5\n2.0\t0.0"
    qtbot.mouseClick(view_v.viewport(), Qt.MouseButton.LeftButton, pos=ui.cell_pos(view_v, 2, 1))
    window.actions["paste"].trigger()
    window.model.flush()
    np.testing.assert_array_equal(window.model.matrix("V")[2:4, 1:3], [[0.5, 1.5], [2.0, 0.0]])
    assert window.model.undo_stack.count() == 1
    assert_heatmaps_show(window, ui)
    window.actions["undo"].trigger()
    np.testing.assert_array_equal(window.model.matrix("V")[2:4, 1:3], [[0.0, 1.0], [0.3, 0.8]])


@pytest.mark.parametrize("text, why", [
    ("1\tabc", "'abc' is not a number"),
    ("1\t2\n3", "row 2 has 1 values"),
    ("1\t2\t3\t4", "room for only"),
    ("1\tnan", "not a number"),
])
def test_a_bad_paste_is_refused_with_a_message(qtbot, window, ui, text, why):
    view = window.panels["editor"].views["K"]
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=ui.cell_pos(view, 1, 1))
    before = ui.snapshot(window)
    QGuiApplication.clipboard().setText(text)
    window.actions["paste"].trigger()
    assert why in window.statusBar().currentMessage()
    window.model.flush()
    ui.assert_same(ui.snapshot(window), before)


# ----- more of the editor and the controls --------------------------------------------------------
def test_the_cell_slider_edits_the_selected_cell_in_one_undo_step(qtbot, window, ui):
    editor = window.panels["editor"]
    view = editor.views["K"]
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=ui.cell_pos(view, 2, 1))
    assert editor.cell_label.text() == "K[红色, d1]"
    assert editor.cell_slider.isEnabled() and editor.cell_slider.value() == 0.0
    slider = editor.cell_slider.slider
    handle = slider_handle(slider)
    qtbot.mousePress(slider, Qt.MouseButton.LeftButton, pos=handle)
    for dx in (5, 20, 40):
        qtbot.mouseMove(slider, handle + QPoint(dx, 0))
    qtbot.mouseRelease(slider, Qt.MouseButton.LeftButton, pos=handle + QPoint(40, 0))
    value = window.model.matrix("K")[2, 1]
    assert value > 0 and value == editor.cell_slider.value()
    assert editor.tables["K"].value(2, 1) == value
    assert window.model.undo_stack.count() == 1
    assert_heatmaps_show(window, ui)
    window.actions["undo"].trigger()
    window.model.flush()
    assert window.model.matrix("K")[2, 1] == 0.0 and editor.cell_slider.value() == 0.0


def test_scale_mode_none_and_custom(qtbot, window, ui):
    controls = window.panels["controls"]
    q, k = window.model.matrix("Q"), window.model.matrix("K")
    scores = window.panels["scores"]
    choose(qtbot, controls.scale_mode, controls.scale_mode.findData("none"))
    window.model.flush()
    assert_same_numbers(scores.heatmap.image_array(), q @ k.T)
    assert re.search(r"·\s*1(?![/\d.])", scores.caption.text())  # "S = Q Kᵀ · 1"
    choose(qtbot, controls.scale_mode, controls.scale_mode.findData("custom"))
    qtbot.waitUntil(controls.scale_value.isEnabled)  # enabled on the next turn, with the recompute
    controls.scale_value.selectAll()
    qtbot.keyClicks(controls.scale_value, "0.25")
    qtbot.keyClick(controls.scale_value, Qt.Key.Key_Return)
    window.model.flush()
    assert window.model.settings.scale == 0.25
    np.testing.assert_allclose(scores.heatmap.image_array(), q @ k.T * 0.25, rtol=1e-15)
    assert "× scale 0.25" in scores.tooltip(1, 0)
    assert window.model.undo_stack.count() == 3


def test_window_shortcuts_reach_the_editor_actions_from_a_table(qtbot, window):
    view = window.panels["editor"].views["Q"]
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    view.setFocus()
    view.setCurrentIndex(view.model().index(0, 0))
    qtbot.keyClick(view, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    window.model.flush()
    assert len(window.model.tokens) == 5 and "t4" in window.model.tokens
    assert view.state() != view.State.EditingState  # the key did not also start editing a cell
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    window.model.flush()
    assert len(window.model.tokens) == 4


def test_randomize_and_reset_are_undoable(qtbot, window, ui):
    editor = window.panels["editor"]
    original = {n: window.model.matrix(n).copy() for n in "QKV"}
    editor.seed.setValue(7)
    editor.actions["randomize"].trigger()
    window.model.flush()
    first = {n: window.model.matrix(n).copy() for n in "QKV"}
    assert not np.array_equal(first["Q"], original["Q"])
    assert_heatmaps_show(window, ui)
    editor.actions["reset"].trigger()
    window.model.flush()
    np.testing.assert_array_equal(window.model.matrix("Q"), original["Q"])
    editor.seed.setValue(7)  # (each press moved it on by one)
    editor.actions["randomize"].trigger()  # the same seed gives the same numbers
    np.testing.assert_array_equal(window.model.matrix("Q"), first["Q"])
    assert window.model.undo_stack.count() == 3


# regression (was a bug): a scrub cancelled with Escape (or dragged back to where it started) leaves a no-op
# undo step: the window is marked modified, autosaves and asks before closing although no number changed
# (CellsCommand.mergeWith never setObsolete)
def test_a_cancelled_scrub_leaves_no_undo_step(qtbot, window, ui):
    view = window.panels["editor"].views["Q"]
    start = ui.cell_pos(view, 1, 1)
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(view.viewport(), start + QPoint(30, 0))
    assert window.model.matrix("Q")[1, 1] == pytest.approx(0.3)
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=start + QPoint(30, 0))
    assert window.model.matrix("Q")[1, 1] == 0.0
    assert not window.isWindowModified()
    assert window.model.undo_stack.count() == 0


def test_a_drag_that_ends_where_it_began_leaves_no_undo_step(qtbot, window, ui):
    view = window.panels["editor"].views["K"]
    start = ui.cell_pos(view, 0, 1)
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(view.viewport(), start + QPoint(25, 0))
    qtbot.mouseMove(view.viewport(), start)
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    assert window.model.matrix("K")[0, 1] == 0.0
    assert window.model.undo_stack.count() == 0 and not window.isWindowModified()
