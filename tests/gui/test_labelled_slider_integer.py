"""LabelledSlider with ``integer=True``: whole numbers, one per slider position (the RoPE panel's m, n and pair)."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolTip

from explorer.widgets.labelled_slider import LabelledSlider


@pytest.fixture
def position(qtbot):
    slider = LabelledSlider("m", 0, 63, 5, integer=True)
    qtbot.addWidget(slider)
    return slider


def test_every_slider_position_is_one_whole_number(position):
    seen = []
    position.valueChanged.connect(seen.append)
    assert position.value() == 5 and isinstance(position.value(), int)
    assert (position.slider.minimum(), position.slider.maximum(), position.slider.value()) == (0, 63, 5)
    position.slider.setValue(30)  # as a drag moves it
    assert position.value() == 30 and seen == [30]
    assert position.read_out.text() == "30"


def test_typed_numbers_are_rounded_and_clamped(position):
    position.read_out.setValue(20.4)
    assert position.value() == 20 and position.slider.value() == 20
    position.setValue(99)
    assert position.value() == 63


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # the offscreen platform, on QToolTip
def test_a_typed_fraction_is_refused_with_a_reason(qtbot, position):
    position.show()
    read_out = position.read_out
    read_out.selectAll()
    qtbot.keyClicks(read_out, "1.5")
    qtbot.keyClick(read_out, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: QToolTip.isVisible() and QToolTip.text() == "1.5 is not a whole number", timeout=2000)
    QToolTip.hideText()
    assert position.value() == 5


def test_a_single_number_range_disables_it_and_a_wider_one_enables_it(position):
    position.setRange(0, 0)
    assert position.value() == 0 and not position.isEnabled()
    position.setRange(0, 3)
    assert position.isEnabled() and position.maximum() == 3
    position.slider.setValue(3)
    assert position.value() == 3


def test_the_read_out_steps_by_one(position):
    position.read_out.stepBy(1)
    assert position.value() == 6
    position.read_out.stepBy(-2)
    assert position.value() == 4
