"""F9 RoPE panel: settings bound to the model, the rotation plane, spectrum, score-vs-offset, the diagonal proof."""
import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtWidgets import QStyle, QStyleOptionSlider

from explorer.core import rope, split_heads
from explorer.core.presets import demo_session, random_session
from explorer.core.rope import Llama3Scaling, rope_frequencies
from explorer.core.settings_schema import SCHEMA
from explorer.core.rope_lesson import (DEFAULT_STARTS, degrees, diagonal_deviation, head_slice, pair_vectors,
                                       rotated_pair, score_vs_offset)
from explorer.panels.controls import ControlsPanel
from explorer.panels.rope import OFFSET_SPAN, RopePanel
from explorer.panels.scores import ScoresPanel
from tests.gui.panel_helpers import show_panel
from tests.gui.same_numbers import assert_same_numbers


def make(qtbot, session=None, size=(900, 650)):
    return show_panel(qtbot, RopePanel, session=session if session is not None else random_session(6, 8, seed=1), size=size)


def core_scores(model, rope_on=None):
    """The selected pipeline's scores from the core: split heads, RoPE per head, q·kᵀ·scale/T."""
    s = model.settings
    rope_on = s.rope if rope_on is None else rope_on
    qh, kh = split_heads(model.matrix("Q"), s.heads), split_heads(model.matrix("K"), s.heads)
    if rope_on:
        positions = s.rope_offset + np.arange(len(model.tokens))
        qh = rope(qh, positions, base=s.rope_base, style=s.rope_style)
        kh = rope(kh, positions, base=s.rope_base, style=s.rope_style)
    d_h = qh.shape[-1]
    return qh @ kh.transpose(0, 2, 1) * (1 / np.sqrt(d_h)) / s.temperature


def tip(line):
    x, y = line.getOriginalDataset()
    assert len(x) == 2 and x[0] == 0 and y[0] == 0  # an arrow from the origin
    return np.array([x[1], y[1]])


def head_vectors(model, key_row):
    s = model.settings
    return (head_slice(model.matrix("Q")[s.selected_row], s.selected_head, s.heads),
            head_slice(model.matrix("K")[key_row], s.selected_head, s.heads))


