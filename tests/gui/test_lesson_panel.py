"""The step-through lesson panel (F7): guess, reveal in order, the chapter's experiments, live checks."""
import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from explorer.core.presets import demo_session, previous_token_session
from explorer.model import AttentionModel
from explorer.panels.lesson import NOT_DEMO, LessonPanel, weight_texts
from explorer.panels.output import OutputPanel
from explorer.panels.scores import ScoresPanel
from explorer.panels.weights import WeightsPanel
from explorer.widgets.cell_text import format_value

CAT, CHASE, RED, DOT = 0, 1, 2, 3


def shown(qtbot, widget, size=(460, 420)):
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


@pytest.fixture
def model(qapp):
    m = AttentionModel(demo_session())
    yield m
    m.deleteLater()


@pytest.fixture
def lesson(qtbot, model):
    panel = shown(qtbot, LessonPanel(model), (520, 900))
    model.flush()
    return panel


@pytest.fixture
def heatmaps(qtbot, model):
    return shown(qtbot, ScoresPanel(model)), shown(qtbot, WeightsPanel(model))


def click(qtbot, button):
    assert button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def click_cell(qtbot, model, panel, row, col):
    """Click a cell of a (hidden) heatmap panel, the way the reader guesses."""
    pos = panel.heatmap.cell_center(row, col).toPoint()
    qtbot.mouseClick(panel.heatmap.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    model.flush()


def start(qtbot, lesson, model):
    click(qtbot, lesson.start_button)
    model.flush()


def test_start_hides_every_stage(qtbot, model, lesson, heatmaps):
    scores, weights = heatmaps
    start(qtbot, lesson, model)
    assert model.revealed == 0
    assert scores.heatmap.is_hidden() and weights.heatmap.is_hidden()
    assert [s.reveal_button.isEnabled() for s in lesson.steps] == [True, False, False]
    assert "row of <b>追</b>" in lesson.instruction.text() and "Scores" in lesson.instruction.text()
    assert lesson.row_combo.currentText() == "追"
    # the checks wait for their stage: the reader guesses whether rows sum to 1 first
    assert "✓" not in lesson.sum_check.text() and "✓" not in lesson.hull_check.text()


def test_reveals_go_in_order(qtbot, model, lesson):
    start(qtbot, lesson, model)
    lesson.reveal(3)  # out of order: ignored
    lesson.reveal(2)
    model.flush()
    assert model.revealed == 0
    for stage, step in enumerate(lesson.steps, start=1):
        click(qtbot, step.reveal_button)
        model.flush()
        assert model.revealed == stage
        assert not step.reveal_button.isEnabled() and "shown" in step.reveal_button.text()
        assert all(s.reveal_button.isEnabled() == (s.stage == stage + 1) for s in lesson.steps)
    click(qtbot, lesson.start_button)
    model.flush()
    click(qtbot, lesson.show_all_button)
    model.flush()
    assert model.revealed == 3


def test_a_right_guess_is_judged_right(qtbot, model, lesson, heatmaps):
    scores, _ = heatmaps
    start(qtbot, lesson, model)
    click_cell(qtbot, model, scores, CHASE, CAT)
    assert model.guesses[1] == (CHASE, CAT)
    assert "猫" in lesson.steps[0].status.text() and "Reveal ①" in lesson.instruction.text()
    click(qtbot, lesson.steps[0].reveal_button)
    model.flush()
    text = lesson.steps[0].status.text()
    assert "✓" in text and "right" in text and "猫" in text and "2.31" in text
    assert "激光点" in text  # 追 scores 猫 and 激光点 the same: a tie, said so
    assert not scores.heatmap.is_hidden()


def test_a_wrong_guess_names_the_darkest(qtbot, model, lesson, heatmaps):
    scores, weights = heatmaps
    start(qtbot, lesson, model)
    click(qtbot, lesson.steps[0].reveal_button)
    model.flush()
    click_cell(qtbot, model, weights, CHASE, CHASE)  # 追 looks at itself? no
    assert model.guesses[2] == (CHASE, CHASE)
    click(qtbot, lesson.steps[1].reveal_button)
    model.flush()
    text = lesson.steps[1].status.text()
    assert "✗" in text and "✓" not in text
    assert "猫 and 激光点" in text and "(0.45 each)" in text and "you picked <b>追</b> (0.05)" in text
    assert "0.455" not in text  # two decimals, as the Weights heatmap prints them


def test_the_guess_row_follows_the_clicked_row(qtbot, model, lesson, heatmaps):
    scores, _ = heatmaps
    start(qtbot, lesson, model)
    click_cell(qtbot, model, scores, DOT, RED)
    assert lesson.row_combo.currentText() == "激光点"
    click(qtbot, lesson.steps[0].reveal_button)
    model.flush()
    assert "✓" in lesson.steps[0].status.text() and "红色" in lesson.steps[0].status.text()
    lesson.row_combo.setCurrentIndex(CAT)
    model.flush()
    assert model.settings.selected_row == CAT


def test_experiment_one_starts_the_step_through(qtbot, model, lesson):
    model.set_selection(row=DOT)
    click(qtbot, lesson.cards[0].setup_button)
    model.flush()
    assert model.revealed == 0 and model.settings.selected_row == CHASE
    lesson.reveal(1)
    lesson.reveal(2)
    model.flush()
    assert "✓ every row of ② sums to 1" in lesson.cards[0].live.text().replace("</span>", "")


def test_experiment_two_shows_the_row_of_chase(qtbot, model, lesson):
    model.set_revealed(0)
    click(qtbot, lesson.cards[1].setup_button)
    model.flush()
    assert model.revealed == 3 and model.settings.selected_row == CHASE
    w = model.results.heads.weights[0]
    assert w[CHASE, CAT] == pytest.approx(0.455, abs=1e-3) and w[CHASE, DOT] == pytest.approx(0.455, abs=1e-3)
    live = lesson.cards[1].live.text()
    assert "猫 <b>0.45</b>" in live and "激光点 <b>0.45</b>" in live
    # the output mixes 猫's animal with 激光点's colour and motion, printed as the Output heatmap prints it
    assert "O(追) = 0.45·v(猫) + 0.05·v(追) + 0.05·v(红色) + 0.45·v(激光点) = [0.45, 0.18, 0.41]" in live
    assert "0.455" not in live and "Not the demo" not in live


def test_experiment_three_shows_laser_dot_looking_at_red(qtbot, model, lesson):
    click(qtbot, lesson.cards[2].setup_button)
    model.flush()
    assert model.revealed == 3 and model.settings.selected_row == DOT
    assert model.results.heads.weights[0][DOT, RED] == pytest.approx(0.593, abs=1e-3)
    live = lesson.cards[2].live.text()
    assert "红色 <b>0.59</b>" in live and "✓" in live and "Not the demo" not in live


def test_experiment_four_swaps_k_and_the_pattern_follows(qtbot, model, lesson):
    k0 = model.matrix("K").copy()
    click(qtbot, lesson.cards[3].setup_button)
    model.flush()
    before = model.results.heads.weights[0][CHASE].copy()
    assert before[CAT] == pytest.approx(0.455, abs=1e-3) and before[RED] == pytest.approx(0.045, abs=1e-3)
    click(qtbot, lesson.swap_button)
    model.flush()
    np.testing.assert_array_equal(model.matrix("K"), k0[[RED, CHASE, CAT, DOT]])
    after = model.results.heads.weights[0][CHASE]
    assert after[RED] == pytest.approx(before[CAT]) and after[CAT] == pytest.approx(before[RED])
    assert "swapped" in lesson.cards[3].live.text() and "红色 and 激光点" in lesson.cards[3].live.text()
    assert lesson.swap_button.text() == "Swap them back"
    click(qtbot, lesson.swap_button)  # a second click swaps back
    model.flush()
    np.testing.assert_array_equal(model.matrix("K"), k0)
    assert lesson.swap_button.text() == "Swap K rows of 猫 and 红色"
    model.undo_stack.undo()  # both swaps are undo steps
    model.flush()
    np.testing.assert_array_equal(model.matrix("K"), k0[[RED, CHASE, CAT, DOT]])


def test_set_it_up_brings_the_demo_back_as_one_undo_step(qtbot, model, lesson):
    model.set_cell("Q", CHASE, 0, -1.0)
    model.set_param("causal", True)
    model.flush()
    steps = model.undo_stack.count()
    click(qtbot, lesson.cards[1].setup_button)
    model.flush()
    demo = demo_session()
    for name in "QKV":
        np.testing.assert_array_equal(model.matrix(name), demo.matrices[name])
    assert not model.settings.causal and model.undo_stack.count() == steps + 1
    assert lesson.cards[1].note.isVisible() and "Ctrl+Z" in lesson.cards[1].note.text()
    model.undo_stack.undo()
    model.flush()
    assert model.matrix("Q")[CHASE, 0] == -1.0 and model.settings.causal


def test_checks_show_ticks_on_the_demo(qtbot, model, lesson):
    assert model.revealed == 3
    assert lesson.sum_check.text().count("✓") == 1 and "✗" not in lesson.sum_check.text()
    assert "sums to 1" in lesson.sum_check.text() and "max deviation" in lesson.sum_check.text()
    assert lesson.hull_check.text().count("✓") == 1 and "convex hull" in lesson.hull_check.text()
    assert "No row is fully masked" in lesson.excluded_note.text()


def test_checks_follow_edits_live(qtbot, model, lesson):
    model.set_param("heads", 3)
    model.set_param("causal", True)
    model.flush()
    assert "in every head (3)" in lesson.sum_check.text() and "✓" in lesson.sum_check.text()
    assert "its head's slice of V" in lesson.hull_check.text() and "✓" in lesson.hull_check.text()


def test_the_guess_verdict_respects_the_causal_mask(qtbot, model, lesson, heatmaps):
    scores, _ = heatmaps
    model.set_param("causal", True)
    start(qtbot, lesson, model)
    click_cell(qtbot, model, scores, CHASE, DOT)  # the future: masked
    click(qtbot, lesson.steps[0].reveal_button)
    model.flush()
    text = lesson.steps[0].status.text()
    assert "✗" in text and "masked" in text and "<b>猫</b>" in text


# ----- regressions from the user test ----------------------------------------------------------------
def statuses(lesson):
    return [s.status.text() for s in lesson.steps]


def test_a_guess_whose_token_was_removed_is_no_guess(qtbot, model, lesson, heatmaps):
    scores, weights = heatmaps
    start(qtbot, lesson, model)
    click_cell(qtbot, model, scores, DOT, DOT)  # the last row and column
    assert model.guesses[1] == (DOT, DOT)
    assert model.remove_token(DOT)
    model.flush()  # used to raise IndexError at labels[guess[1]]
    assert "Your guess" not in lesson.instruction.text() and "Click the cell" in lesson.instruction.text()
    click(qtbot, lesson.steps[0].reveal_button)  # used to raise ShapeError from judge_guess
    model.flush()
    assert model.revealed == 1 and "Shown. Darkest" in lesson.steps[0].status.text()


def test_the_panel_never_indexes_a_stale_guess_out_of_range(qtbot, model, lesson):
    """Even if a guess outlives a shape change (the model clears them, but the panel must not rely on it)."""
    start(qtbot, lesson, model)
    assert model.remove_token(DOT) and model.remove_dim("v")
    model.flush()
    model.lesson.guesses = {1: (3, 3), 2: (0, 3), 3: (1, 2)}  # rows, columns and a V dimension that are gone
    lesson.refresh()
    assert "Click the cell" in lesson.instruction.text()
    assert "Your guess" not in " ".join(statuses(lesson))
    for stage in (1, 2, 3):
        lesson.reveal(stage)
        model.flush()
        lesson.refresh()
    assert model.revealed == 3
    text = " ".join(statuses(lesson))
    assert "✓" not in text and "✗" not in text and "Shown." in text


def test_removing_a_v_dimension_after_guessing_in_the_output_does_not_crash(qtbot, model, lesson):
    output = shown(qtbot, OutputPanel(model))
    start(qtbot, lesson, model)
    lesson.reveal(1)
    lesson.reveal(2)
    model.flush()
    click_cell(qtbot, model, output, CHASE, 2)  # the hidden Output panel records a click as a guess …
    assert "Your guess" not in lesson.steps[2].status.text()  # … but ③ takes no darkest-cell guess
    assert model.remove_dim("v")
    model.flush()
    click(qtbot, lesson.steps[2].reveal_button)
    model.flush()
    assert model.revealed == 3 and "Shown. The row of 追 mixes" in lesson.steps[2].status.text()


def test_step_three_asks_which_values_the_row_mixes_and_answers_after_the_reveal(qtbot, model, lesson):
    start(qtbot, lesson, model)
    lesson.reveal(1)
    lesson.reveal(2)
    model.flush()
    instruction = lesson.instruction.text()
    assert "Which values will the row of <b>追</b> mix?" in instruction and "largest weights" in instruction
    assert "click" not in instruction.lower() and "darkest" not in instruction
    hidden = lesson.steps[2].status.text()
    assert "Which rows of V" in hidden and "click" not in hidden.lower()
    lesson.reveal(3)
    model.flush()
    answer = lesson.steps[2].status.text()
    assert "mixes mostly <b>v(猫)</b> 0.45 and <b>v(激光点)</b> 0.45" in answer
    assert "the other 2 keys hold 0.09" in answer
    model.set_selection(row=DOT)
    model.flush()
    assert "<b>v(红色)</b> 0.59 and <b>v(激光点)</b> 0.26" in lesson.steps[2].status.text()


def test_card_two_with_several_heads_shows_the_heads_own_formula(qtbot, model, lesson):
    model.set_param("heads", 3)  # d_v = 3: three heads of width 1
    model.set_selection(head=1)
    model.flush()
    r = model.results
    live = lesson.cards[1].live.text()
    head_out = r.heads.head_outputs[1, CHASE]
    assert "head 2 of 3" in live and "head 2: O<sub>2</sub>(追) = 0.25·v<sub>2</sub>(猫)" in live
    assert f"= [{format_value(head_out[0])}]" in live and "V[:, d1]" in live
    assert "[0.45, 0.18, 0.41]" not in live  # never one head's weights with the full output
    assert NOT_DEMO in live  # and heads ≠ 1 is not the demo's setting


def test_card_three_counts_a_tie_as_the_largest(qtbot, model, lesson):
    assert model.set_block("Q", DOT, 0, np.zeros((1, 3)))  # 激光点 asks nothing: 0.25 everywhere
    model.flush()
    np.testing.assert_allclose(model.results.heads.weights[0][DOT], 0.25)
    live = lesson.cards[2].live.text()
    assert "✗" not in live and "the largest is now" not in live
    assert "✓" in live and "tied with 猫, 追 and 激光点" in live


def test_cards_two_and_three_warn_when_not_on_the_demo(qtbot, model, lesson):
    for card in lesson.cards[1:3]:
        assert NOT_DEMO not in card.live.text()
    model.set_param("causal", True)
    model.flush()
    for card in lesson.cards[1:3]:
        assert NOT_DEMO in card.live.text()
    click(qtbot, lesson.cards[2].setup_button)
    model.flush()
    click(qtbot, lesson.swap_button)  # experiment ④'s swapped K is not the demo either
    model.flush()
    assert NOT_DEMO in lesson.cards[1].live.text() and "swapped" in lesson.cards[1].live.text()
    click(qtbot, lesson.cards[1].setup_button)
    model.flush()
    for card in lesson.cards[1:3]:
        assert NOT_DEMO not in card.live.text()


def test_start_keeps_the_controls_and_the_steps_in_view_in_a_short_dock(qtbot, model):
    lesson = shown(qtbot, LessonPanel(model), (420, 370))
    model.flush()
    bar = lesson.scroll.verticalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum())  # the reader scrolled down to the experiments
    click(qtbot, lesson.start_button)
    model.flush()
    for w in (lesson.start_button, lesson.show_all_button, lesson.row_combo):
        top_left = w.mapTo(lesson, QPoint(0, 0))
        assert w.isVisible() and 0 <= top_left.y() and top_left.y() + w.height() <= lesson.height()
    viewport = lesson.scroll.viewport()
    for w in (lesson.steps_box, lesson.instruction):
        y = w.mapTo(viewport, QPoint(0, 0)).y()
        assert 0 <= y < viewport.height()
    assert lesson.start_button.text() == "Start again"


