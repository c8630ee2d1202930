"""A temperature set by dragging its slider is a readable number (two significant digits: "0.087", not the
slider position's 0.08729), in the model, the read-out, the ① heading and the undo step's name; a typed one
is kept exactly as typed. The slider spans 0.05 … 20 on a log scale in 1000 steps, so position p is
T = 0.05 · 400^(p/1000): p = 93 → 0.0872894…, p = 600 → 1.82056…, p = 900 → 10.9856… (worked out by
hand)."""
from PySide6.QtCore import Qt

from explorer.core.settings_schema import SCHEMA
from tests.gui.conftest import open_window


def test_a_dragged_temperature_snaps_and_a_typed_one_is_kept(qtbot, home):
    window = open_window(qtbot)
    model, slider = window.model, window.panels["controls"].temperature
    assert (slider.minimum(), slider.maximum()) == (SCHEMA["temperature"].low, SCHEMA["temperature"].high)
    slider.slider.setSliderDown(True)
    for position, snapped, shown in ((93, 0.087, "0.087"), (600, 1.8, "1.8"), (900, 11.0, "11")):
        slider.slider.setValue(position)
        model.flush()
        assert model.settings.temperature == snapped
        assert slider.read_out.text() == shown
        assert f"(T = {shown})" in window.panels["scores"].heading()
    slider.slider.setSliderDown(False)
    assert model.undo_stack.count() == 1  # one drag, one step, named by where it ended
    assert model.undo_stack.text(0) == "Set temperature to 11"

    slider.slider.setSliderDown(True)
    slider.slider.setValue(93)
    slider.slider.setSliderDown(False)
    model.flush()
    assert model.undo_stack.text(1) == "Set temperature to 0.087"

    for typed in ("0.08729", "1.2346"):
        box = slider.read_out
        box.selectAll()
        qtbot.keyClicks(box, typed)
        qtbot.keyClick(box, Qt.Key.Key_Return)
        model.flush()
        assert model.settings.temperature == float(typed)
        assert model.undo_stack.text(model.undo_stack.count() - 1) == f"Set temperature to {typed}"
    assert "(T = 1.235)" in window.panels["scores"].heading()  # shown to four digits, kept in full
    model.undo_stack.setClean()
