"""ALiBi through the views: chosen in the controls, shown in the Scores tooltip and the Positions panel."""
import numpy as np

from explorer.core.presets import demo_session
from explorer.panels.controls import ControlsPanel
from explorer.panels.positions import PositionsPanel
from explorer.panels.scores import ScoresPanel
from tests.gui.panel_helpers import show_panel


def test_choosing_alibi_in_the_controls_is_one_undo_step_and_works_in_direct_mode(qtbot):
    model, panel = show_panel(qtbot, ControlsPanel)
    box = panel.positions
    box.setCurrentIndex(box.findData("alibi"))
    box.activated.emit(box.currentIndex())
    model.flush()
    assert model.settings.positions == "alibi" and model.undo_stack.count() == 1
    # direct mode: sinusoidal PE (added to X) is greyed out, ALiBi is not
    item = box.model().item(box.findData("sinusoidal"))
    assert not item.isEnabled() and box.model().item(box.findData("alibi")).isEnabled()
    # scores of 猫 → 激光点 (distance 3, 1 head, slope 2^-8): q·k/√3 − 3/256 = (1 + 2)/√3·… by hand
    q, k = demo_session().matrices["Q"], demo_session().matrices["K"]
    dot = float(q[0] @ k[3])  # 0.5·2 + 1.5·0 + 0·1 = 1.0
    assert dot == 1.0
    assert np.isclose(model.results.heads.scores[0, 0, 3], 1.0 / np.sqrt(3) - 3 / 256, rtol=0, atol=1e-15)
    model.undo_stack.undo()
    model.flush()
    assert model.settings.positions == "none" and model.results.slopes is None


def test_the_scores_tooltip_adds_the_bias(qtbot):
    model, panel = show_panel(qtbot, ScoresPanel)
    model.set_param("heads", 3)
    model.set_param("positions", "alibi")
    model.set_selection(head=2)
    model.flush()
    panel.refresh()
    text = panel.tooltip(3, 0)  # 激光点 → 猫: distance 3; head 3 of 3 has slope 2^-2
    assert "+ ALiBi bias −m·|i − j| = -0.75\n= -0.75" in text  # q·k = 1·0 in head 3 (d2)
    assert "0.25·|i − j|" in panel.caption.text()


def test_the_positions_panel_plots_the_slopes_and_the_bias_of_the_shown_head(qtbot):
    model, panel = show_panel(qtbot, PositionsPanel, size=(700, 600))
    model.set_param("heads", 3)
    model.set_param("positions", "alibi")
    model.set_selection(head=0)
    model.flush()
    panel.refresh()
    assert panel.alibi.isChecked() and panel.bias_map.isVisible() and not panel.heatmap.isVisible()
    heights = panel.slope_bars.opts["height"]
    assert list(heights) == [2 ** -4, 2 ** -8, 2 ** -2]  # Press et al. for 3 heads, by hand
    shown = panel.bias_map._values
    assert shown[0, 3] == -3 * 2 ** -4 and shown[2, 1] == -(2 ** -4) and shown[1, 1] == 0
    panel.alibi.setChecked(False)
    model.flush()
    assert model.settings.positions == "none"


def test_a_small_bias_prints_its_significant_digits_not_zero(qtbot):
    """The second of 3 heads has the slope 2⁻⁸: its bias at distance 1 is −0.0039, which two decimals would print as 0.00."""
    model, panel = show_panel(qtbot, PositionsPanel, size=(900, 800))
    model.set_param("heads", 3)
    model.set_param("positions", "alibi")
    model.set_selection(head=1)
    model.flush()
    panel.refresh()
    texts = panel.bias_map._text_item._texts()
    assert texts[:4] == ["0", "−0.0039", "−0.0078", "−0.012"]    # row 0: distances 0, 1, 2, 3


def test_alibi_in_a_cross_session_draws_a_bias_per_query_and_key(qtbot):
    from explorer.core.presets import translation_session
    model, panel = show_panel(qtbot, PositionsPanel, translation_session(), size=(700, 600))
    model.set_param("positions", "alibi")
    model.flush()
    panel.refresh()
    shown = panel.bias_map._values
    assert shown.shape == (7, 4)  # 7 query tokens, 4 key tokens
    assert shown[6, 0] == -6 * 2 ** -8 and shown[2, 2] == 0  # one head: slope 2^-8, −m·|i − j|