def test_the_show_all_note_names_the_button_as_it_reads(qtbot, model, lesson, heatmaps):
    scores, _ = heatmaps
    assert lesson.start_button.text() == "Start the lesson"
    assert "<b>Start the lesson</b> hides them again" in lesson.instruction.text()
    start(qtbot, lesson, model)
    click_cell(qtbot, model, scores, CHASE, CAT)
    click(qtbot, lesson.show_all_button)
    model.flush()
    assert lesson.start_button.text() == "Start again"
    assert "<b>Start again</b> hides them again" in lesson.instruction.text()


def test_the_loaded_note_goes_when_the_undo_stack_moves(qtbot, model, lesson):
    model.set_cell("Q", CHASE, 0, -1.0)
    model.flush()
    click(qtbot, lesson.cards[1].setup_button)
    model.flush()
    note = lesson.cards[1].note
    assert note.isVisible() and "Ctrl+Z" in note.text()
    model.undo_stack.undo()
    model.flush()
    assert not note.isVisible() and note.text() == ""
    model.undo_stack.redo()  # back at the state, but the note was about the step just taken: it stays gone
    model.flush()
    assert not note.isVisible()
    click(qtbot, lesson.swap_button)
    model.flush()
    model.set_cell("Q", CHASE, 0, -1.0)
    model.flush()
    click(qtbot, lesson.swap_button)  # load + swap: the note survives its own two steps …
    model.flush()
    assert lesson.cards[3].note.isVisible() and "twice" in lesson.cards[3].note.text()
    model.set_cell("V", 0, 0, 0.5)  # … and goes with the next edit
    model.flush()
    assert not lesson.cards[3].note.isVisible()


