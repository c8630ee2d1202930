"""F23's Sensitivity and A/B diff docks, driven as a person would: mark A, type into the editor, compare
with a saved session; nudge the selected score. Expected numbers are worked out here from the numbers
typed and the softmax's definition, not read from the code under test."""
import math

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from explorer.core.session import save_session


def show(window, name):
    window.docks[name].show()
    window.docks[name].raise_()
    QApplication.processEvents()
    return window.panels[name]


def scores_of(q, k):
    return q @ k.T / math.sqrt(q.shape[1])  # the demo's scale 1/√d, one head, temperature 1


def test_mark_a_then_edit_a_cell_in_the_editor_shows_the_change_at_that_cell(qtbot, window, ui):
    panel = show(window, "ab_diff")
    assert not panel.views.isVisible()  # no A yet: the panel says how to start
    assert not window.actions["clear_a"].isEnabled()  # (nothing to clear, as the panel's own button)
    window.docks["ab_diff"].setFloating(True)
    window.docks["ab_diff"].resize(700, 500)  # (as it opens floating at a readable size)
    qtbot.waitUntil(lambda: panel.height() > 400)
    line = panel.caption.fontMetrics().height()  # the words and buttons at the top, not spread down the panel
    assert panel.mark_button.geometry().top() < 5 * line and panel.summary.height() < 4 * line
    before_q, k = window.model.matrix("Q").copy(), window.model.matrix("K").copy()
    window.actions["mark_a"].trigger()  # Edit ▸ Mark as A for comparison
    assert window.actions["clear_a"].isEnabled()
    ui.type_into(qtbot, window.panels["editor"].views["Q"], 2, 1, "1.5")  # Q[红色, d1]: 0 → 1.5
    window.model.flush()
    qtbot.waitUntil(lambda: panel.diff is not None and panel.diff.scores.any())
    after_q = before_q.copy()
    after_q[2, 1] = 1.5
    expected_ds = scores_of(after_q, k) - scores_of(before_q, k)  # only row 红色 moves: by 1.5·K[:, 1]/√3
    drawn = panel.views.heatmaps["scores"].image_array()
    assert np.allclose(drawn, expected_ds, atol=1e-12)
    assert not np.delete(drawn, 2, axis=0).any()
    weights = panel.views.heatmaps["weights"].image_array()
    assert weights[2].any() and not np.delete(weights, 2, axis=0).any()
    assert np.allclose(weights[2].sum(), 0, atol=1e-12)  # a row of weights still sums to 1 in A and in B
    # the largest change of S is named: K[追, d1] = 2 is the largest of K's column d1, so S[红色 → 追]
    assert "S[红色 → 追]" in panel.summary.text()
    assert "① scores S" in panel.summary.text() and "② weights A" in panel.summary.text()  # not a bare "A:"
    assert f"0 → {1.5 * 2 / math.sqrt(3):.2g} (+{1.5 * 2 / math.sqrt(3):.2g})" in panel.summary.text()  # as its cell
    window.actions["clear_a"].trigger()
    qtbot.waitUntil(lambda: not panel.views.isVisible())
    assert not window.actions["clear_a"].isEnabled()


def test_a_saved_session_of_another_shape_is_refused_and_nothing_changes(qtbot, window, tmp_path, warnings):
    from explorer.core import presets

    other = tmp_path / "six_tokens.json"
    save_session(presets.PRESETS["random"](), other)  # L = 6, d = 4: not the demo's 4 tokens
    panel = show(window, "ab_diff")
    window.actions["mark_a"].trigger()
    kept, name = window.model.comparison.marked, window.model.comparison.name
    state = window.model.state.copy()
    window.documents.compare_with_file(str(other))  # (read as File ▸ Open reads it; the refusal is a dialog)
    (title, text), = warnings
    assert "six_tokens.json" in text and "6 queries × 6 keys" in text and "4 queries × 4 keys" in text
    assert window.model.comparison.marked is kept and window.model.comparison.name == name
    assert window.model.state.same_as(state)
    assert "six_tokens.json" not in panel.caption.text()


def test_a_saved_session_of_the_same_shape_becomes_a(qtbot, window, tmp_path, warnings):
    saved = tmp_path / "before.json"
    save_session(window.model.to_session(), saved)
    window.model.set_cell("V", 0, 0, 3.0)  # V[猫, d0]: 1 → 3 moves every output's d0 by 2·A[i, 猫]
    window.model.flush()
    weights = window.model.results.heads.weights[0].copy()
    assert window.documents.compare_with_file(str(saved))
    assert warnings == []
    panel = show(window, "ab_diff")
    qtbot.waitUntil(lambda: panel.diff is not None)
    assert "before.json" in panel.caption.text()
    drawn = panel.views.heatmaps["output"].image_array()
    assert np.allclose(drawn[:, 0], 2 * weights[:, 0], atol=1e-12) and not drawn[:, 1:].any()
    assert not panel.views.heatmaps["weights"].image_array().any()


def test_the_sensitivity_of_the_selected_score_follows_the_softmax_jacobian(qtbot, window):
    panel = show(window, "sensitivity")
    window.model.set_selection(row=1, key=2)  # S[追 → 红色]
    panel.epsilon.setValue(0.5)
    qtbot.waitUntil(lambda: panel.shown is not None and (panel.shown.row, panel.shown.col) == (1, 2))
    a = window.model.results.heads.weights[0, 1]
    expected = 0.5 * a * ((np.arange(4) == 2) - a[2])  # ε · a_j(δ_j2 − a_2)
    drawn = panel.views.heatmaps["weights"].image_array()
    assert np.allclose(drawn[1], expected, atol=1e-12) and not np.delete(drawn, 1, axis=0).any()
    v = window.model.matrix("V")
    assert np.allclose(panel.views.heatmaps["output"].image_array()[1], expected @ v, atol=1e-12)
    assert "S[追 → 红色]" in panel.caption.text()
    # a key's number: column j of S moves for every query, so every row of ② changes
    panel.what.setCurrentIndex(panel.what.findData("K"))
    qtbot.waitUntil(lambda: panel.shown.what == "K")
    assert (np.abs(panel.views.heatmaps["weights"].image_array()).sum(axis=1) > 0).all()


