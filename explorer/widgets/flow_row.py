"""Groups of tool buttons left to right, wrapping onto another line where the width ends: a tool row whose
every button stays in view however narrow the dock (a QToolBar hides what does not fit behind "»")."""
from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QHBoxLayout, QLayout, QWidget


class FlowLayout(QLayout):
    """Items left to right, a new line where the next one does not fit; each item (a group) whole."""

    def __init__(self, parent=None, spacing=8, line_spacing=2):
        super().__init__(parent)
        self._items = []
        self._spacing, self._line_spacing = spacing, line_spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item):
        self._items.append(item)

    def count(self):
        return len(self._items)

    def itemAt(self, index):
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index):
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self):
        return Qt.Orientation(0)

    def hasHeightForWidth(self):
        return True

    def heightForWidth(self, width):
        return self._lay_out(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect):
        super().setGeometry(rect)
        self._lay_out(rect, move=True)

    def sizeHint(self):
        return self.minimumSize()

    def minimumSize(self):
        """As wide as the widest group (narrower than a line of them: they wrap), as tall as one line."""
        size = QSize()
        for item in self._shown():
            size = size.expandedTo(item.minimumSize())
        margins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def _shown(self):
        return [item for item in self._items if not item.isEmpty()]  # (a hidden widget's item is empty)

    def _lay_out(self, rect, move):
        """Place the shown items in ``rect`` (when ``move``); the height they take."""
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        x, y, line_height = area.x(), area.y(), 0
        for item in self._shown():
            hint = item.sizeHint()
            if x > area.x() and x + hint.width() > area.right() + 1:
                x, y, line_height = area.x(), y + line_height + self._line_spacing, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._spacing
            line_height = max(line_height, hint.height())
        return y + line_height - rect.y() + margins.bottom()


class FlowRow(QWidget):
    """``FlowRow([[widget, …], …])``: each inner list a group kept on one line (``spacing`` pixels apart
    within it); the groups follow one another and wrap. ``add_group`` returns the group's widget (hide it
    to take the group out of the row)."""

    def __init__(self, groups=(), parent=None, spacing=2):
        super().__init__(parent)
        self._flow = FlowLayout(self)
        self._spacing = spacing
        for widgets in groups:
            self.add_group(widgets)

    def add_group(self, widgets):
        holder = QWidget(self)
        line = QHBoxLayout(holder)
        line.setContentsMargins(0, 0, 0, 0)
        line.setSpacing(self._spacing)
        for w in widgets:
            line.addWidget(w)
        self._flow.addWidget(holder)
        return holder
