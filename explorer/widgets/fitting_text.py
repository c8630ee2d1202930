"""A label's or a check box's text in a longer and a shorter form: the longest that fits its width is
shown, so a narrow dock shortens the text instead of cutting it off or scrolling sideways."""
import math

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QLabel, QSizePolicy


class FittingText(QObject):
    """``FittingText(widget, variants)``: ``variants`` are texts from the fullest to the shortest, each a
    string or a (rich text, plain text) pair (the plain one is measured). The widget asks only for the
    width of the shortest; the fullest is its tooltip unless it has one."""

    def __init__(self, widget, variants):
        super().__init__(widget)
        self.widget = widget
        self.variants = [(v, v) if isinstance(v, str) else tuple(v) for v in variants]
        if not widget.toolTip():
            widget.setToolTip(self.variants[0][1])
        widget.setText(self.variants[-1][0])
        # the shortest text whole, measured by the widget: the bold-all measure below, calibrated on a partly
        # bold fullest text, came out too narrow for it (even negative: Qt refused it with a warning)
        shortest = widget.sizeHint().width()
        widget.setText(self.variants[0][0])
        # margins, a check box's indicator; never below 0 (a rich label's bold measure is generous, and its
        # hint may be narrower than that: a negative minimum width is refused by Qt with a warning)
        self._chrome = max(0.0, widget.sizeHint().width() - self._text_width(self.variants[0][1]))
        policy = widget.sizePolicy()
        policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
        widget.setSizePolicy(policy)
        widget.setMinimumWidth(max(self.needed(self.variants[-1][1]), shortest))
        widget.installEventFilter(self)
        self.fit()

    def _text_width(self, plain):
        font = self.widget.font()
        if isinstance(self.widget, QLabel) and plain and "<b>" in self.variants[0][0]:
            font.setBold(True)  # a little generous: part of a rich label is bold
        return QFontMetricsF(font).horizontalAdvance(plain)

    def needed(self, plain):
        """Pixels the widget needs to show ``plain`` whole."""
        return math.ceil(self._text_width(plain) + self._chrome)

    def fit(self):
        width = self.widget.width()
        rich = next((r for r, p in self.variants if self.needed(p) <= width), self.variants[-1][0])
        if rich != self.widget.text():
            self.widget.setText(rich)

    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False


def shrinkable(combo, characters):
    """Let a combo box be as narrow as ``characters`` of its current choice (its list stays whole): a
    long choice ("tiny-induction — ships with …") no longer sets a narrow dock's width."""
    combo.setSizeAdjustPolicy(combo.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(characters)
