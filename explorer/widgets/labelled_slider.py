"""A label, a slider and a typed read-out for one float, on a linear or logarithmic scale, or for a whole number.

The slider is integer-valued; this maps it to a float range so owners deal only in floats, and
passes ``sliderPressed``/``sliderReleased`` through so a drag can become one undo step. With
``integer=True`` every slider position is one whole number and the read-out keeps its spin arrows.
"""
from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QSlider, QWidget

from explorer.i18n import translate
from explorer.widgets.number_box import NumberBox
from explorer.widgets.number_text import format_number, parse_number


class _ReadOut(NumberBox):
    """The slider's number box: compact numbers (``format_number``), whole ones where the arrows step by one."""

    def __init__(self, significant: int, step_by, parent=None, arrows=False):
        super().__init__(parent)
        self._arrows = arrows
        self._significant = significant
        self._step_by = step_by
        self.setDecimals(12)  # keep the value unrounded; the text is compact anyway
        if not arrows:
            self.setButtonSymbols(QDoubleSpinBox.ButtonSymbols.NoButtons)
        self.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    def textFromValue(self, value: float) -> str:
        return format_number(value, self._significant)

    def refusal(self, text: str) -> str | None:
        why = super().refusal(text)
        if why is None and self._arrows and not float(parse_number(text, bounded=False)).is_integer():
            return translate("Numbers", "{text} is not a whole number").format(text=text.strip())
        return why

    def stepBy(self, steps: int) -> None:
        self._step_by(steps)

    def sizeHint(self):
        # Qt sizes a spin box for the texts of its minimum and maximum ("-5", "5"); values in
        # between can be longer ("-0.5774"), so make room for four significant digits and a sign.
        hint = super().sizeHint()
        metrics = self.fontMetrics()
        ends = [self.textFromValue(self.minimum()), self.textFromValue(self.maximum())]
        samples = [("-" if self.minimum() < 0 else "") + ("0" if self._arrows else "0.0000")]
        if not self._arrows and 0 < abs(self.minimum()) < 0.1:  # just above a small minimum: "0.08729"
            samples.append(self.textFromValue(self.minimum() * 1.23456789))
        base = max(metrics.horizontalAdvance(t) for t in ends)
        wanted = max(base, *(metrics.horizontalAdvance(t) for t in samples))
        hint.setWidth(hint.width() - base + wanted)
        return hint

    def minimumSizeHint(self):
        return self.sizeHint()


