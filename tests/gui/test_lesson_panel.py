"""The step-through lesson panel (F7): guess, reveal in order, the chapter's experiments, live checks."""
import numpy as np
import pytest
from PySide6.QtCore import Qt

from explorer.core.presets import demo_session
from explorer.model import AttentionModel
from explorer.panels.lesson import LessonPanel
from explorer.panels.scores import ScoresPanel
from explorer.panels.weights import WeightsPanel

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
    assert "猫 and 激光点" in text and "0.455" in text and "you picked <b>追</b>" in text


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
    assert "猫 <b>0.455</b>" in live and "激光点 <b>0.455</b>" in live
    assert "O(追)" in live and "0.182" in live  # the output mixes 猫's animal with 激光点's colour and motion


def test_experiment_three_shows_laser_dot_looking_at_red(qtbot, model, lesson):
    click(qtbot, lesson.cards[2].setup_button)
    model.flush()
    assert model.revealed == 3 and model.settings.selected_row == DOT
    assert model.results.heads.weights[0][DOT, RED] == pytest.approx(0.593, abs=1e-3)
    live = lesson.cards[2].live.text()
    assert "红色 <b>0.593</b>" in live and "✓" in live


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