def choose(combo, data=None, index=None):
    """Pick an entry of a combo box as a user does (``activated`` follows a user's choice only)."""
    index = combo.findData(data) if index is None else index
    assert index >= 0
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def drag_slider(qtbot, ui, slider, to_fraction):
    """A real mouse drag of a QSlider's handle to a fraction of its groove."""
    opt = QStyleOptionSlider()
    slider.initStyleOption(opt)
    handle = slider.style().subControlRect(QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderHandle,
                                           slider)
    start = handle.center()
    left = QPoint(slider.rect().left() + handle.width() // 2, start.y())
    right_x = slider.rect().right() - handle.width() // 2
    ui.send_mouse(slider, QEvent.Type.MouseButtonPress, start, Qt.MouseButton.LeftButton)
    steps = 6
    for k in range(1, steps + 1):
        x = start.x() + (left.x() + to_fraction * (right_x - left.x()) - start.x()) * k / steps
        ui.send_mouse(slider, QEvent.Type.MouseMove, QPoint(round(x), start.y()), Qt.MouseButton.LeftButton)
    end = QPoint(round(left.x() + to_fraction * (right_x - left.x())), start.y())
    ui.send_mouse(slider, QEvent.Type.MouseButtonRelease, end, Qt.MouseButton.NoButton)


# ---------------------------------------------------------------- the model's settings

def test_the_rope_checkbox_changes_the_scores_exactly_as_the_core_says(qtbot):
    model, panel = make(qtbot)
    model.set_param("heads", 2)
    model.flush()
    plain = model.results.heads.scores.copy()
    np.testing.assert_allclose(plain, core_scores(model, rope_on=False), rtol=0, atol=1e-12)
    assert panel.rope_box.isEnabled() and not panel.rope_box.isChecked()

    qtbot.mouseClick(panel.rope_box, Qt.MouseButton.LeftButton)
    model.flush()
    assert model.settings.rope
    np.testing.assert_allclose(model.results.heads.scores, core_scores(model), rtol=0, atol=1e-12)
    assert np.abs(model.results.heads.scores - plain).max() > 0.1  # the heatmaps do change

    for label, change in (("convention", lambda: choose(panel.style_combo, "interleaved")),
                          ("base", lambda: panel.base_slider.setValue(500.0)),
                          ("offset", lambda: panel.offset_box.setValue(7))):
        before = model.results.heads.scores.copy()
        change()
        model.flush()
        np.testing.assert_allclose(model.results.heads.scores, core_scores(model), rtol=0, atol=1e-12,
                                   err_msg=label)
        if label == "offset":  # shifting every position changes no score: only distances count
            np.testing.assert_allclose(model.results.heads.scores, before, rtol=0, atol=1e-12)
        else:
            assert np.abs(model.results.heads.scores - before).max() > 1e-3, label
    s = model.settings
    assert (s.rope_style, s.rope_base, s.rope_offset) == ("interleaved", 500.0, 7)

    qtbot.mouseClick(panel.rope_box, Qt.MouseButton.LeftButton)  # off again
    model.flush()
    assert not model.settings.rope
    assert_same_numbers(model.results.heads.scores, plain)


def test_the_panel_follows_the_model(qtbot):
    model, panel = make(qtbot)
    for name, value in (("rope", True), ("rope_base", 2500.0), ("rope_style", "interleaved"), ("rope_offset", 40)):
        model.set_param(name, value)
    model.flush()
    assert panel.rope_box.isChecked()
    assert panel.base_slider.value() == 2500.0
    assert panel.style_combo.currentData() == "interleaved"
    assert panel.offset_box.value() == 40
    model.undo_stack.undo()
    model.undo_stack.undo()
    model.flush()
    assert panel.offset_box.value() == 0 and panel.style_combo.currentData() == "half"


def test_a_base_slider_drag_is_one_undo_step(qtbot, ui):
    model, panel = make(qtbot)
    steps = model.undo_stack.count()
    drag_slider(qtbot, ui, panel.base_slider.slider, 0.9)
    model.flush()
    assert model.settings.rope_base > 1e5  # far right on a log scale 100..1e6
    assert model.undo_stack.count() == steps + 1
    model.undo_stack.undo()
    model.flush()
    assert model.settings.rope_base == 10000.0
    assert panel.base_slider.value() == 10000.0


def test_the_checkbox_is_disabled_with_the_reason_for_the_demo(qtbot):
    model, panel = make(qtbot, demo_session())
    problem = model.rope_problem()
    assert problem is not None and "d_h = 3 is odd" in problem
    assert not panel.rope_box.isEnabled()
    assert panel.rope_box.toolTip() == problem
    assert not panel.toeplitz_button.isEnabled()
    assert panel.problem_label.isVisible() and "odd" in panel.problem_label.text()
    assert not panel.plane_tile.isVisible() and panel.view is None  # no pairs to draw
    steps = model.undo_stack.count()
    qtbot.mouseClick(panel.rope_box, Qt.MouseButton.LeftButton)  # a disabled box ignores the click
    model.flush()
    assert not model.settings.rope and model.undo_stack.count() == steps
    # with an even width it comes back
    model.add_dim("qk")
    model.flush()
    assert model.rope_problem() is None
    assert panel.rope_box.isEnabled() and panel.plane_tile.isVisible() and panel.view is not None
    assert not panel.problem_label.isVisible()


# ---------------------------------------------------------------- the rotation plane and the plots

@pytest.mark.parametrize("style", ["half", "interleaved"])
def test_m_n_and_pair_move_the_arrows_as_the_core_turns_them(qtbot, style):
    model, panel = make(qtbot)
    model.set_param("rope_style", style)
    model.set_param("heads", 2)  # d_h = 4: two pairs
    model.set_selection(row=2, head=1)
    model.flush()
    choose(panel.key_combo, index=4)
    model.flush()  # the key is the model's selection: the panel draws it on the next turn
    q, k = head_vectors(model, 4)
    theta = 10000.0 ** (-np.arange(0, 4, 2) / 4)

    def check(pair, m, n):
        np.testing.assert_allclose(tip(panel.q_line), rotated_pair(pair_vectors(q, pair, style), m, theta[pair]),
                                   rtol=0, atol=1e-12)
        np.testing.assert_allclose(tip(panel.k_line), rotated_pair(pair_vectors(k, pair, style), n, theta[pair]),
                                   rtol=0, atol=1e-12)
        np.testing.assert_allclose(tip(panel.q_ghost), pair_vectors(q, pair, style), rtol=0, atol=0)
        assert panel.q_head.pos().x() == pytest.approx(tip(panel.q_line)[0])
        assert panel.angle_text.toPlainText() == f"{degrees(panel.view.angle):.1f}°"

    m0, n0 = panel.m_slider.value(), panel.n_slider.value()
    check(0, m0, n0)
    k_before = tip(panel.k_line)
    panel.m_slider.slider.setValue(m0 + 3)  # as a drag moves it
    check(0, m0 + 3, n0)
    np.testing.assert_array_equal(tip(panel.k_line), k_before)  # only q turned
    panel.n_slider.read_out.setValue(20)  # typed
    check(0, m0 + 3, 20)
    panel.pair_slider.setValue(1)
    check(1, m0 + 3, 20)
    assert panel.pair_slider.maximum() == 1
    # the spectrum marks the chosen pair at its θ
    x, y = panel.theta_marker.getOriginalDataset()
    assert (x[0], y[0]) == (1.0, pytest.approx(theta[1]))


def test_base_changes_the_slow_pairs_the_spectrum_and_the_score_curves(qtbot):
    model, panel = make(qtbot)
    model.set_param("heads", 2)
    model.flush()
    panel.pair_slider.setValue(1)
    panel.m_slider.slider.setValue(5)  # query 0 sits at position 0, where no base turns it
    arrow = tip(panel.q_line)
    thetas = panel.theta_curve.getOriginalDataset()[1].copy()
    curve = panel.start_curves[0].getOriginalDataset()[1].copy()
    panel.base_slider.setValue(100.0)
    model.flush()
    assert model.settings.rope_base == 100.0
    np.testing.assert_allclose(panel.theta_curve.getOriginalDataset()[1], [1.0, 0.1], rtol=1e-12)
    assert not np.allclose(panel.theta_curve.getOriginalDataset()[1], thetas)
    assert not np.allclose(tip(panel.q_line), arrow)  # pair 1 turns 100× faster than at base 10000
    assert not np.allclose(panel.start_curves[0].getOriginalDataset()[1], curve)


def test_the_score_curves_are_the_cores_and_lie_on_top_of_each_other(qtbot):
    model, panel = make(qtbot)
    model.set_param("rope_base", 300.0)
    model.set_selection(row=1)
    model.flush()
    choose(panel.key_combo, index=3)
    model.flush()  # the key is the model's selection: the panel draws it on the next turn
    q, k = head_vectors(model, 3)
    offsets = np.arange(-OFFSET_SPAN, OFFSET_SPAN + 1)
    expected = score_vs_offset(q, k, offsets, DEFAULT_STARTS, base=300.0, style="half")
    assert len(panel.start_curves) == len(DEFAULT_STARTS) >= 3
    for item, row in zip(panel.start_curves, expected):
        x, y = item.getOriginalDataset()
        np.testing.assert_array_equal(x, offsets)
        np.testing.assert_allclose(y, row, rtol=0, atol=1e-12)
        np.testing.assert_allclose(y, expected[0], rtol=0, atol=1e-10)  # the curves coincide
    assert "equal offsets give equal scores" in panel.score_plot.getPlotItem().titleLabel.text
    # the marker sits on the curve at m − n
    panel.m_slider.slider.setValue(30)
    panel.n_slider.slider.setValue(12)
    x, y = panel.score_marker.getOriginalDataset()
    assert x[0] == 18
    assert y[0] == pytest.approx(expected[0][list(offsets).index(18)], abs=1e-12)
    assert panel.offset_line.value() == 18


def test_lock_distance_moves_n_with_m_and_keeps_the_angle_and_the_pair_score(qtbot):
    model, panel = make(qtbot)
    panel.pair_slider.setValue(1)
    panel.m_slider.slider.setValue(9)
    panel.n_slider.slider.setValue(4)
    angle, pair_score, score = panel.view.angle, panel.view.pair_score, panel.view.score
    q_tip = tip(panel.q_line)
    qtbot.mouseClick(panel.lock_box, Qt.MouseButton.LeftButton)
    assert panel.lock_box.isChecked() and panel.lock_note.isVisible()
    assert "stay fixed" in panel.lock_note.text()
    panel.m_slider.slider.setValue(30)
    assert panel.n_slider.value() == 25
    assert not np.allclose(tip(panel.q_line), q_tip)  # the arrows turned…
    assert panel.view.angle == pytest.approx(angle, abs=1e-12)  # …but not apart
    assert panel.view.pair_score == pytest.approx(pair_score, abs=1e-12)
    assert panel.view.score == pytest.approx(score, abs=1e-12)
    panel.n_slider.slider.setValue(0)
    assert panel.m_slider.value() == 5
    panel.m_slider.slider.setValue(2)  # n cannot go below 0: m stops at 5
    assert (panel.m_slider.value(), panel.n_slider.value()) == (5, 0)
    qtbot.mouseClick(panel.lock_box, Qt.MouseButton.LeftButton)
    panel.m_slider.slider.setValue(40)
    assert panel.n_slider.value() == 0 and not panel.lock_note.isVisible()


# ---------------------------------------------------------------- the diagonal proof

def test_same_q_and_k_everywhere_gives_constant_diagonals_in_one_undo_step(qtbot):
    model, panel = make(qtbot)
    model.set_param("heads", 2)
    model.set_selection(row=3)
    model.flush()
    choose(panel.key_combo, index=1)
    model.flush()  # the key is the model's selection: the panel draws it on the next turn
    q0, k0 = model.matrix("Q").copy(), model.matrix("K").copy()
    assert diagonal_deviation(model.results.heads.scores) > 0.1
    assert "differ by up to" in panel.toeplitz_label.text()
    steps = model.undo_stack.count()

    qtbot.mouseClick(panel.toeplitz_button, Qt.MouseButton.LeftButton)
    model.flush()
    assert model.undo_stack.count() == steps + 1  # Q, K and RoPE on: ONE step
    assert model.settings.rope
    np.testing.assert_array_equal(model.matrix("Q"), np.tile(q0[3], (6, 1)))
    np.testing.assert_array_equal(model.matrix("K"), np.tile(k0[1], (6, 1)))
    scores = model.results.heads.scores
    for h in range(2):
        assert diagonal_deviation(scores[h]) < 1e-12
        assert np.ptp(scores[h]) > 1e-3  # yet not constant: it changes from one diagonal to the next
    assert panel.deviation == diagonal_deviation(scores[model.settings.selected_head]) < 1e-12
    text = panel.toeplitz_label.text()
    assert "constant along each diagonal" in text and f"max deviation {panel.deviation:.1e}" in text

    qtbot.mouseClick(panel.toeplitz_button, Qt.MouseButton.LeftButton)  # nothing left to change: no new step
    model.flush()
    assert model.undo_stack.count() == steps + 1

    model.undo_stack.undo()
    model.flush()
    np.testing.assert_array_equal(model.matrix("Q"), q0)
    np.testing.assert_array_equal(model.matrix("K"), k0)
    assert not model.settings.rope and model.undo_stack.count() == steps + 1
    assert "differ by up to" in panel.toeplitz_label.text()
    model.undo_stack.redo()
    model.flush()
    assert model.settings.rope and diagonal_deviation(model.results.heads.scores) < 1e-12


def test_the_proof_needs_direct_mode(qtbot):
    model, panel = make(qtbot)
    model.set_param("source", "projected")
    model.flush()
    assert not panel.toeplitz_button.isEnabled()
    assert "direct mode" in panel.toeplitz_button.toolTip()
    messages = []
    model.message.connect(messages.append)
    steps = model.undo_stack.count()
    assert panel.same_q_and_k_everywhere() is False
    assert model.undo_stack.count() == steps and "direct mode" in messages[-1]
    # the plane still works in projected mode (q and k before RoPE are X·W_qᵀ, X·W_kᵀ)
    assert panel.view is not None and panel.plane_tile.isVisible()


# ---------------------------------------------------------------- following the selection

def test_m_and_n_follow_the_query_and_key_clicked_in_a_heatmap(qtbot):
    """A click on a score cell selects its query and key (the model's selection); the RoPE panel's m and n move
    to their positions, offset + row and offset + column, and its plane then scores that very cell."""
    model, panel = make(qtbot)
    scores = ScoresPanel(model)
    qtbot.addWidget(scores)
    scores.resize(500, 400)
    scores.show()
    qtbot.waitExposed(scores)
    model.set_param("rope", True)
    model.set_param("rope_offset", 10)
    model.flush()
    pos = scores.heatmap.cell_center(4, 1).toPoint()
    qtbot.mouseClick(scores.heatmap.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    model.flush()
    assert (model.selection.row, model.selection.key) == (4, 1)
    assert (panel.m_slider.value(), panel.n_slider.value()) == (14, 11)
    assert panel.query_combo.currentIndex() == 4 and panel.key_combo.currentIndex() == 1
    scale = 1 / np.sqrt(8)
    assert panel.view.score * scale == pytest.approx(model.results.heads.scores[0][4, 1], abs=1e-12)
    # moved by hand, m stays (an edit, a base change) until the next choice
    panel.m_slider.slider.setValue(30)
    model.set_param("rope_base", 500.0)
    model.flush()
    assert panel.m_slider.value() == 30
    choose(panel.query_combo, index=2)
    model.flush()
    assert (panel.m_slider.value(), panel.n_slider.value()) == (12, 11)


def test_m_and_n_reach_every_position_the_session_has(qtbot):
    model, panel = make(qtbot, random_session(80, 4, seed=2))
    model.set_param("rope_offset", 1000)
    model.set_selection(row=79, key=3)
    model.flush()
    assert panel.m_slider.maximum() == 1079 and panel.m_slider.value() == 1079 and panel.n_slider.value() == 1003
    assert "outside ±63" in panel.score_readout.text()       # m − n = 76


def test_the_key_survives_adding_a_token_before_it(qtbot):
    model, panel = make(qtbot)
    model.set_selection(row=3, key=2)
    model.add_token(at=0)
    model.flush()
    assert (model.selection.row, model.selection.key) == (4, 3)
    assert panel.key_combo.currentIndex() == 3


# ---------------------------------------------------------------- Llama 3.1's scaling

def test_llama3_scaling_is_chosen_here_and_drawn_with_its_bands(qtbot):
    model, panel = make(qtbot, random_session(6, 16, seed=3))
    model.set_param("rope", True)
    model.set_param("rope_base", 500000.0)
    model.flush()
    assert not panel.groups["factor"].isVisible() and not panel.plain_curve.getOriginalDataset()[0]
    steps = model.undo_stack.count()
    choose(panel.scaling_combo, "llama3")
    model.flush()
    assert model.settings.rope_scaling == "llama3" and model.undo_stack.count() == steps + 1
    for group in ("factor", "low", "high", "context"):
        assert panel.groups[group].isVisible()
    assert panel.factor_slider.toolTip() == SCHEMA["rope_factor"].tooltip
    panel.context_box.setValue(64)        # a spin box sends its value (Enter, arrows)
    model.flush()
    assert model.settings.rope_original_max_position_embeddings == 64
    scaling = Llama3Scaling(8.0, 1.0, 4.0, 64)
    _, thetas = panel.theta_curve.getOriginalDataset()
    np.testing.assert_array_equal(thetas, rope_frequencies(16, 500000.0, scaling))
    np.testing.assert_array_equal(panel.plain_curve.getOriginalDataset()[1], rope_frequencies(16, 500000.0))
    keep, slow = (line.value() for line in panel.limit_lines)
    assert (keep, slow) == (pytest.approx(np.log10(2 * np.pi * 4 / 64)), pytest.approx(np.log10(2 * np.pi / 64)))
    assert "llama3-scaled: slow pairs ÷ 8" in panel.spectrum.getPlotItem().titleLabel.text
    panel.pair_slider.setValue(7)
    assert "divided by the factor" in panel.plane_readout.text()
    assert panel.view.theta == rope_frequencies(16, 500000.0)[7] / 8
    q, k = head_vectors(model, panel.key_row)
    expected = score_vs_offset(q, k, np.arange(-OFFSET_SPAN, OFFSET_SPAN + 1), DEFAULT_STARTS, base=500000.0,
                               style="half", scaling=scaling)
    np.testing.assert_array_equal(panel.start_curves[0].getOriginalDataset()[1], expected[0])


def test_crossed_bands_are_refused_and_the_box_shows_the_models_value(qtbot):
    model, panel = make(qtbot)
    choose(panel.scaling_combo, "llama3")
    model.flush()
    messages = []
    model.message.connect(messages.append)
    panel.low_box.setValue(5.0)            # above high_freq_factor 4
    model.flush()
    assert model.settings.rope_low_freq_factor == 1.0 and panel.low_box.value() == 1.0
    assert messages and messages[-1].startswith("rope_high_freq_factor is 4.0, not above rope_low_freq_factor 5.0")


def test_the_controls_say_what_rope_does_and_its_scaling_when_on(qtbot):
    model, controls = show_panel(qtbot, ControlsPanel, session=random_session(4, 8, seed=1))
    assert controls.rope.text() == "off (the RoPE panel turns it on)"
    model.set_param("rope", True)
    model.set_param("rope_base", 500000.0)
    model.flush()
    assert controls.rope.text() == "on, base 500,000"
    model.set_param("rope_scaling", "llama3")
    model.set_param("rope_factor", 32.0)
    model.flush()
    assert controls.rope.text() == ("on, base 500,000, llama3 scaling ×32 (frequency factors 1 and 4, original context "
                                    "8,192)")
    assert SCHEMA["rope_scaling"].tooltip in controls.rope.toolTip()
