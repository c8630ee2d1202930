"""A word-wrapped rich-text label whose new text costs one layout and one paint.

A word-wrapped rich-text QLabel re-lays out its document for every size query and asks its parent
for a new layout on every ``setText``, though the size rarely changes when only numbers in the text
do; in the Readout that made each redraw lay the panel out again and paint its texts two or three
times (issue 18). This label lays a new text out once, at its width, and asks for a new layout only
when its height there has changed. A word longer than the line breaks anywhere rather than being
cut off, so the label's minimum width never depends on its text.
"""
import math

from PySide6.QtCore import QSize
from PySide6.QtGui import (QAbstractTextDocumentLayout, QFontMetrics, QPainter, QPalette, QTextDocument,
                           QTextOption)
from PySide6.QtWidgets import QSizePolicy, QWidget

WRAP_CHARS = 80  # the width the label asks for, in average characters (QLabel asks the same for wrapped text)
MIN_CHARS = 4  # the narrowest it goes, in average characters


class RichLabel(QWidget):
    """Rich text (HTML) wrapped to the label's width, in the palette's WindowText colour."""

    def __init__(self, text="", parent=None):
        super().__init__(parent)
        self._doc = QTextDocument(self)
        self._doc.setDocumentMargin(0)
        self._doc.setUndoRedoEnabled(False)
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self._doc.setDefaultTextOption(option)
        self._doc.setDefaultFont(self.font())
        self._text = None
        self._laid_at = None  # the text width the document is laid out at now
        self._heights = {}  # width → height, for this text
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.setText(text)

    def text(self):
        return self._text

    def setText(self, text):
        text = str(text)
        if text == self._text:
            return
        width = self.width()
        before = self.heightForWidth(width) if self._text is not None else None
        self._text = text
        self._doc.setHtml(text)
        self._laid_at, self._heights = None, {}
        if self.heightForWidth(width) != before:  # laid out at its width: the paint uses that layout
            self.updateGeometry()  # a new layout of the parent is not free: only when the height changed
        self.update()

    def _lay_out(self, width):
        if self._laid_at != width:
            self._doc.setTextWidth(width)
            self._laid_at = width

    def hasHeightForWidth(self):
        return True

    def heightForWidth(self, width):
        width = max(int(width), 1)
        if width not in self._heights:
            self._lay_out(width)
            self._heights[width] = math.ceil(self._doc.size().height())
        return self._heights[width]

    def sizeHint(self):
        width = QFontMetrics(self.font()).averageCharWidth() * WRAP_CHARS
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self):
        metrics = QFontMetrics(self.font())
        return QSize(metrics.averageCharWidth() * MIN_CHARS, metrics.lineSpacing() if self._text else 0)

    def changeEvent(self, event):
        super().changeEvent(event)
        if event.type() == event.Type.FontChange:
            self._doc.setDefaultFont(self.font())
            text, self._text = self._text, None
            self.setText(text)

    def paintEvent(self, event):
        self._lay_out(max(self.width(), 1))
        painter = QPainter(self)
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette = QPalette(self.palette())
        context.palette.setColor(QPalette.ColorRole.Text, self.palette().color(QPalette.ColorRole.WindowText))
        context.clip = event.rect().toRectF()
        self._doc.documentLayout().draw(painter, context)
