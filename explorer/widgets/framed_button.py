"""The app's small framed button (the editor's edit buttons, its matrix buttons), painted by itself.

A light frame says "button" at rest, blue on hover or keyboard focus, filled while pressed or checked (the
matrix shown), grey when disabled. Painted here rather than by a style sheet: a style sheet on their row sent
every widget in it through QStyleSheetStyle (~15 ms to build the editor and ~10 ms more to paint it first,
issue 18). Sized as the style-sheet buttons were: the text, the padding, the frame and Qt's own room around a
tool button's text.
"""
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QToolButton

from explorer.style import BUTTON_ACTIVE, BUTTON_BORDER, BUTTON_CHECKED, BUTTON_HOVER

DISABLED_TEXT, DISABLED_BORDER = "#999", "#ddd"
RADIUS = 3.0
FRAME = 1  # px
ROOM = (9, 3)  # px Qt adds around a tool button's text (width, height), beyond its padding and frame
TEXT_FLAGS = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextShowMnemonic


class FramedButton(QToolButton):
    """A text-only QToolButton with the framed look; ``padding`` (horizontal, vertical) px inside the frame."""

    def __init__(self, parent=None, padding=(4, 1)):
        super().__init__(parent)
        self.padding = padding
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.setAttribute(Qt.WidgetAttribute.WA_Hover)  # (hover enter and leave repaint it)

    def sizeHint(self) -> QSize:
        text = self.fontMetrics().size(Qt.TextFlag.TextShowMnemonic, self.text())
        h, v = self.padding
        return QSize(text.width() + 2 * (h + FRAME) + ROOM[0], self.fontMetrics().height() + 2 * (v + FRAME) + ROOM[1])

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def event(self, event):
        if event.type() in (event.Type.HoverEnter, event.Type.HoverLeave):
            self.update()
        return super().event(event)

    def paintEvent(self, event) -> None:
        enabled = self.isEnabled()
        active = self.isDown() or self.isChecked()
        hovered = enabled and self.underMouse()
        if not enabled:
            border, fill = DISABLED_BORDER, None
        elif active:
            border, fill = BUTTON_ACTIVE, BUTTON_CHECKED
        elif hovered:
            border, fill = BUTTON_ACTIVE, BUTTON_HOVER
        else:  # the focus shown as Qt's styles show it: only where it came by the keyboard (Tab), not after a dialog
            keyboard = self.hasFocus() and self.window().testAttribute(Qt.WidgetAttribute.WA_KeyboardFocusChange)
            border, fill = (BUTTON_ACTIVE if keyboard else BUTTON_BORDER), None
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setPen(QPen(QColor(border), FRAME))
        p.setBrush(QColor(fill) if fill else Qt.BrushStyle.NoBrush)
        p.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), RADIUS, RADIUS)
        p.setPen(QColor(DISABLED_TEXT) if not enabled else self.palette().color(self.foregroundRole()))
        p.drawText(self.rect(), TEXT_FLAGS, self.text())