def test_verdicts_are_frozen_at_reveal_and_cleared_by_a_restart(qtbot, model, lesson, heatmaps):
    _, weights = heatmaps
    start(qtbot, lesson, model)
    lesson.reveal(1)
    model.flush()
    click_cell(qtbot, model, weights, CHASE, CHASE)  # 追 looks at itself? not in the demo
    lesson.hide()  # the verdict is written at the reveal even while the lesson is not on screen
    click(qtbot, weights.reveal_button)
    model.flush()
    assert model.set_block("Q", CHASE, 0, np.array([[0.0, 2.0, 0.0]]))  # now 追 does look at itself
    model.flush()
    assert model.results.heads.weights[0][CHASE].argmax() == CHASE
    lesson.show()
    qtbot.waitExposed(lesson)
    text = lesson.steps[1].status.text()
    assert "✗" in text and "猫 and 激光点" in text and "(0.45 each)" in text  # what the reader saw
    assert "changed since" in text
    click(qtbot, lesson.start_button)
    model.flush()
    assert lesson._verdicts == {} and "Hidden" in lesson.steps[1].status.text()
    lesson.reveal(1)
    lesson.reveal(2)
    model.flush()
    assert "✗" not in lesson.steps[1].status.text() and "✓" not in lesson.steps[1].status.text()