def test_the_three_maps_and_the_summary_write_a_change_one_way(qtbot, window):
    """ΔS, ΔA and ΔO print their cells alike — signed, two significant digits, "0" when unmoved — and the summary
    names a change with the text its cell prints (they read as three formats once: "0.00", "0", "0.025")."""
    panel = show(window, "sensitivity")
    window.model.set_selection(row=1, key=0)  # S[追 → 猫], ε = 0.1
    qtbot.waitUntil(lambda: panel.shown is not None and (panel.shown.row, panel.shown.col) == (1, 0))
    a = window.model.results.heads.weights[0, 1]
    delta_a = 0.1 * a * ((np.arange(4) == 0) - a[0])  # ε · a_j(δ_j0 − a_0)
    texts = {stage: panel.views.heatmaps[stage]._text_item._texts() for stage in ("scores", "weights", "output")}
    assert texts["scores"][4:8] == ["+0.1", "0", "0", "0"] and set(texts["scores"][:4] + texts["scores"][8:]) == {"0"}
    by_hand = [f"{x:+.2g}".replace("-", "−") for x in delta_a]  # two significant digits, from the definition
    assert texts["weights"][4:8] == by_hand and set(texts["weights"][:4]) == {"0"}
    assert all(t == "0" or t[0] in "+−" for t in texts["output"])
    assert f"A[追 → 猫] {by_hand[0]}" in panel.summary.text()  # the number printed in its cell


@pytest.mark.parametrize("name", ["sensitivity", "ab_diff"])
def test_the_docks_have_a_view_menu_item_and_a_tooltip(window, name):
    action = window.actions[f"view_{name}"]
    assert not action.shortcut().isEmpty()
    action.trigger()
    QApplication.processEvents()
    panel = window.panels[name]
    assert panel.isVisible() and len(panel.toolTip()) > 80


def test_both_wait_while_the_lesson_hides_the_weights(qtbot, window):
    sensitivity, diff = show(window, "sensitivity"), show(window, "ab_diff")
    window.actions["mark_a"].trigger()
    window.model.set_revealed(1)  # the lesson: ① shown, ② and ③ still to guess
    qtbot.waitUntil(lambda: not diff.views.isVisible() and "hidden" in diff.summary.text())
    show(window, "sensitivity")
    qtbot.waitUntil(lambda: not sensitivity.views.isVisible() and "hidden" in sensitivity.summary.text())
    window.model.set_revealed(3)
    qtbot.waitUntil(lambda: sensitivity.views.isVisible())


def test_a_state_too_large_to_keep_as_a_is_refused_in_the_status_bar(window, monkeypatch):
    import explorer.model.comparison as comparison

    monkeypatch.setattr(comparison, "MAX_CELLS", 10)  # the demo has 16 weights
    window.actions["mark_a"].trigger()
    assert window.model.comparison.marked is None
    assert "too large to keep as A" in window.statusBar().currentMessage()
    assert "1 head, 4 queries × 4 keys" in window.statusBar().currentMessage()


def test_a_score_that_gets_almost_no_weight_says_why_nothing_moves(qtbot, window):
    """At T = 0.1 the row of 追 (scores 2.31, 0, 0, 2.31) gives 追 → 追 a weight of ~e^−23: nudging that score
    moves ~1e−10, so the panel says why its maps look blank; 追 → 猫 (weight ~½) gets no such note."""
    panel = show(window, "sensitivity")
    assert window.model.set_param("temperature", 0.1)
    window.model.flush()
    window.model.set_selection(row=1, key=1)  # S[追 → 追]
    qtbot.waitUntil(lambda: panel.shown is not None and (panel.shown.row, panel.shown.col) == (1, 1))
    assert "Its weight is only" in panel.summary.text()
    window.model.set_selection(row=1, key=0)  # S[追 → 猫]
    qtbot.waitUntil(lambda: (panel.shown.row, panel.shown.col) == (1, 0))
    assert "Its weight is only" not in panel.summary.text()


def test_nothing_moving_is_said_for_the_reason_that_applies(qtbot, window):
    """The walkthrough's "S[猫 → 猫] is masked … or its row gives all its weight to one key", where only the second
    was true. With the causal mask the row of 猫 (the first token) sees only 猫: its weight is 1, so a nudge of S[猫 →
    猫] moves nothing (a(1 − a) = 0), and S[猫 → 追] is masked."""
    panel = show(window, "sensitivity")
    assert window.model.set_param("causal", True)
    window.model.flush()
    window.model.set_selection(row=0, key=0)  # S[猫 → 猫]: weight 1
    qtbot.waitUntil(lambda: panel.shown is not None and (panel.shown.row, panel.shown.col) == (0, 0))
    assert "gives all its weight to one key" in panel.summary.text() and "masked" not in panel.summary.text()
    window.model.set_selection(row=0, key=1)  # S[猫 → 追]: masked
    qtbot.waitUntil(lambda: (panel.shown.row, panel.shown.col) == (0, 1))
    assert "is masked" in panel.summary.text() and "one key" not in panel.summary.text()
