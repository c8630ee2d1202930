"""The Q/K/V matrix editor: type, scrub, paste; add or remove tokens and dimensions; rename tokens."""
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QAbstractItemDelegate, QHBoxLayout, QHeaderView, QInputDialog, QLabel, QSpinBox, QToolBar, QVBoxLayout)

from explorer.model import SELECTION, STRUCTURE, VALUES
from explorer.widgets.labelled_slider import LabelledSlider
from explorer.widgets.matrix_table import MatrixTableModel, MatrixTableView

from .base import Panel

ROLES = {"Q": ("looks for", "Query: what each token is looking for (我在找什么)"),
         "K": ("is found by", "Key: what each token can be found by (我能被什么找到)"),
         "V": ("carries", "Value: what each token hands over once found (找到我后能带走什么)")}
STRETCH_UP_TO = 6  # columns: up to this many share the table's width, more scroll
SLIDER_RANGE = 5.0


class EditorPanel(Panel):
    """Three tables (Q, K, V) sharing the token labels, a toolbar, and a slider for the selected cell."""

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.tables, self.views = {}, {}
        self.actions = {}
        self._active = "Q"
        self._cell = None  # (name, row, col) the slider edits

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self._build_toolbar())
        row = QHBoxLayout()
        for name in ("Q", "K", "V"):
            row.addLayout(self._build_table(name), 1)
        layout.addLayout(row, 1)

        self.cell_label = QLabel("Select a cell to drag its value", self)
        self.cell_label.setMinimumWidth(self.cell_label.fontMetrics().horizontalAdvance("Q[激光点激光, d000]"))
        self.cell_slider = LabelledSlider("", -SLIDER_RANGE, SLIDER_RANGE, 0.0, parent=self)
        self.cell_slider.setToolTip("Drag to change the selected cell; every stage follows live")
        self.cell_slider.setEnabled(False)
        self.cell_slider.valueChanged.connect(self._slider_moved)
        self.cell_slider.sliderPressed.connect(self.model.begin_gesture)
        self.cell_slider.sliderReleased.connect(self.model.end_gesture)
        bottom = QHBoxLayout()
        bottom.addWidget(self.cell_label)
        bottom.addWidget(self.cell_slider, 1)
        layout.addLayout(bottom)
        hint = QLabel("Type a number, or drag left/right on a cell to scrub it (Shift = fine). Double-click a "
                      "token to rename it. Shift+click selects a block; Ctrl+C / Ctrl+V copy and paste it.", self)
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #555;")
        layout.addWidget(hint)

    # ----- building ------------------------------------------------------------------------------
    def _build_toolbar(self):
        bar = QToolBar(self)
        bar.setToolButtonStyle(Qt.ToolButtonTextOnly)
        m = self.model

        def act(key, text, tip, slot, shortcut=None):
            a = QAction(text, self)
            a.setToolTip(tip)
            a.setStatusTip(tip)
            if shortcut:
                a.setShortcut(QKeySequence(shortcut))
            a.triggered.connect(slot)
            self.actions[key] = a
            bar.addAction(a)
            return a

        act("add_token", "+ token", "Add a token (a row of zeros in Q, K and V) after the selected row",
            lambda: m.add_token(at=self._row_after()), "Ctrl+T")
        act("remove_token", "− token", "Remove the selected query token (its row in Q, K and V)",
            lambda: m.remove_token(self._selected_row()), "Ctrl+Shift+T")
        bar.addSeparator()
        act("add_dim_qk", "+d Q,K", "Add a dimension (a column of zeros) to Q and K together",
            lambda: m.add_dim("qk"))
        act("remove_dim_qk", "−d Q,K", "Remove the last dimension of Q and K", lambda: m.remove_dim("qk"))
        act("add_dim_v", "+d V", "Add a dimension to V", lambda: m.add_dim("v"))
        act("remove_dim_v", "−d V", "Remove the last dimension of V", lambda: m.remove_dim("v"))
        bar.addSeparator()
        self.seed = QSpinBox(self)
        self.seed.setRange(0, 999_999)
        self.seed.setPrefix("seed ")
        self.seed.setToolTip("The seed for Randomize: the same seed gives the same numbers")
        act("randomize", "Randomize", "Fill Q, K and V with random numbers from the seed",
            lambda: m.randomize(self.seed.value()), "Ctrl+R")
        bar.addWidget(self.seed)
        act("reset", "Reset", "Go back to the preset or file as it was opened", m.reset_to_preset)
        return bar

    def _build_table(self, name):
        m = self.model
        table = MatrixTableModel(lambda: m.matrix(name), lambda: m.tokens, col_prefix="d",
                                 on_edit=lambda i, j, v: m.set_cell(name, i, j, v),
                                 block_edit_handler=lambda t, l, b: m.set_block(name, t, l, b), parent=self)
        view = MatrixTableView(self)
        view.setObjectName(f"table{name}")
        view.setModel(table)
        view.horizontalHeader().setDefaultSectionSize(view.fontMetrics().horizontalAdvance("-0.5774") + 14)
        view.rejected.connect(lambda text: m.notify(f"{name}: {text}"))
        view.scrubStarted.connect(lambda r, c: m.begin_gesture())
        view.scrubbed.connect(lambda r, c, v: m.set_cell(name, r, c, v))
        view.scrubFinished.connect(lambda r, c: m.end_gesture())
        view.currentCellChanged.connect(lambda r, c: self._cell_selected(name, r, c))
        view.pressed.connect(lambda index: self.model.set_selection(row=index.row()))
        view.selectionModel().currentChanged.connect(
            lambda cur, prev: prev.isValid() and cur.isValid() and self.model.set_selection(row=cur.row()))
        view.verticalHeader().sectionDoubleClicked.connect(self.rename_token)
        view.verticalHeader().setToolTip("Double-click a token to rename it")
        self.tables[name], self.views[name] = table, view
        box = QVBoxLayout()
        short, tip = ROLES[name]
        title = QLabel(f"<b>{name}</b> <span style='color:#555'>— {short}</span>", self)
        title.setToolTip(tip)
        view.setToolTip(tip)
        box.addWidget(title)
        box.addWidget(view, 1)
        return box

    # ----- selection and the cell slider ---------------------------------------------------------
    def _cell_selected(self, name, row, col):
        self._active = name
        self._cell = (name, row, col)
        self._sync_slider()

    def _sync_slider(self):
        if self._cell is None:
            return
        name, row, col = self._cell
        arr = self.model.matrix(name)
        if row >= arr.shape[0] or col >= arr.shape[1]:
            self._cell = None
            self.cell_slider.setEnabled(False)
            self.cell_label.setText("Select a cell to drag its value")
            return
        value = float(arr[row, col])
        self.cell_label.setText(f"{name}[{self.model.tokens[row]}, d{col}]")
        limit = max(SLIDER_RANGE, abs(value))
        blocker = QSignalBlocker(self.cell_slider)
        if (self.cell_slider.minimum(), self.cell_slider.maximum()) != (-limit, limit):
            self.cell_slider.setRange(-limit, limit)
        self.cell_slider.setValue(value)
        del blocker
        self.cell_slider.setEnabled(True)

    def _slider_moved(self, value):
        if self._cell is not None:
            name, row, col = self._cell
            self.model.set_cell(name, row, col, value)

    def _selected_row(self):
        return self.model.settings.selected_row

    def _row_after(self):
        return self._selected_row() + 1

    # ----- actions -------------------------------------------------------------------------------
    def rename_token(self, row, text=None):
        """Rename token ``row`` (asks for the name when ``text`` is None)."""
        if text is None:
            text, ok = QInputDialog.getText(self, "Rename token", f"New name for token {row} "
                                            f"({self.model.tokens[row]}):", text=self.model.tokens[row])
            if not ok:
                return False
        return self.model.rename_token(row, text)

    def commit_edits(self):
        """Finish a cell edit in progress (typed but not yet entered), so saving or closing sees it."""
        for view in self.views.values():
            editor = view.focusWidget() if view.state() == view.State.EditingState else None
            if editor is not None and editor is not view:
                view.commitData(editor)
                view.closeEditor(editor, QAbstractItemDelegate.NoHint)
        self.model.flush()

    def copy(self):
        return self.views[self._active].copy_selection()

    def paste(self):
        return self.views[self._active].paste()

    def render(self, flags):
        for name, table in self.tables.items():
            if flags & STRUCTURE:
                table.reset()
                header = self.views[name].horizontalHeader()
                stretch = self.model.matrix(name).shape[1] <= STRETCH_UP_TO
                header.setSectionResizeMode(QHeaderView.Stretch if stretch else QHeaderView.Interactive)
            elif flags & VALUES:
                table.refresh()
        if flags & (STRUCTURE | VALUES):
            self._sync_slider()
        if flags & (STRUCTURE | SELECTION):
            self._follow_selected_row()

    def _follow_selected_row(self):
        """Keep the tables' current row on the query row chosen anywhere (a heatmap click, the controls)."""
        view = self.views[self._active]
        cell = view.selected_cell()
        row = self.model.settings.selected_row
        if cell is not None and cell[0] != row:
            view.setCurrentIndex(view.model().index(row, min(cell[1], view.model().columnCount() - 1)))