class LabelledSlider(QWidget):
    """``label  [====o=====]  1.25``: a float in [minimum, maximum], linear or logarithmic.

    ``value()`` returns exactly what ``setValue`` was given (clamped), or the slider position's
    value rounded to the slider's resolution. ``valueChanged`` is emitted only on a real change,
    never while the owner has called ``blockSignals(True)``; typed read-out values apply on Enter.
    ``integer``: whole numbers, one per slider position; the range may be a single number (then the
    widget is disabled), and ``value()`` is an int. ``snap``: the significant digits a slider position's
    value is rounded to (a readable "0.087" rather than the position's "0.08729"; 0: the slider's resolution).
    """

    valueChanged = Signal(float)
    sliderPressed = Signal()
    sliderReleased = Signal()

    def __init__(
        self,
        label: str,
        minimum: float,
        maximum: float,
        value: float | None = None,
        *,
        log: bool = False,
        steps: int = 1000,
        integer: bool = False,
        snap: int = 0,
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self._log = log and not integer
        self._integer = integer
        self._steps = int(steps)
        self._significant = 15 if integer else max(3, math.ceil(math.log10(self._steps)) + 1)
        self._snap = snap or self._significant  # a dragged value's digits; the read-out shows _significant
        self._minimum = self._maximum = 0.0
        self._value = 0.0

        self.label = QLabel(label, self)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setRange(0, self._steps)
        if not integer:
            self.slider.setPageStep(max(1, self._steps // 10))
        self.read_out = _ReadOut(self._significant, self._step_read_out, self, integer)
        self.label.setBuddy(self.read_out)

        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.label)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.read_out)

        self.setRange(minimum, maximum)
        self._apply(minimum if value is None else value, emit=False)

        self.slider.valueChanged.connect(self._slider_moved)
        self.slider.sliderPressed.connect(self.sliderPressed)
        self.slider.sliderReleased.connect(self.sliderReleased)
        self.read_out.valueChanged.connect(self._typed)

    # ----- public -------------------------------------------------------------------------------
    def value(self) -> float:
        return self._value

    def setValue(self, value: float) -> None:
        """Set the value (clamped into range); emits ``valueChanged`` on a change unless blocked."""
        self._apply(value, emit=True)

    def minimum(self) -> float:
        return self._minimum

    def maximum(self) -> float:
        return self._maximum

    def isLog(self) -> bool:
        return self._log

    def setRange(self, minimum: float, maximum: float) -> None:
        """Change the range; the value is clamped into it (and announced if that changed it)."""
        minimum, maximum = float(minimum), float(maximum)
        if self._integer and minimum <= maximum:
            minimum, maximum = float(round(minimum)), float(round(maximum))
            self._steps = int(maximum - minimum)
            self.slider.blockSignals(True)
            self.slider.setRange(0, self._steps)
            self.slider.blockSignals(False)
            self.setEnabled(maximum > minimum)
        elif not minimum < maximum:
            raise ValueError(f"LabelledSlider needs minimum < maximum, got {minimum}, {maximum}")
        if self._log and minimum <= 0:
            raise ValueError(f"a logarithmic slider needs a positive minimum, got {minimum}")
        self._minimum, self._maximum = minimum, maximum
        self.read_out.blockSignals(True)
        self.read_out.setRange(minimum, maximum)
        self.read_out.blockSignals(False)
        self._apply(self._value, emit=True)

    def setText(self, text: str) -> None:
        self.label.setText(text)

    def position_of(self, value: float) -> int:
        """The slider position (0..steps) nearest to ``value``."""
        lo, hi, v = self._minimum, self._maximum, min(max(value, self._minimum), self._maximum)
        if self._integer:
            return round(v - lo)
        if self._log:
            t = (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo))
        else:
            t = (v - lo) / (hi - lo)
        return round(t * self._steps)

    def value_at(self, position: int) -> float:
        """The value at slider position ``position``, rounded to the slider's resolution."""
        t = position / self._steps
        lo, hi = self._minimum, self._maximum
        if position <= 0:
            return lo
        if position >= self._steps:
            return hi
        if self._integer:
            return lo + position
        if self._log:
            v = math.exp(math.log(lo) + t * (math.log(hi) - math.log(lo)))
        else:
            v = lo + t * (hi - lo)
        v = float(f"{v:.{self._snap}g}")
        return min(max(v, lo), hi)

    # ----- internal -----------------------------------------------------------------------------
    def _apply(self, value: float, emit: bool, move_slider: bool = True) -> None:
        value = min(max(float(value), self._minimum), self._maximum) + 0.0
        if self._integer:
            value = int(round(value))
        changed = value != self._value
        self._value = value
        if move_slider:
            self.slider.blockSignals(True)
            self.slider.setValue(self.position_of(value))
            self.slider.blockSignals(False)
        read_out = self.read_out
        if read_out.value() != value or read_out.text() != read_out.textFromValue(value):
            # a spin box repaints on every setValue, even of its own value (each edit's re-show)
            read_out.blockSignals(True)
            read_out.setValue(value)
            read_out.blockSignals(False)
        if changed and emit:
            self.valueChanged.emit(value)  # a no-op while the owner blocks our signals

    def _slider_moved(self, position: int) -> None:
        self._apply(self.value_at(position), emit=True, move_slider=False)

    def _typed(self, value: float) -> None:
        self._apply(value, emit=True)

    def _step_read_out(self, steps: int) -> None:
        position = self.position_of(self._value) + steps * max(1, self._steps // 100)
        self._apply(self.value_at(min(max(position, 0), self._steps)), emit=True)