def test_setting_up_experiment_two_asks_for_the_readout(qtbot, model, lesson):
    with qtbot.waitSignal(lesson.showPanel, timeout=1000, check_params_cb=lambda name: name == "readout"):
        click(qtbot, lesson.cards[1].setup_button)
    with qtbot.assertNotEmitted(lesson.showPanel):
        click(qtbot, lesson.cards[2].setup_button)


def test_card_weights_use_two_decimals_unless_more_tell_them_apart():
    assert weight_texts([0.4548, 0.0452, 0.0452, 0.4548]) == ["0.45", "0.05", "0.05", "0.45"]
    assert weight_texts([0.451, 0.454]) == ["0.451", "0.454"]  # both "0.45" with two decimals
    assert weight_texts([0.454], among=[0.451, 0.454, 0.09]) == ["0.454"]
    assert weight_texts([0.001, 0.999]) == ["<0.01", "1.00"]  # not zero, so not "0.00"
    assert weight_texts([0.0, 1.0]) == ["0.00", "1.00"]


def test_another_preset_warns_on_every_experiment_card(qtbot, model, lesson):
    model.load(previous_token_session())
    model.flush()
    for card in lesson.cards[1:]:
        assert NOT_DEMO in card.live.text() and "not the demo's" in card.live.text()
    click(qtbot, lesson.cards[2].setup_button)
    model.flush()
    assert model.tokens == demo_session().tokens
    for card in lesson.cards[1:]:
        assert NOT_DEMO not in card.live.text()


def test_the_scores_step_counts_lq_times_lk_products_in_a_cross_session(qtbot, model, lesson):
    assert "all L² dot products" in lesson.steps[0].en.text()
    assert model.set_cross(True)
    model.flush()
    lesson.refresh()
    assert "all Lq × Lk dot products" in lesson.steps[0].en.text() and "L² dot" not in lesson.steps[0].en.text()
    model.undo_stack.undo()
    model.flush()
    lesson.refresh()
    assert "all L² dot products" in lesson.steps[0].en.text()
