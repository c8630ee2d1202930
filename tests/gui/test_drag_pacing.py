"""Issue 18: while a slider is held, ①②③ draw every value at once and the panels off the dragged value's
path (here the Readout) draw after ②'s pixels are painted, and catch up with the last value; outside a
drag every panel draws at once, as before. Orders of events are checked, never times."""
import numpy as np
from PySide6.QtCore import QEvent, QObject

from tests.gui.conftest import open_window


def reference_output_row(model, row):
    """O_row = softmax(q_row Kᵀ / √d / T, causal) V for one head, written from the definition."""
    q, k, v = (np.asarray(model.matrix(n), dtype=np.float64) for n in "QKV")
    s = model.settings
    scores = q[row] @ k.T / np.sqrt(q.shape[1]) / s.temperature
    if s.causal:
        scores[row + 1:] = -np.inf
    w = np.exp(scores - scores.max())
    return (w / w.sum()) @ v


class Log(QObject):
    """Records "② painted" for each paint of the weights heatmap's viewport."""

    def __init__(self, log):
        super().__init__()
        self.log = log

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            self.log.append("② painted")
        return False


def star(readout):
    """Where the Readout's plane draws O_row (its dimensions 0 and 1)."""
    return np.asarray(readout.plane.star, float)


def test_a_held_slider_paints_the_weights_before_the_readout_draws_and_the_readout_catches_up(qtbot, home):
    window = open_window(qtbot)
    model, editor = window.model, window.panels["editor"]
    readout, weights = window.panels["readout"], window.panels["weights"]
    assert model.settings.heads == 1  # the demo: the star is O_row's first two dimensions
    row = model.settings.selected_row
    editor.views["Q"].setCurrentIndex(editor.tables["Q"].index(row, 0))
    qtbot.wait(10)
    log = []
    watch = Log(log)
    weights.heatmap.viewport().installEventFilter(watch)
    real_render = readout.render
    readout.render = lambda flags: (log.append("readout drew"), real_render(flags))

    slider = editor.cell_slider
    slider.slider.setSliderDown(True)  # pressed: one gesture
    assert model.dragging
    values = []
    for step in (1, 2, 3):
        log.clear()
        slider.slider.setValue(slider.slider.value() + 7 * step)
        values.append(model.matrix("Q")[row, 0])
        model.flush()
        # ② shows the value now; the Readout has not drawn it yet
        np.testing.assert_allclose(weights.drawn_from.q_in[row, 0], values[-1])
        assert "readout drew" not in log
        qtbot.waitUntil(lambda: "readout drew" in log, timeout=5000)
        assert "② painted" in log and log.index("② painted") < log.index("readout drew")
    slider.slider.setSliderDown(False)
    assert not model.dragging
    qtbot.waitUntil(lambda: np.allclose(star(readout), reference_output_row(model, row)[:2], atol=1e-12), timeout=5000)
    assert model.undo_stack.count() == 1  # the drag is still one undo step

    # not dragging: the Readout draws with the edit, before anything is painted
    log.clear()
    model.set_cell("Q", row, 0, values[-1] - 0.5)
    model.flush()
    assert log == ["readout drew"]
    np.testing.assert_allclose(star(readout), reference_output_row(model, row)[:2], atol=1e-12)
    weights.heatmap.viewport().removeEventFilter(watch)


def test_a_hidden_panel_still_waits_for_its_dock_after_a_drag(qtbot, home):
    window = open_window(qtbot)
    model, editor, readout = window.model, window.panels["editor"], window.panels["readout"]
    window.docks["readout"].close()
    editor.views["Q"].setCurrentIndex(editor.tables["Q"].index(0, 0))
    slider = editor.cell_slider
    slider.slider.setSliderDown(True)
    slider.slider.setValue(slider.slider.value() + 9)
    slider.slider.setSliderDown(False)
    model.flush()
    qtbot.wait(200)  # the paced draw came and went without drawing a closed panel
    assert readout._stale
    window.docks["readout"].show()
    qtbot.waitUntil(lambda: not readout._stale, timeout=5000)
    row = model.settings.selected_row
    np.testing.assert_allclose(star(readout), reference_output_row(model, row)[:2], atol=1e-12)
