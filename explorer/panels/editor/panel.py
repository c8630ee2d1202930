"""The matrix editor: Q, K, V (direct) or X and W_q, W_k, W_v, W_o (projected); type, scrub, paste;
add or remove tokens and dimensions; rename tokens."""
from functools import partial

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (QAbstractItemDelegate, QHBoxLayout, QInputDialog, QLabel, QSizePolicy,
                               QStackedWidget, QVBoxLayout, QWidget)

from explorer.i18n import translate
from explorer.model import SELECTION, SETTINGS, STRUCTURE, VALUES
from explorer.weak import weakly
from explorer.widgets.fitting_text import FittingText
from explorer.widgets.labelled_slider import LabelledSlider
from explorer.widgets.matrix_table import MatrixTableModel, MatrixTableView
from explorer.widgets.palette import GLOSS
from explorer.widgets.table_page import TablePage

from ..base import Panel
from .tools import EditorTools

# (the short roles and the tooltips are source texts of their translations, context "Editor"; the formulas stay as
# they are)
ROLES = {"Q": (QT_TRANSLATE_NOOP("Editor", "looks for"),
               QT_TRANSLATE_NOOP("Editor", "Query: what each token is looking for (我在找什么)")),
         "K": (QT_TRANSLATE_NOOP("Editor", "is found by"),
               QT_TRANSLATE_NOOP("Editor", "Key: what each token can be found by (我能被什么找到)")),
         "V": (QT_TRANSLATE_NOOP("Editor", "carries"),
               QT_TRANSLATE_NOOP("Editor", "Value: what each token hands over once found "
                                           "(找到我后能带走什么)")),
         "X": (QT_TRANSLATE_NOOP("Editor", "token vectors (L × D)"),
               QT_TRANSLATE_NOOP("Editor", "X: one vector per token, as the embedding table gives it")),
         "X_src": (QT_TRANSLATE_NOOP("Editor", "source vectors (L_k × D)"),
                   QT_TRANSLATE_NOOP("Editor", "X_src: the vectors of the sequence the queries read (cross-attention): "
                                               "K = X_src·W_kᵀ, V = X_src·W_vᵀ")),
         "Wq": ("Q = X·W_qᵀ",
                QT_TRANSLATE_NOOP("Editor", "W_q: turns a token vector into its query (row i makes q's dimension i)")),
         "Wk": ("K = X·W_kᵀ", QT_TRANSLATE_NOOP("Editor", "W_k: turns a token vector into its key")),
         "Wv": ("V = X·W_vᵀ", QT_TRANSLATE_NOOP("Editor", "W_v: turns a token vector into its value")),
         "Wo": ("out = concat·W_oᵀ",
                QT_TRANSLATE_NOOP("Editor", "W_o: mixes the concatenated heads into the output")),
         "derivedQ": ("= X·W_qᵀ",
                      QT_TRANSLATE_NOOP("Editor", "Q computed from X and W_q (read-only here: edit X or W_q)")),
         "derivedK": ("= X·W_kᵀ",
                      QT_TRANSLATE_NOOP("Editor", "K computed from X and W_k (read-only here: edit X or W_k)")),
         "derivedV": ("= X·W_vᵀ",
                      QT_TRANSLATE_NOOP("Editor", "V computed from X and W_v (read-only here: edit X or W_v)"))}
# (row label prefix, column label prefix) of the projection matrices; None rows = the tokens
LABELS = {"Q": (None, "d"), "K": (None, "d"), "V": (None, "d"), "X": (None, "x"), "X_src": (None, "x"), "Wq": ("q", "x"),
          "Wk": ("k", "x"), "Wv": ("v", "x"), "Wo": ("o", "v")}
# A table whose rows are its left neighbour's (K beside Q, V beside K): where the tables do not fit side by
# side, it leaves the row labels to that neighbour (and where even then they do not, they come one at a
# time: widgets/table_page.py); the two always scroll together.
SHARES_ROWS = {"K": "Q", "V": "K", "derivedK": "derivedQ", "derivedV": "derivedK"}
HINT = QT_TRANSLATE_NOOP("Editor", "Type a number, or drag left/right on a cell to scrub it (Shift = fine). "
                         "Double-click a token to rename it. Shift+click selects a block; Ctrl+C / Ctrl+V copy and "
                         "paste it.")
