"""Spin boxes for one number that behave as the rest of the window: a typed text that cannot be taken is
refused with the reason said under the field (Qt's own dropped a typed minus sign and put a refused 0 back
without a word), and Ctrl+Z / Ctrl+Shift+Z undo the window's last step once nothing typed is pending (Qt's
field kept them for its own text, so Edit ▸ Undo did nothing while the field had the focus)."""
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeySequence, QValidator
from PySide6.QtWidgets import QDoubleSpinBox, QSpinBox, QToolTip

from explorer.i18n import shown_error, translate
from explorer.widgets.number_text import format_number, parse_number

HISTORY_KEYS = (QKeySequence.StandardKey.Undo, QKeySequence.StandardKey.Redo)


class WindowHistoryKeys:
    """Mixin for a QAbstractSpinBox: undo and redo keys go to the window's Edit menu unless a typed text is
    pending (then they undo the typing, as in any text field)."""

    def event(self, event):
        if (event.type() == QEvent.Type.ShortcutOverride and not self.pending()
                and any(event.matches(key) for key in HISTORY_KEYS)):
            return True  # (not accepted: the window's shortcut takes the key)
        return super().event(event)

    def pending(self) -> bool:
        """Whether the field shows a typed text that is not its value yet (Enter not pressed)."""
        return self.cleanText() != self.textFromValue(self.value())


class NumberBox(WindowHistoryKeys, QDoubleSpinBox):
    """A float between ``low`` and ``high`` (above ``low`` itself when ``low_open``), read with ``parse_number``
    ("-2", "1e-3", "½" refused with a reason); a refused text leaves the previous value."""

    def __init__(self, parent=None, *, low_open=False):
        super().__init__(parent)
        self.low_open = low_open
        self.setKeyboardTracking(False)  # one valueChanged on Enter, not one per keystroke
        self.setCorrectionMode(QDoubleSpinBox.CorrectionMode.CorrectToPreviousValue)

    def valueFromText(self, text: str) -> float:
        try:
            return parse_number(text)
        except ValueError:
            return self.value()

    def validate(self, text: str, pos: int):
        state = QValidator.State.Intermediate if self.refusal(text) else QValidator.State.Acceptable
        return state, text, pos

    def fixup(self, text: str) -> str:
        return text

    def refusal(self, text: str) -> str | None:
        """Why ``text`` cannot be taken (not a number, outside the range), or None when it can."""
        try:
            value = parse_number(text, bounded=False)
        except ValueError as exc:
            return shown_error(exc)
        low, high = self.minimum(), self.maximum()
        if self.low_open and value <= low:
            return translate("Numbers", "{text} is not above {low}").format(text=text.strip(), low=format_number(low, 6))
        if not low <= value <= high:
            return translate("Numbers", "{text} is outside {low} … {high}").format(
                text=text.strip(), low=format_number(low, 6), high=format_number(high, 6))
        return None

    def keyPressEvent(self, event) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            why = self.refusal(self.cleanText())
            if why:  # the old value comes back (CorrectToPreviousValue): say why, under the field
                QToolTip.showText(self.mapToGlobal(self.rect().bottomLeft()), why, self)
        super().keyPressEvent(event)


class WholeBox(WindowHistoryKeys, QSpinBox):
    """A QSpinBox whose undo and redo keys go to the window once nothing typed is pending."""
