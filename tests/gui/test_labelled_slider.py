"""LabelledSlider: float ranges on an integer slider, linear and log, with no echo loops."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolTip

from explorer.widgets.labelled_slider import LabelledSlider

# The offscreen platform warns once when a top-level widget with a layout is shown; harmless.
pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


@pytest.fixture
def temperature(qtbot):
    widget = LabelledSlider("Temperature", 0.05, 20.0, 1.0, log=True)
    qtbot.addWidget(widget)
    return widget


def test_log_mapping_round_trips(temperature):
    for value in (0.05, 0.1, 0.5, 1.0, 2.0, 7.5, 20.0):
        position = temperature.position_of(value)
        assert temperature.value_at(position) == pytest.approx(value, rel=0.01)
    assert temperature.value_at(0) == 0.05
    assert temperature.value_at(1000) == 20.0
    # log: the middle of the slider is the geometric mean, not the arithmetic one
    assert temperature.value_at(500) == pytest.approx((0.05 * 20.0) ** 0.5, rel=0.01)


def test_the_read_out_shows_every_digit_of_a_small_dragged_value(qtbot, temperature):
    """Dragged near its low end the temperature reads "0.08729": seven characters, one more than "0.0000"."""
    temperature.resize(400, 30)
    temperature.show()
    qtbot.waitExposed(temperature)
    temperature.slider.setValue(temperature.position_of(0.0873))
    text = temperature.read_out.text()
    assert len(text) == 7 and text.startswith("0.08")
    read_out = temperature.read_out
    edit = read_out.lineEdit()
    qtbot.waitUntil(lambda: read_out.width() >= read_out.sizeHint().width())
    assert edit.fontMetrics().horizontalAdvance(text) <= edit.contentsRect().width() - 4  # (the edit's own margins)


def test_linear_mapping(qtbot):
    widget = LabelledSlider("x", -1.0, 1.0, 0.0)
    qtbot.addWidget(widget)
    assert widget.position_of(0.0) == 500
    assert widget.value_at(750) == 0.5
    assert widget.slider.value() == 500


def test_set_value_is_exact_clamped_and_emits_once(qtbot, temperature):
    seen = []
    temperature.valueChanged.connect(seen.append)
    temperature.setValue(0.3)
    assert temperature.value() == 0.3
    assert seen == [0.3]
    temperature.setValue(0.3)  # no change, no signal
    assert seen == [0.3]
    temperature.setValue(100.0)
    assert temperature.value() == 20.0 and seen == [0.3, 20.0]
    assert temperature.slider.value() == 1000


def test_set_value_with_signals_blocked_does_not_emit(temperature):
    seen = []
    temperature.valueChanged.connect(seen.append)
    temperature.blockSignals(True)
    temperature.setValue(2.0)
    temperature.blockSignals(False)
    assert seen == []
    assert temperature.value() == 2.0
    assert temperature.slider.value() == temperature.position_of(2.0)
    assert temperature.read_out.text() == "2"


def test_dragging_the_slider_emits_floats_and_passes_press_release(qtbot, temperature):
    seen, pressed, released = [], [], []
    temperature.valueChanged.connect(seen.append)
    temperature.sliderPressed.connect(lambda: pressed.append(1))
    temperature.sliderReleased.connect(lambda: released.append(1))
    temperature.resize(400, 40)
    temperature.show()
    qtbot.waitExposed(temperature)
    slider = temperature.slider
    handle = slider.rect().center()
    handle.setX(int(slider.width() * slider.value() / 1000))
    qtbot.mousePress(slider, Qt.MouseButton.LeftButton, pos=handle)
    for dx in (10, 20, 40):
        qtbot.mouseMove(slider, handle + type(handle)(dx, 0))
    qtbot.mouseRelease(slider, Qt.MouseButton.LeftButton, pos=handle + type(handle)(40, 0))
    assert pressed == [1] and released == [1]
    assert len(seen) >= 2
    assert all(isinstance(v, float) for v in seen)
    assert seen[-1] > 1.0 and temperature.value() == seen[-1]
    assert temperature.read_out.value() == pytest.approx(seen[-1])


def test_keyboard_on_slider_moves_value(qtbot, temperature):
    seen = []
    temperature.valueChanged.connect(seen.append)
    qtbot.keyClick(temperature.slider, Qt.Key.Key_PageUp)
    assert len(seen) == 1 and seen[0] > 1.0


def test_typing_in_the_read_out_sets_the_value_without_echo(qtbot, temperature):
    seen = []
    temperature.valueChanged.connect(seen.append)
    read_out = temperature.read_out
    read_out.selectAll()
    qtbot.keyClicks(read_out, "2,5")  # a comma decimal is fine too
    assert seen == []  # nothing until Enter
    qtbot.keyClick(read_out, Qt.Key.Key_Return)
    assert seen == [2.5]
    assert temperature.value() == 2.5
    assert temperature.slider.value() == temperature.position_of(2.5)


def test_typing_out_of_range_or_garbage_changes_nothing(qtbot, temperature):
    seen = []
    temperature.valueChanged.connect(seen.append)
    read_out = temperature.read_out
    for text in ("abc", "50", "nan"):
        read_out.selectAll()
        qtbot.keyClicks(read_out, text)
        qtbot.keyClick(read_out, Qt.Key.Key_Return)
        read_out.clearFocus()
    assert seen == []
    assert temperature.value() == 1.0


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # the offscreen platform, on QToolTip
def test_typing_out_of_range_says_the_range(qtbot, temperature):
    temperature.show()
    read_out = temperature.read_out
    for text, said in (("50", "50 is outside 0.05 … 20"), ("abc", "'abc' is not a number"),
                       ("99999999", "99999999 is outside 0.05 … 20")):  # not "not a number", nor "above 1e6"
        read_out.selectAll()
        qtbot.keyClicks(read_out, text)
        qtbot.keyClick(read_out, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: QToolTip.isVisible() and QToolTip.text() == said, timeout=2000)
        QToolTip.hideText()
    assert temperature.value() == 1.0


def test_log_needs_positive_minimum(qtbot):
    with pytest.raises(ValueError, match="positive"):
        LabelledSlider("bad", 0.0, 1.0, log=True)