NO_CELL = QT_TRANSLATE_NOOP("Editor", "Select a cell to drag its value")
SLIDER_TIP = QT_TRANSLATE_NOOP("Editor", "Drag to change the selected cell; every stage follows live")
RENAME_TIP = QT_TRANSLATE_NOOP("Editor", "Double-click a token to rename it")
LOW_DOCK = 330  # px: below this the hint becomes the slider's tooltip, the tables keep the room
TABLE_MIN_ROWS = 3  # rows of a table that stay in view however low the dock (then it scrolls)
STRETCH_UP_TO = 6  # columns: up to this many share the table's width, more scroll
SLIDER_RANGE = 5.0
EMPTY = np.zeros((0, 0))  # what the table of a matrix the session does not have (X_src) shows


class EditorPanel(Panel):
    """Three tables (Q, K, V) sharing the token labels, the edit buttons (tools.py), and a slider for the selected
    cell."""

    reads_results = False  # except the read-only X·Wᵀ tables, which wait for the results below
    follows_drags = True
    snug = True  # a low dock keeps the slider and at least TABLE_MIN_ROWS rows of each table in view
    # The read-only X·Wᵀ tables (``views["derived…"]``) were just made, showing the results of the
    # moment: the window covers them while a session's results are being computed.
    viewsAdded = Signal()

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.tables, self.views, self.titles, self.cells = {}, {}, {}, {}
        self._fitting = {}  # the tables' titles: "K — is found by", or "K" where the table is narrow
        self._lines = []  # (QHBoxLayout, names) of the tables side by side, to share their width
        self._active = "Q"
        self._cell = None  # (name, row, col) the slider edits
        self._shared_for = None  # the tables' fitted widths when the width was last shared out
        self._held = False  # a cell is being dragged: the columns stay put unless a number needs more room

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.tools = EditorTools(self.model, weakly(self._row_after), weakly(self._selected_row), self)
        self.actions, self.seed = self.tools.actions, self.tools.seed  # (the Edit menu shows these actions too)
        layout.addWidget(self.tools)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self._page([["Q", "K", "V"]]))
        self._watched = None  # the dock's scroll viewport, whose height is the room the tables have
        self._projected_page = None  # built the first time the session is projected
        layout.addWidget(self.pages, 1)

        self.cell_label = QLabel(translate("Editor", NO_CELL), self)
        self.cell_label.setTextFormat(Qt.TextFormat.PlainText)  # a token may be "<s>"
        self.cell_label.setMinimumWidth(self.cell_label.fontMetrics().horizontalAdvance("Q[激光点激光, d000]"))
        self.cell_slider = LabelledSlider("", -SLIDER_RANGE, SLIDER_RANGE, 0.0, parent=self)
        self.cell_slider.setToolTip(translate("Editor", SLIDER_TIP))
        self.cell_slider.setEnabled(False)
        self.cell_slider.valueChanged.connect(self._slider_moved)
        self.cell_slider.sliderPressed.connect(self._begin_drag)
        self.cell_slider.sliderReleased.connect(self._end_drag)
        bottom = QHBoxLayout()
        bottom.addWidget(self.cell_label)
        bottom.addWidget(self.cell_slider, 1)
        layout.addLayout(bottom)
        self.hint = QLabel(translate("Editor", HINT), self)
        self.hint.setWordWrap(True)
        hint = self.hint.palette()
        hint.setColor(QPalette.ColorRole.WindowText, QColor(GLOSS))  # (a palette: no style sheet's QStyleSheetStyle)
        self.hint.setPalette(hint)
        layout.addWidget(self.hint)

    # ----- building ------------------------------------------------------------------------------
    def changeEvent(self, event):
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and hasattr(self, "tools"):
            self.tools.retranslate()
            self.hint.setText(translate("Editor", HINT))
            self.cell_slider.setToolTip(translate("Editor", SLIDER_TIP))
            self._show_mode(self.model.projected)  # the token actions' tooltips
            if self._cell is None:
                self.cell_label.setText(translate("Editor", NO_CELL))
            for name in self.titles:
                self._fit_title(name)
                if LABELS.get(name, (None,))[0] is None:  # rows are tokens
                    self.views[name].verticalHeader().setToolTip(translate("Editor", RENAME_TIP))

    def _page(self, rows, stretches=None):
        """A page of tables, ``rows`` of names side by side (or one at a time where they do not fit)."""
        page = TablePage(rows, self._build_table, self._button_text, stretches, self)
        page.chosen.connect(self._table_chosen)
        for name, button in page.buttons.items():
            button.setToolTip(translate("Editor", ROLES[name][1]))
        self._lines.extend(page.lines)
        return page

    @staticmethod
    def _button_text(name):
        """The matrix button's text: "Q", "Wq", "X_src" (a computed X·Wᵀ by its letter)."""
        shown = name[-1] if name.startswith("derived") else name
        return shown

    def _build_table(self, name, parent):
        """The table of matrix ``name`` under its title, in a widget of its own (a TablePage's cell)."""
        m = self.model
        if name.startswith("derived"):
            attr = {"Q": "q_in", "K": "k_in", "V": "v"}[name[-1]]  # before RoPE: what X·Wᵀ gives
            labels = (lambda: m.query_tokens) if name == "derivedQ" else (lambda: m.tokens)
            table = MatrixTableModel(lambda: getattr(m.results, attr), labels, col_prefix="d",
                                     editable=False, parent=self)
        else:
            rows, cols = LABELS[name]
            tokens_of = weakly(self._tokens_of, ())  # (the table is the panel's: no reference back to it)
            row_labels = (lambda: tokens_of(name)) if rows is None else (
                lambda: [f"{rows}{i}" for i in range(m.matrix(name).shape[0])])
            table = MatrixTableModel(lambda: m.matrix(name) if m.has(name) else EMPTY, row_labels, col_prefix=cols,
                                     on_edit=lambda i, j, v: m.set_cell(name, i, j, v),
                                     block_edit_handler=lambda t, l, b: m.set_block(name, t, l, b), parent=self)
        view = MatrixTableView(self)
        view.setObjectName(f"table{name}")
        # its share of the line's width comes from the stretch its numbers need (_share_width) alone
        view.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Expanding)
        row = view.verticalHeader().defaultSectionSize()  # the column header is as tall
        view.setMinimumHeight((TABLE_MIN_ROWS + 1) * row + view.horizontalScrollBar().sizeHint().height()
                              + 2 * view.frameWidth())
        view.column_fit.stretch_up_to = STRETCH_UP_TO
        view.setModel(table)
        view.rejected.connect(lambda text: m.notify(translate("Editor", "{name}: {text}").format(name=name, text=text)))
        if table.editable:
            begin, end = weakly(self._begin_drag), weakly(self._end_drag)
            view.scrubStarted.connect(lambda r, c: begin())
            view.scrubbed.connect(lambda r, c, v: m.set_cell(name, r, c, v))
            view.scrubFinished.connect(lambda r, c: end())
            view.currentCellChanged.connect(partial(weakly(self._cell_selected), name))
        else:
            view.scrub_enabled = False
        if name in ("Q", "X", "derivedQ") or (name in ("K", "V", "derivedK", "derivedV") and not m.cross):
            view.pressed.connect(lambda index: m.set_selection(row=index.row()))  # rows are queries
            view.selectionModel().currentChanged.connect(
                lambda cur, prev: prev.isValid() and cur.isValid() and m.set_selection(row=cur.row()))
        if LABELS.get(name, (None,))[0] is None:  # rows are tokens
            side = "queries" if name in ("Q", "X", "derivedQ") else "keys"
            view.verticalHeader().sectionDoubleClicked.connect(partial(weakly(self.rename_token), side=side))
            view.verticalHeader().setToolTip(translate("Editor", RENAME_TIP))
        self.tables[name], self.views[name] = table, view
        left = self.views.get(SHARES_ROWS.get(name))
        if left is not None:  # the same rows (unless the queries are separate: see _shared_rows)
            shared_rows = weakly(self._shared_rows)
            for a, b in ((left, view), (view, left)):
                a.verticalScrollBar().valueChanged.connect(
                    lambda value, a=a, b=b: shared_rows(a, b) and b.verticalScrollBar().setValue(value))
        cell = QWidget(parent)
        box = QVBoxLayout(cell)
        box.setContentsMargins(0, 0, 0, 0)
        title = QLabel(cell)
        box.addWidget(title)
        box.addWidget(view, 1)
        cell.setFocusProxy(view)
        self.titles[name], self.cells[name] = title, cell
        self._fit_title(name)
        return cell

    def _fit_title(self, name):
        """The table's title, "K — is found by" (in the interface's language) or "K" where it is narrow."""
        old = self._fitting.pop(name, None)
        if old is not None:  # (the texts of another language)
            old.widget.removeEventFilter(old)
            old.deleteLater()
        short, tip = (translate("Editor", text) for text in ROLES[name])
        for widget in (self.titles[name], self.views[name]):
            widget.setToolTip(tip)
        shown = name[-1] if name.startswith("derived") else name
        self._fitting[name] = FittingText(self.titles[name], (
            (f"<b>{shown}</b> <span style='color:{GLOSS}'>— {short}</span>", f"{shown} — {short}"),
            (f"<b>{shown}</b>", shown)))

    def _tokens_of(self, name):
        """The tokens naming a matrix's rows: the queries' for Q and X, the keys' for K, V and X_src."""
        return self.model.query_tokens if name in ("Q", "X") else self.model.tokens

    # ----- selection and the cell slider ---------------------------------------------------------
    def _table_chosen(self, name):
        """A matrix button was clicked: its table is the one copy, paste and the slider go to."""
        if name in self.model.editable():
            self._active = name
        self.views[name].setFocus()

    def _cell_selected(self, name, row, col):
        self._active = name
        self.pages.currentWidget().show_table(name)  # (a paste or an undo may select a table behind its button)
        self._cell = (name, row, col)
        self._sync_slider()

    def _sync_slider(self):
        """The slider and its label show the selected cell's value; with no cell (none chosen, or the chosen
        one gone or no longer editable: another session, the projected mode's X in place of Q), nothing."""
        if self._cell is not None:
            name, row, col = self._cell
            arr = self.model.matrix(name) if self.model.has(name) else np.zeros((0, 0))
            if name not in self.model.editable() or row >= arr.shape[0] or col >= arr.shape[1]:
                self._cell = None
        if self._cell is None:
            self.cell_slider.setEnabled(False)
            self.cell_label.setText(translate("Editor", NO_CELL))
            with QSignalBlocker(self.cell_slider):
                self.cell_slider.setValue(0.0)
            return
        value = float(arr[row, col])
        rows, cols = LABELS[name]
        self.cell_label.setText(f"{name}[{self._tokens_of(name)[row] if rows is None else f'{rows}{row}'}, {cols}{col}]")
        limit = max(SLIDER_RANGE, abs(value))
        blocker = QSignalBlocker(self.cell_slider)
        if (self.cell_slider.minimum(), self.cell_slider.maximum()) != (-limit, limit):
            self.cell_slider.setRange(-limit, limit)
        self.cell_slider.setValue(value)
        del blocker
        self.cell_slider.setEnabled(True)

    def _begin_drag(self):
        """A scrub or the cell slider is held: one undo step, and the tables keep their columns where they are
        (they widen only where a number no longer fits) so the cell stays under the pointer."""
        self._held = True
        for view in self.views.values():
            view.column_fit.hold(True)
        self.model.begin_gesture()

    def _end_drag(self):
        """The drag is over: the columns fit the numbers again (narrower too), once."""
        self.model.end_gesture()
        self._held = False
        for view in self.views.values():
            view.column_fit.hold(False)
        if self._fitted() != self._shared_for:
            self._share_width()

    def _slider_moved(self, value):
        if self._cell is not None:
            name, row, col = self._cell
            self.model.set_cell(name, row, col, value)

    def _selected_row(self):
        return self.model.settings.selected_row

    def _row_after(self):
        return self._selected_row() + 1

    # ----- actions -------------------------------------------------------------------------------
    def rename_token(self, row, text=None, side="keys"):
        """Rename token ``row`` of the keys' or the queries' list (asks for the name when ``text`` is None)."""
        tokens = self.model.query_tokens if side == "queries" else self.model.tokens
        if text is None:
            text, ok = QInputDialog.getText(self, translate("Editor", "Rename token"),
                                            translate("Editor", "New name for token {row} ({name}):").format(
                                                row=row, name=tokens[row]), text=tokens[row])
            if not ok:
                return False
        return self.model.rename_token(row, text, side=side)

    def commit_edits(self):
        """Finish a cell edit in progress (typed but not yet entered), so saving or closing sees it."""
        for view in self.views.values():
            editor = view.focusWidget() if view.state() == view.State.EditingState else None
            if editor is not None and editor is not view:
                view.commitData(editor)
                view.closeEditor(editor, QAbstractItemDelegate.NoHint)

    def copy(self):
        return self.views[self._active].copy_selection()

    def paste(self):
        return self.views[self._active].paste()

    def render(self, flags):
        projected = self.model.projected
        if projected and self._projected_page is None:
            self._projected_page = self._page([["X", "X_src"], ["Wq", "Wk", "Wv", "Wo"],
                                               ["derivedQ", "derivedK", "derivedV"]], [3, 3, 2])
            self.pages.addWidget(self._projected_page)
            flags |= STRUCTURE
            self.viewsAdded.emit()
        if flags & (STRUCTURE | SETTINGS):  # (a cell's new value changes none of these)
            self._show_mode(projected)
        for name, table in self.tables.items():
            if name in LABELS and not self.model.has(name):
                continue  # X and the W of a session that was never projected (or undone back)
            if not table.editable and self.model.pending:
                continue  # X·Wᵀ of the old state: the results' ``changed`` brings these up to date
            if flags & STRUCTURE:
                table.reset()  # the view fits its columns to the new numbers (widgets/column_fit.py)
            elif flags & VALUES and table.editable and self.model.edited is not None:
                if name in self.model.edited:  # a typed cell or a drag: repaint those cells only
                    rows, cols = self.model.edited[name]
                    table.refresh_cells(rows.start, cols.start, rows.stop - 1, cols.stop - 1)
            elif flags & VALUES or (flags & SETTINGS and not table.editable):
                table.refresh()  # computed tables (X·Wᵀ) also follow settings such as positions
        if flags & (STRUCTURE | VALUES):
            if flags & STRUCTURE or (self._fitted() != self._shared_for  # new numbers seldom widen a column
                                     and not (self._held and self._roomy())):
                self._share_width()
        if flags & (STRUCTURE | VALUES | SETTINGS):  # (a setting may take the cell's matrix out of the editor)
            self._sync_slider()
        if flags & (STRUCTURE | SELECTION):
            self._follow_selected_row()

    def _show_mode(self, projected):
        """The page, actions, tooltips and tables of the session's mode (projected or not, cross or not)."""
        self.pages.setCurrentIndex(1 if projected else 0)
        self.tools.show_mode(projected, self.model.cross)
        if self._projected_page is not None:
            page = self._projected_page
            page.set_present([n for n in page.names if n != "X_src" or self.model.has("X_src")])
        if self._active not in self.model.editable():
            self._active = self.model.editable()[0]  # copy/paste go to a table that is on screen
        self.pages.currentWidget().show_table(self._active)
        self._arrange()

    def _share_width(self):
        """Tables side by side share the width as their numbers need it (Q and K of four columns get
        more than a V of three), so none scrolls while another has room to spare."""
        self._shared_for = self._fitted()
        self._arrange()
        for line, names in self._lines:
            for i, name in enumerate(names):
                line.setStretch(i, max(1, self.views[name].column_fit.needed_width()))

    def _roomy(self):
        """Whether every table on screen is as wide as its numbers need (a drag then moves no column)."""
        return all(view.column_fit.needed_width() <= view.width() for view in self.views.values() if view.isVisible())

    def _fitted(self):
        """The width each table's numbers need (what ``_share_width`` shares out, besides the shapes)."""
        return tuple(view.column_fit.width for view in self.views.values())

    def _shared_rows(self, a, b):
        """Whether tables ``a`` and ``b`` (views) show the same rows now (K's are not Q's in cross-attention)."""
        names = {a.objectName()[5:], b.objectName()[5:]}
        return not (self.model.cross and names & {"Q", "derivedQ"})

    def _arrange(self):
        """The current page side by side when every line shows all its columns (row labels shared where
        that is needed) and the dock's height a few rows of each table, else one table at a time."""
        page = self.pages.currentWidget()
        room = self.width() - 8  # the panel's margins
        present = set(page.present())
        lean_fits, labels = True, {}
        for _, names in page.lines:
            shown = [n for n in names if n in present]
            full = sum(self.views[n].column_fit.needed_width(with_labels=True) for n in shown) + 2 * len(shown)
            for name in shown:
                left = SHARES_ROWS.get(name)
                shared = left in shown and self._shared_rows(self.views[name], self.views[left])
                labels[name] = not (shared and full > room)
            lean = full - sum(self.views[n].verticalHeader().sizeHint().width() for n in shown if not labels[n])
            lean_fits = lean_fits and lean <= room
        alone = not lean_fits or page.side_by_side_height() > self._page_room()
        page.arrange(alone)
        for name in present:
            self.views[name].verticalHeader().setVisible(alone or labels[name])

    def _page_room(self):
        """The height the tables may have: the dock's (its scroll area's) less the toolbar, slider and hint."""
        viewport = self._watched if self._watched is not None else self
        return viewport.height() - (self.height() - self.pages.height())

    def showEvent(self, event):
        super().showEvent(event)
        parent = self.parentWidget()
        if self._watched is None and parent is not None and parent.objectName() == "qt_scrollarea_viewport":
            self._watched = parent  # a lower dock, while the panel keeps its height (it scrolls), asks again
            parent.installEventFilter(self)
            self._fit_hint()
            self._arrange()

    def eventFilter(self, watched, event):
        if watched is self._watched and event.type() == QEvent.Type.Resize:
            if event.size().height() != event.oldSize().height():
                self._fit_hint()
                self._arrange()
        return super().eventFilter(watched, event)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._share_width()
        elif event.size().height() != event.oldSize().height():
            self._arrange()
        self._fit_hint()

    def _fit_hint(self):
        """A low dock: the tables get the room, the hint becomes a tooltip. Measured on the dock's scroll
        viewport (the panel keeps at least its minimum height, the hint's included, so its own height
        would keep the hint once shown: after View ▸ Reset layout the dock scrolled to show it)."""
        room = self._watched.height() if self._watched is not None else self.height()
        low = room < LOW_DOCK
        if self.hint.isVisibleTo(self) == low:
            self.hint.setVisible(not low)
            self.cell_label.setToolTip(translate("Editor", HINT) if low else "")

    def _follow_selected_row(self):
        """Keep the tables' current row on the query row chosen anywhere (a heatmap click, the controls)."""
        if LABELS.get(self._active, (None,))[0] is not None:
            return  # the active table's rows are not tokens (a W)
        view = self.views[self._active]
        cell = view.selected_cell()
        row = self.model.settings.selected_row
        if cell is not None and cell[0] != row:
            view.setCurrentIndex(view.model().index(row, min(cell[1], view.model().columnCount() - 1)))
