"""A page of tables (the matrix editor's): side by side while every one shows all its columns and a few
rows, else one table at a time behind a row of buttons, one per table (nothing scrolls sideways, and
any table is one click away). The owner decides which (``arrange``); this holds the widgets.

One at a time, not narrower columns or a shorter number format: the numbers stay as precise as the
rest of the window prints them, and a table that is alone gets the whole dock, so it shows more rows too.
"""
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QVBoxLayout, QWidget

from .framed_button import FramedButton
from .wrap_row import WrapRow


# the app's framed buttons (they read as buttons before one is chosen), the chosen one filled: nine of them
# (projected mode) fit one line at 1024 × 640
CHOOSER_PADDING = (3, 1)


class TablePage(QWidget):
    """``rows`` of table names (each row a line of tables side by side); ``cells[name]`` is the widget
    holding a table and its title, made by ``make_cell(name, parent)`` (its focus proxy the table);
    ``chosen(name)`` when a matrix button is clicked."""

    chosen = Signal(str)

    def __init__(self, rows, make_cell, button_text, stretches=None, parent=None):
        super().__init__(parent)
        self.names = [name for names in rows for name in names]
        self.cells, self.lines, self.buttons = {}, [], {}
        self._line_widgets = []
        self._present = set(self.names)
        self.one_at_a_time = False
        self.current = self.names[0]
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        self._group = QButtonGroup(self)
        self._group.setExclusive(True)
        groups = []
        for names in rows:
            groups.append([])
            for name in names:
                button = FramedButton(self, padding=CHOOSER_PADDING)
                button.setText(button_text(name))
                button.setCheckable(True)
                button.setObjectName(f"choose{name}")
                button.clicked.connect(lambda checked=False, name=name: self._clicked(name))
                self._group.addButton(button)
                self.buttons[name] = button
                groups[-1].append(button)
        self.chooser = WrapRow(groups, self, spread=True, spacing=1)
        self.chooser.hide()
        box.addWidget(self.chooser)
        for i, names in enumerate(rows):
            holder = QWidget(self)
            line = QHBoxLayout(holder)
            line.setContentsMargins(0, 0, 0, 0)
            line.setSpacing(2)
            for name in names:
                self.cells[name] = make_cell(name, holder)
                line.addWidget(self.cells[name], 1)
            self.lines.append((line, names))
            self._line_widgets.append(holder)
            box.addWidget(holder, (stretches or [1] * len(rows))[i])

    def present(self):
        """The names of the tables the session has, in order."""
        return [name for name in self.names if name in self._present]

    def set_present(self, names):
        """Show only these tables (a session without X_src has no table for it)."""
        self._present = set(names)
        if self.current not in self._present:
            self.current = self.present()[0]
        self._apply()

    def arrange(self, one_at_a_time):
        """Side by side (False) or one table at a time behind the matrix buttons (True)."""
        if one_at_a_time != self.one_at_a_time:
            self.one_at_a_time = one_at_a_time
            self._apply()

    def show_table(self, name):
        """Make ``name`` the current table (the one shown when they come one at a time)."""
        if name in self.cells and name in self._present and name != self.current:
            self.current = name
            self._apply()

    def _clicked(self, name):
        self.show_table(name)
        self.chosen.emit(name)

    def _apply(self):
        alone = self.one_at_a_time
        self.chooser.setVisible(alone)
        for name, button in self.buttons.items():
            button.setVisible(name in self._present)
        self.buttons[self.current].setChecked(True)
        shown = {n for n in self.names if n in self._present and (not alone or n == self.current)}
        # shown first, and the focus handed to the current table before its neighbours hide: a hidden
        # table's focus would go to the next one, which would then take the current cell (and the slider)
        holders = [(holder, bool(shown & set(names))) for (_, names), holder in zip(self.lines, self._line_widgets)]
        for widget, on in holders + [(self.cells[n], n in shown) for n in self.names]:
            if on:
                widget.setVisible(True)
        focus = self.focusWidget()
        hiding = [n for n in self.names if n not in shown]
        if focus is not None and any(self.cells[n].isAncestorOf(focus) for n in hiding):
            self.cells[self.current].setFocus()
        for widget, on in [(self.cells[n], n in shown) for n in self.names] + holders:
            if not on:
                widget.setVisible(False)

    def side_by_side_height(self):
        """The least height that shows every present table's line side by side (a few rows each)."""
        box = self.layout()
        lines = [max((self.cells[n].minimumSizeHint().height() for n in names if n in self._present), default=0)
                 for _, names in self.lines]
        lines = [h for h in lines if h > 0]
        return sum(lines) + box.spacing() * max(0, len(lines) - 1)
