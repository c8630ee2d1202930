"""The Positions panel in direct mode has no map to show: its shuffle row follows the note at once, and what
is left of the dock goes below the text (it used to open a gap between the note and the shuffle row)."""
from explorer.panels.positions import PositionsPanel
from tests.gui.panel_helpers import show_panel


def gap_above(widget, over):
    return widget.geometry().top() - over.geometry().bottom() - 1


def test_direct_mode_keeps_the_shuffle_row_under_the_note(qtbot):
    model, panel = show_panel(qtbot, PositionsPanel, size=(576, 300))  # the default dock at 1600 × 1000
    assert not model.projected and not panel.heatmap.isVisible() and panel.note.isVisible()
    near = panel.layout().spacing() + 2  # (the seed box may stand a pixel taller than the button beside it)
    assert gap_above(panel.shuffle, panel.note) <= near  # it was ~50 px in the default dock
    assert gap_above(panel.check, panel.shuffle) <= near


def test_the_maps_still_take_the_height_when_shown(qtbot):
    model, panel = show_panel(qtbot, PositionsPanel, size=(576, 500))
    model.set_param("source", "projected")
    model.set_param("positions", "sinusoidal")
    model.flush()
    qtbot.waitUntil(panel.heatmap.isVisible)
    qtbot.wait(20)
    assert panel.heatmap.height() > 200  # more than its least (MAP_MIN_H): the spare height is the map's
    model.set_param("positions", "alibi")
    model.flush()
    qtbot.waitUntil(panel.bias_map.isVisible)
    qtbot.wait(20)
    assert panel.bias_map.height() > 200
