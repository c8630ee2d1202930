"""The window on the shapes real models use: a cross-attention session and a grouped-query one."""
import math

import numpy as np
from PySide6.QtCore import Qt

from explorer.core.presets import grouped_query_session, translation_session
from explorer.panels.controls import ControlsPanel
from explorer.panels.editor import EditorPanel
from explorer.panels.heads import HeadsPanel
from explorer.panels.lines import AttentionLinesPanel
from explorer.panels.weights import WeightsPanel
from tests.gui.panel_helpers import show_panel

TRANSLATION = {"cat": "猫", "chases": "追", "red": "红色", "laser": "激光点", "dot": "激光点"}


def test_the_translation_preset_aligns_each_word_with_its_translation(qtbot):
    model, panel = show_panel(qtbot, WeightsPanel, translation_session(), size=(700, 600))
    heat = panel.heatmap
    assert heat.ticks("left") == list(enumerate(translation_session().query_tokens))
    assert heat.ticks("top") == list(enumerate(translation_session().tokens))
    marks = dict(heat._outline_item.marks)
    for i, word in enumerate(model.query_tokens):
        if word in TRANSLATION:
            assert model.tokens[marks[i]] == TRANSLATION[word], word


def test_lines_show_two_columns_of_their_own_lengths(qtbot):
    model, panel = show_panel(qtbot, AttentionLinesPanel, translation_session(), size=(500, 500))
    canvas = panel.canvas
    assert len(canvas._tokens) == 7 and len(canvas._keys) == 4
    top, bottom = canvas.token_rect("key", 0), canvas.token_rect("key", 3)
    q_top, q_bottom = canvas.token_rect("query", 0), canvas.token_rect("query", 6)
    assert q_top.top() < top.top() and bottom.bottom() < q_bottom.bottom()  # the shorter column is centred
    assert canvas.token_at(canvas.token_rect("key", 2).center()) == ("key", 2)


def test_the_editor_adds_query_tokens_and_switches_to_separate_queries(qtbot):
    model, panel = show_panel(qtbot, EditorPanel, size=(900, 500))
    assert not panel.actions["add_query"].isVisible()
    panel.actions["cross"].trigger()
    model.flush()
    assert model.cross and panel.actions["add_query"].isVisible() and panel.actions["cross"].isChecked()
    panel.actions["add_query"].trigger()
    model.flush()
    assert len(model.query_tokens) == 5 and len(model.tokens) == 4
    assert panel.tables["Q"].rowCount() == 5 and panel.tables["K"].rowCount() == 4
    assert panel.tables["Q"].headerData(4, Qt.Orientation.Vertical, Qt.ItemDataRole.DisplayRole) == model.query_tokens[4]
    model.undo_stack.undo()
    model.undo_stack.undo()
    model.flush()
    assert not model.cross and not panel.actions["cross"].isChecked()


def test_the_controls_offer_the_k_v_heads_that_divide_the_heads(qtbot):
    model, panel = show_panel(qtbot, ControlsPanel, grouped_query_session(), size=(600, 600))
    combo = panel.kv_heads
    assert [combo.itemData(i) for i in range(combo.count())] == [1, 2, 4, 8]
    assert combo.currentData() == 2 and "GQA" in combo.currentText()
    assert "K/V cache: 8 numbers a token" in panel.shape.text() and "4× less" in panel.shape.text()
    assert "4 (K: 2 K/V heads × 2)" in panel.shape.text()
    combo.setCurrentIndex(0)
    combo.activated.emit(0)
    model.flush()
    assert model.state.kv_heads == 1 and model.matrix("K").shape == (6, 2)
    assert panel.cross.isEnabled()
    panel.cross.setChecked(True)  # refused: the grouped preset is causal
    model.flush()
    assert not model.cross and not panel.cross.isChecked()


def test_grouped_heads_are_coloured_and_named_by_their_kv_head(qtbot):
    model, panel = show_panel(qtbot, HeadsPanel, grouped_query_session(), size=(900, 700))
    assert "share 2 K/V heads (grouped-query attention)" in panel.caption.text()
    text = panel.tooltip(5, 3, 1)
    assert "reads K/V head 2 of 2, with query heads 5, 6, 7, 8" in text
    q, k = model.matrix("Q"), model.matrix("K")
    s = q[3, 10:12] @ k[1, 2:4] / math.sqrt(2)  # head 6 of d_h = 2 reads K's columns 2-3
    assert np.isclose(model.results.heads.scores[5, 3, 1], s, rtol=0, atol=1e-12)


def test_one_kv_head_is_called_multi_query_attention(qtbot):
    model, panel = show_panel(qtbot, HeadsPanel, grouped_query_session(), size=(900, 700))
    assert model.set_param("kv_heads", 1)
    model.flush()
    qtbot.waitUntil(lambda: "share 1 K/V head (multi-query attention)" in panel.caption.text(), timeout=2000)


def test_shuffling_the_keys_of_a_cross_session_says_the_output_is_the_same(qtbot, home):
    from tests.gui.conftest import open_window
    window = open_window(qtbot, session=translation_session(), recovery=False, persist_layout=False)
    window.actions["shuffle"].trigger()
    message = window.statusBar().currentMessage()
    assert message.startswith("Shuffled the keys: the outputs are the same ✓"), message
    window.model.undo_stack.setClean()


def test_the_causal_mask_is_greyed_out_in_cross_attention_saying_why(qtbot):
    """Cross-attention has no causal mask (its queries read another sequence): the check box is disabled
    while the queries are separate, its tooltip says why, and it comes back with one token list."""
    model, panel = show_panel(qtbot, ControlsPanel, size=(600, 600))
    causal = panel.causal
    assert causal.isEnabled() and "upper triangle" in causal.toolTip()
    panel.cross.setChecked(True)
    model.flush()
    assert model.cross and not causal.isEnabled() and not causal.isChecked()
    assert "cross-attention" in causal.toolTip() and "no future to hide" in causal.toolTip()
    model.undo_stack.undo()
    model.flush()
    assert not model.cross and causal.isEnabled() and "upper triangle" in causal.toolTip()
