"""An edit redraws only what it changed (issue 18): work counted, never timed.

A Q cell of another query row leaves the Readout as drawn; a colour bar whose levels stay keeps its
axis; a control re-shown with its own value is not set again (a spin box repaints on every setValue).
"""
import numpy as np

from explorer.panels.readout import ReadoutPanel
from explorer.widgets.heatmap import Heatmap
from explorer.widgets.labelled_slider import LabelledSlider
from tests.gui.panel_helpers import show_panel


def counting(monkeypatch, obj, name):
    """Count the calls of ``obj.name`` (still calling it)."""
    calls = []
    original = getattr(obj, name)

    def wrapper(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(obj, name, wrapper)
    return calls


def test_readout_skips_q_edits_of_other_rows_and_redraws_its_own(qtbot, monkeypatch):
    model, panel = show_panel(qtbot, ReadoutPanel, size=(700, 450))
    draws = counting(monkeypatch, panel, "_draw")
    row = model.settings.selected_row
    other = (row + 1) % len(model.tokens)
    assert model.set_cell("Q", other, 0, float(model.matrix("Q")[other, 0]) + 0.7)
    model.flush()
    assert draws == []  # O_row depends on Q only through its own row
    assert model.set_cell("Q", row, 0, float(model.matrix("Q")[row, 0]) + 0.7)
    model.flush()
    assert len(draws) == 1
    assert model.set_cell("K", other, 0, float(model.matrix("K")[other, 0]) + 0.7)
    model.flush()
    assert len(draws) == 2  # a K cell moves every row's softmax
    assert model.set_cell("V", other, 0, float(model.matrix("V")[other, 0]) + 0.7)
    model.flush()
    assert len(draws) == 3
    # what is drawn is the model's row after all of it
    r = model.results
    np.testing.assert_allclose(panel.plane.star[0], r.heads.output[row, 0], atol=1e-12)


def test_readout_follows_a_new_selected_row_after_skipped_edits(qtbot, monkeypatch):
    model, panel = show_panel(qtbot, ReadoutPanel, size=(700, 450))
    other = (model.settings.selected_row + 1) % len(model.tokens)
    assert model.set_cell("Q", other, 1, 3.0)
    model.flush()
    model.set_selection(row=other)
    model.flush()
    assert panel._readout.row == other
    np.testing.assert_allclose(panel.plane.star[0], model.results.heads.output[other, 0], atol=1e-12)


def test_colour_bar_levels_are_set_only_when_they_change(qtbot, monkeypatch):
    h = Heatmap(cmap="diverging", colorbar_label="score")
    qtbot.addWidget(h)
    h.show()
    labels = ["a", "b", "c"]
    values = np.arange(9.0).reshape(3, 3) - 4
    h.set_matrix(values, row_labels=labels, col_labels=labels, levels=(-4.0, 4.0))
    calls = counting(monkeypatch, h.colorbar, "setLevels")
    values[1, 1] = 2.5
    h.set_matrix(values, row_labels=labels, col_labels=labels, levels=(-4.0, 4.0))
    assert calls == []
    np.testing.assert_array_equal(h.image_array(), values)
    h.set_matrix(values, row_labels=labels, col_labels=labels, levels=(-5.0, 5.0))
    assert len(calls) == 1 and h.levels() == (-5.0, 5.0)


def test_a_slider_re_shown_with_its_own_value_leaves_its_read_out_alone(qtbot, monkeypatch):
    widget = LabelledSlider("Temperature", 0.05, 20.0, 1.0, log=True)
    qtbot.addWidget(widget)
    calls = counting(monkeypatch, widget.read_out, "setValue")
    widget.setValue(1.0)
    assert calls == []
    widget.setValue(2.0)
    assert len(calls) == 1 and widget.read_out.value() == 2.0


def test_controls_do_not_set_their_spin_boxes_again_on_a_value_edit(qtbot, monkeypatch):
    from PySide6.QtWidgets import QAbstractSpinBox

    from explorer.panels.controls import ControlsPanel

    model, panel = show_panel(qtbot, ControlsPanel)
    calls = []
    for box in panel.findChildren(QAbstractSpinBox):
        calls += [counting(monkeypatch, box, "setValue")]
    assert model.set_cell("Q", 0, 0, 1.25)
    model.flush()
    assert calls and all(c == [] for c in calls)
