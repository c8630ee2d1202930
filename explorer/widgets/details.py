"""A one-line summary that opens onto its full text: explanations a low dock keeps folded."""
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from explorer.i18n import translate


class _Summary(QLabel):
    clicked = Signal()

    def mousePressEvent(self, event):
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mousePressEvent(event)


class Details(QWidget):
    """``Details(summary, text)``: ▸ and the summary (word-wrapped rich text); a click on either shows the
    text under it (▾), another hides it. ``text`` may be changed later (``set_text``)."""

    toggled = Signal(bool)

    def __init__(self, summary, text, parent=None, opened=False):
        super().__init__(parent)
        self.arrow = QToolButton(self)
        self.arrow.setCheckable(True)
        self.arrow.setAutoRaise(True)
        self.arrow.setToolTip(translate("Details", "Show or hide the explanation"))
        self.arrow.toggled.connect(self._toggled)
        self.summary = _Summary(summary, self)
        self.summary.setWordWrap(True)
        self.summary.setCursor(Qt.CursorShape.PointingHandCursor)
        self.summary.clicked.connect(self.arrow.toggle)  # the whole line opens it
        self.body = QLabel(text, self)
        self.body.setWordWrap(True)
        self.body.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.arrow, 0, Qt.AlignmentFlag.AlignTop)
        head.addWidget(self.summary, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(head)
        layout.addWidget(self.body)
        self.arrow.setChecked(opened)
        self._toggled(opened)

    def changeEvent(self, event):
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and hasattr(self, "arrow"):
            self.arrow.setToolTip(translate("Details", "Show or hide the explanation"))

    def is_open(self):
        return self.arrow.isChecked()

    def set_open(self, on):
        self.arrow.setChecked(on)

    def set_summary(self, summary):
        self.summary.setText(summary)

    def text(self):
        return self.body.text()

    def set_text(self, text):
        self.body.setText(text)

    def _toggled(self, on):
        self.arrow.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.body.setVisible(on)
        self.toggled.emit(on)
