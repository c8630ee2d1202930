"""The Controls' number fields as a person types into them (the walkthrough: a custom scale of −2 became 2 and 0
went back to 1 without a word; Ctrl+Z did nothing while a field had the focus)."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolTip


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # the offscreen platform, on QToolTip
def test_a_custom_scale_not_above_zero_is_refused_with_the_reason(qtbot, window):
    controls = window.panels["controls"]
    window.model.set_param("scale_mode", "custom")
    window.model.flush()
    box = controls.scale_value
    before = window.model.settings.scale
    for text, said in (("-2", "-2 is not above 0"), ("0", "0 is not above 0"), ("5000", "5000 is outside 0 … 1000")):
        box.setFocus()
        box.selectAll()
        qtbot.keyClicks(box, text)
        assert box.cleanText() == text  # the minus sign typed stays in the field (Qt's own box dropped it)
        qtbot.keyClick(box, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: QToolTip.isVisible() and QToolTip.text() == said, timeout=2000)
        QToolTip.hideText()
        assert window.model.settings.scale == before
    box.selectAll()
    qtbot.keyClicks(box, "0.25")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    window.model.flush()
    assert window.model.settings.scale == 0.25


def test_ctrl_z_in_a_number_field_undoes_the_window_once_nothing_typed_is_pending(qtbot, window):
    temperature = window.panels["controls"].temperature.read_out
    temperature.setFocus()
    temperature.selectAll()
    qtbot.keyClicks(temperature, "2")
    qtbot.keyClick(temperature, Qt.Key.Key_Return)
    window.model.flush()
    assert window.model.settings.temperature == 2.0
    qtbot.keyClick(temperature, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # Edit ▸ Undo
    window.model.flush()
    assert window.model.settings.temperature == 1.0 and temperature.value() == 1.0
    qtbot.keyClick(temperature, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    window.model.flush()
    assert window.model.settings.temperature == 2.0
    temperature.selectAll()
    qtbot.keyClicks(temperature, "3")  # typed, not entered: Ctrl+Z undoes the typing, as in any text field
    qtbot.keyClick(temperature, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    window.model.flush()
    assert window.model.settings.temperature == 2.0
