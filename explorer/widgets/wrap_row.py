"""Groups of controls side by side while they fit the width, one group under another when they do not:
a tool row that never makes a narrow dock scroll sideways."""
from PySide6.QtCore import QSize
from PySide6.QtWidgets import QBoxLayout, QHBoxLayout, QWidget


class WrapRow(QWidget):
    """``WrapRow([[widget, …], [widget, …]], stretch={widget: 1})``: each inner list is a group kept on one
    line; the groups sit on one line when the row is wide enough for all of them, else one per line.
    With ``spread``, each group keeps its widgets together at its left and the room left over goes between
    the groups (a row of buttons), not between every widget; ``spacing`` is the pixels between a group's widgets."""

    def __init__(self, groups, parent=None, stretch=None, spread=False, spacing=None):
        super().__init__(parent)
        stretch = stretch or {}
        self._box = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self._box.setContentsMargins(0, 0, 0, 0)
        self._groups = []
        for widgets in groups:
            line = QHBoxLayout()
            line.setContentsMargins(0, 0, 0, 0)
            if spacing is not None:
                line.setSpacing(spacing)
            for w in widgets:
                line.addWidget(w, stretch.get(w, 0))
            if spread:
                line.addStretch(1)
            self._groups.append(line)
            self._box.addLayout(line, max((stretch.get(w, 0) for w in widgets), default=0))

    def stacked(self):
        return self._box.direction() == QBoxLayout.Direction.TopToBottom

    def _one_line_width(self):
        widths = [g.minimumSize().width() for g in self._groups]
        return sum(widths) + self._box.spacing() * (len(widths) - 1)

    def minimumSizeHint(self):
        # as narrow as the widest group: below one line's width the groups stack (resizeEvent)
        heights = [g.minimumSize().height() for g in self._groups]
        height = sum(heights) + self._box.spacing() * (len(heights) - 1) if self.stacked() else max(heights)
        return QSize(max(g.minimumSize().width() for g in self._groups), height)

    def sizeHint(self):
        hint = self._box.sizeHint()
        return QSize(hint.width(), self.minimumSizeHint().height()) if not self.stacked() else hint

    def resizeEvent(self, event):
        super().resizeEvent(event)
        stack = self.width() < self._one_line_width()
        if stack != self.stacked():
            self._box.setDirection(QBoxLayout.Direction.TopToBottom if stack else QBoxLayout.Direction.LeftToRight)
            self.updateGeometry()  # a new height: the panel lays out again
