"""An editable numeric matrix table: a lazy table model plus a view that scrubs, copies and pastes.

Generic (it knows nothing of attention) and fast at 4096×768: the model reads cells from the
owner's array on demand and the view makes no per-cell widgets. The table never writes into the
array; every accepted edit goes to a handler of the owner, which changes its data (undoably) and
then calls ``refresh()``, ``refresh_cells()`` or ``reset()``.
"""
from __future__ import annotations

import heapq
import re
from typing import Callable, Sequence

import numpy as np
from PySide6.QtCore import (
    QAbstractTableModel,
    QEvent,
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QMenu, QTableView

from explorer.widgets.number_text import MAX_ABS, check_number, format_number, parse_number

EditHandler = Callable[[int, int, float], None]
BlockEditHandler = Callable[[int, int, np.ndarray], None]

_CHANGED_ROLES = [
    Qt.ItemDataRole.DisplayRole,
    Qt.ItemDataRole.EditRole,
    Qt.ItemDataRole.ToolTipRole,
]
_ALIGN = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


class MatrixTableModel(QAbstractTableModel):
    """A 2-D float array shown as a table; edits are parsed, validated and handed to the owner.

    ``get_array`` must be cheap (return the stored array, not a copy); it is read again on
    ``refresh``/``reset``. Accepted typed edits call ``edit_handler(row, col, value)``; blocks
    (paste) call ``block_edit_handler(top, left, values2d)`` once, so the owner can make one undo
    step; without a block handler each cell goes to ``edit_handler``. An edit that leaves the value
    unchanged calls nothing. A handler that raises ValueError is reported through ``rejected``.
    """

    rejected = Signal(str)
    """A user-facing message: what was refused and where; nothing was changed."""

    def __init__(
        self,
        get_array: Callable[[], np.ndarray],
        get_row_labels: Callable[[], Sequence[str]],
        get_col_labels: Callable[[], Sequence[str]] | None = None,
        editable: bool = True,
        on_edit: EditHandler | None = None,
        block_edit_handler: BlockEditHandler | None = None,
        col_prefix: str = "",
        parent=None,
    ):
        super().__init__(parent)
        self._get_array = get_array
        self._get_row_labels = get_row_labels
        self._get_col_labels = get_col_labels
        self.editable = editable
        self.edit_handler: EditHandler | None = on_edit
        self.block_edit_handler: BlockEditHandler | None = block_edit_handler
        self.col_prefix = col_prefix
        self._array = np.zeros((0, 0))
        self._row_labels: list[str] = []
        self._col_labels: list[str] = []
        self._fetch()

    # ----- reading the owner's data -------------------------------------------------------------
    def _fetch(self) -> None:
        array = np.asarray(self._get_array())
        if array.ndim != 2:
            raise ValueError(f"MatrixTableModel needs a 2-D array, got shape {array.shape}")
        self._array = array
        rows, cols = array.shape
        self._row_labels = self._labels(self._get_row_labels(), rows, "")
        given = self._get_col_labels() if self._get_col_labels is not None else None
        self._col_labels = self._labels(given, cols, self.col_prefix)

    @staticmethod
    def _labels(given: Sequence[str] | None, n: int, prefix: str) -> list[str]:
        labels = [str(s) for s in given[:n]] if given is not None else []
        labels.extend(f"{prefix}{i}" for i in range(len(labels), n))
        return labels

    def value(self, row: int, col: int) -> float:
        """The value the table currently shows at (row, col)."""
        return float(self._array[row, col])

    def labels(self, orientation: Qt.Orientation) -> list[str]:
        """The row (Vertical) or column (Horizontal) labels the headers show (the list itself: do not edit)."""
        return self._row_labels if orientation == Qt.Orientation.Vertical else self._col_labels

    def row_label(self, row: int) -> str:
        return self._row_labels[row]

    def col_label(self, col: int) -> str:
        return self._col_labels[col]

    def cell_name(self, row: int, col: int, capital: bool = True) -> str:
        """How messages name a cell: 'Row 猫, column 2' ('row 猫, column 2' mid-sentence)."""
        return f"{'Row' if capital else 'row'} {self._row_labels[row]}, column {self._col_labels[col]}"

    def block(self, top: int, left: int, bottom: int, right: int) -> np.ndarray:
        """A copy of the inclusive block [top..bottom] × [left..right] as float64."""
        return np.array(self._array[top : bottom + 1, left : right + 1], dtype=float)

    # ----- Qt model interface -------------------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self._array.shape[0]

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self._array.shape[1]

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return format_number(self._array[index.row(), index.column()])
        if role in (Qt.ItemDataRole.EditRole, Qt.ItemDataRole.ToolTipRole):
            return repr(float(self._array[index.row(), index.column()]))
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _ALIGN
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        labels = self._row_labels if orientation == Qt.Orientation.Vertical else self._col_labels
        return labels[section] if 0 <= section < len(labels) else None

    def flags(self, index):
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
        if self.editable:
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole) -> bool:
        """Parse and validate; on success hand the value to ``edit_handler``, else emit ``rejected``."""
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        row, col = index.row(), index.column()
        if not self.editable or self.edit_handler is None:
            self.reject(f"{self.cell_name(row, col)}: this table is read-only")
            return False
        try:
            if isinstance(value, str):
                number = parse_number(value)
            else:
                number = check_number(value)
        except ValueError as error:
            self.reject(f"{self.cell_name(row, col)}: {error}")
            return False
        if number == self.value(row, col):
            return True
        try:
            self.edit_handler(row, col, number)
        except ValueError as error:
            self.reject(f"{self.cell_name(row, col)}: {error}")
            return False
        return True

    # ----- edits in blocks ----------------------------------------------------------------------
    def reject(self, message: str) -> None:
        """Report a refused input (used by the view too, so all messages share one signal)."""
        self.rejected.emit(message)

    def set_block(self, top: int, left: int, values: np.ndarray) -> bool:
        """Hand a validated 2-D block to ``block_edit_handler`` (one undo step); refuse misfits.

        A block that sticks out past the table is refused with its size and the room available;
        the table is never resized.
        """
        values = np.asarray(values, dtype=float)
        if values.ndim != 2 or values.size == 0:
            self.reject("Nothing to paste")
            return False
        rows, cols = self._array.shape
        if not self.editable or (self.edit_handler is None and self.block_edit_handler is None):
            self.reject("This table is read-only; nothing was pasted")
            return False
        if not (0 <= top < rows and 0 <= left < cols):
            self.reject("Select a cell to paste into")
            return False
        height, width = values.shape
        room_rows, room_cols = rows - top, cols - left
        if height > room_rows or width > room_cols:
            self.reject(
                f"The pasted block is {height} × {width} (rows × columns), but from "
                f"{self.cell_name(top, left, capital=False)} there is room for only "
                f"{room_rows} × {room_cols}; nothing was pasted"
            )
            return False
        bad = ~np.isfinite(values) | (np.abs(values) > MAX_ABS)
        if bad.any():
            r, c = (int(i) for i in np.argwhere(bad)[0])
            self.reject(
                f"{self.cell_name(top + r, left + c)}: {values[r, c]!r} is not a finite number "
                "within 1e6; nothing was pasted"
            )
            return False
        try:
            if self.block_edit_handler is not None:
                self.block_edit_handler(top, left, values)
            else:
                for (r, c), v in np.ndenumerate(values):
                    if v != self.value(top + r, left + c):
                        self.edit_handler(top + r, left + c, float(v))
        except ValueError as error:
            self.reject(f"Paste at {self.cell_name(top, left, capital=False)}: {error}")
            return False
        return True

    # ----- the owner announces changes ----------------------------------------------------------
    def refresh(self) -> None:
        """Re-read everything (same shape: dataChanged + headerDataChanged; new shape: reset)."""
        if np.shape(self._get_array()) != self._array.shape:
            self.reset()
            return
        old_rows, old_cols = self._row_labels, self._col_labels
        self._fetch()
        rows, cols = self._array.shape
        if rows and cols:
            self.dataChanged.emit(self.index(0, 0), self.index(rows - 1, cols - 1), _CHANGED_ROLES)
        if rows and self._row_labels != old_rows:
            self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, rows - 1)
        if cols and self._col_labels != old_cols:
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, cols - 1)

    def refresh_cells(self, top: int, left: int, bottom: int, right: int) -> None:
        """Re-read the inclusive block of cells the owner changed (same shape only)."""
        if np.shape(self._get_array()) != self._array.shape:
            self.reset()
            return
        self._array = np.asarray(self._get_array())
        rows, cols = self._array.shape
        top, left = max(top, 0), max(left, 0)
        bottom, right = min(bottom, rows - 1), min(right, cols - 1)
        if top <= bottom and left <= right:
            self.dataChanged.emit(self.index(top, left), self.index(bottom, right), _CHANGED_ROLES)

    def reset(self) -> None:
        """Re-read everything after a shape change (rows/columns added or removed)."""
        self.beginResetModel()
        self._fetch()
        self.endResetModel()


class MeasuredHeader(QHeaderView):
    """A header whose size hint is measured once from its longest labels, then kept until they change.

    QHeaderView.sizeHint asks the model about 200 sections × 4 roles every time its cache is
    dropped, dozens of times while a 4096 × 768 table opens (tens of thousands of ``headerData``
    calls); the widest label decides the hint, so only the longest few are measured.
    """

    CANDIDATES = 16  # labels measured exactly: the longest by UTF-8 length (CJK counts 3, so wide glyphs win)

    def __init__(self, orientation, parent=None):
        super().__init__(orientation, parent)
        self.setSectionsClickable(True)  # what QTableView sets on the headers it makes itself
        self.setHighlightSections(True)
        self._hint: QSize | None = None
        self._watched = None
        self._measured = (None, 0, QSize())  # (labels list, count, size): unchanged labels are not measured again

    def setModel(self, model) -> None:
        if self._watched is not None:
            try:
                for signal in self._signals(self._watched):
                    signal.disconnect(self.invalidate_hint)
            except RuntimeError:  # the old model is already gone, and its connections with it
                pass
        super().setModel(model)
        self._watched = model
        if model is not None:
            for signal in self._signals(model):
                signal.connect(self.invalidate_hint)
        self.invalidate_hint()

    @staticmethod
    def _signals(model):
        return (model.modelReset, model.layoutChanged, model.headerDataChanged, model.rowsInserted,
                model.rowsRemoved, model.columnsInserted, model.columnsRemoved)

    def invalidate_hint(self, *args) -> None:
        """Measure again on the next ``sizeHint`` (labels, sections, font or style changed)."""
        if self._hint is not None:
            self._hint = None
            self.updateGeometry()
            self.geometriesChanged.emit()  # the table lays its headers out again

    def changeEvent(self, event) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._measured = (None, 0, QSize())
            self.invalidate_hint()
        super().changeEvent(event)

    def sizeHint(self) -> QSize:
        if self._hint is None:
            self._hint = self._measure()
        return QSize(self._hint)

    def _measure(self) -> QSize:
        model = self.model()
        count = self.count()
        if not isinstance(model, MatrixTableModel) or count == 0:
            return super().sizeHint()
        labels = model.labels(self.orientation())
        seen, seen_count, seen_size = self._measured
        if count == seen_count and (labels is seen or labels == seen):
            return QSize(seen_size)
        n = min(count, len(labels))
        longest = heapq.nlargest(self.CANDIDATES, range(n), key=lambda i: len(labels[i].encode("utf-8")))
        size = QSize(0, 0)
        for section in {0, count - 1, *longest}:
            size = size.expandedTo(self.sectionSizeFromContents(section))
        self._measured = (labels, count, QSize(size))
        return size


class MatrixTableView(QTableView):
    """A compact view for MatrixTableModel: drag horizontally on a cell to scrub it, copy/paste blocks.

    Scrubbing does not edit: it emits ``scrubStarted``, ``scrubbed(row, col, value)`` per move and
    ``scrubFinished``; the owner applies the values (merging them into one undo step). Paste goes
    to the model's ``block_edit_handler``. Refusals come out of ``rejected`` (the model's messages
    are forwarded there too, so connect to one of the two signals, not both).
    """

    scrubStarted = Signal(int, int)
    scrubbed = Signal(int, int, float)
    scrubFinished = Signal(int, int)
    currentCellChanged = Signal(int, int)
    rejected = Signal(str)

    SCRUB_THRESHOLD = 4
    """Pixels of motion before a press decides between scrubbing and selecting."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.scrub_enabled = True
        self.scrub_step = 0.01
        """Value change per pixel of horizontal drag."""
        self.fine_scrub_step = 0.001
        """Value change per pixel while Shift is held (read at every move)."""
        self._press: tuple[QPersistentModelIndex, float, float, Qt.KeyboardModifier] | None = None
        self._gesture = ""  # "", "pending", "scrub", "select", "cancelled"
        self._scrub_cell = (-1, -1)
        self._scrub_origin = 0.0
        self._scrub_offset = 0.0
        self._scrub_value = 0.0
        self._scrub_last_x = 0.0

        self.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setWordWrap(False)
        self.setCornerButtonEnabled(True)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.DefaultContextMenu)
        self.setVerticalHeader(MeasuredHeader(Qt.Orientation.Vertical, self))
        self.setHorizontalHeader(MeasuredHeader(Qt.Orientation.Horizontal, self))
        metrics = self.fontMetrics()
        row_height = metrics.height() + 6
        vertical = self.verticalHeader()
        vertical.setMinimumSectionSize(row_height)
        vertical.setDefaultSectionSize(row_height)
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vertical.setDefaultAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        horizontal = self.horizontalHeader()
        horizontal.setMinimumSectionSize(metrics.horizontalAdvance("-0.0") + 8)
        horizontal.setDefaultSectionSize(metrics.horizontalAdvance("-1.234e+05") + 12)
        horizontal.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        horizontal.setHighlightSections(True)

    # ----- model plumbing -----------------------------------------------------------------------
    def setModel(self, model) -> None:
        old = self.model()
        if isinstance(old, MatrixTableModel):
            old.rejected.disconnect(self.rejected)
        super().setModel(model)
        if isinstance(model, MatrixTableModel):
            model.rejected.connect(self.rejected)

    def _matrix(self) -> MatrixTableModel | None:
        model = self.model()
        return model if isinstance(model, MatrixTableModel) else None

    def selected_cell(self) -> tuple[int, int] | None:
        """The current cell (row, col), or None when there is none."""
        index = self.currentIndex()
        return (index.row(), index.column()) if index.isValid() else None

    def currentChanged(self, current, previous) -> None:
        super().currentChanged(current, previous)
        if current.isValid():
            self.currentCellChanged.emit(current.row(), current.column())

    def _selection_box(self) -> tuple[int, int, int, int] | None:
        """Bounding box (top, left, bottom, right) of the selection, else the current cell."""
        selection_model = self.selectionModel()
        ranges = list(selection_model.selection()) if selection_model is not None else []
        if ranges:
            return (
                min(r.top() for r in ranges),
                min(r.left() for r in ranges),
                max(r.bottom() for r in ranges),
                max(r.right() for r in ranges),
            )
        cell = self.selected_cell()
        return (cell[0], cell[1], cell[0], cell[1]) if cell else None

    # ----- copy and paste -----------------------------------------------------------------------
    def copy_selection(self) -> str:
        """Copy the selected block (its bounding box) as tab-separated full-precision text."""
        model = self._matrix()
        box = self._selection_box()
        if model is None or box is None:
            return ""
        values = model.block(*box)
        text = "\n".join("\t".join(map(repr, row)) for row in values.tolist())
        QGuiApplication.clipboard().setText(text)
        return text

    def paste_text(self, text: str) -> bool:
        """Paste a block of numbers at the selection's top-left (or current) cell, all or nothing.

        Cells are split by tabs if there are any, else by semicolons, else by commas and/or
        whitespace; rows by line breaks. Every value is parsed before anything changes.
        """
        model = self._matrix()
        if model is None:
            return False
        box = self._selection_box()
        if box is None:
            model.reject("Select a cell to paste into")
            return False
        top, left = box[0], box[1]
        rows = _split_block(text)
        if not rows:
            model.reject("The clipboard holds no numbers to paste")
            return False
        width = max(len(r) for r in rows)
        for r, cells in enumerate(rows):
            if len(cells) != width:
                model.reject(
                    f"Pasted row {r + 1} has {len(cells)} values but the block is {width} wide; "
                    "nothing was pasted"
                )
                return False
        values = np.empty((len(rows), width))
        for r, cells in enumerate(rows):
            for c, cell in enumerate(cells):
                try:
                    values[r, c] = parse_number(cell)
                except ValueError as error:
                    inside = top + r < model.rowCount() and left + c < model.columnCount()
                    where = f" (for {model.cell_name(top + r, left + c, False)})" if inside else ""
                    model.reject(
                        f"Pasted row {r + 1}, column {c + 1}{where}: {error}; nothing was pasted"
                    )
                    return False
        if not model.set_block(top, left, values):
            return False
        self._select_block(top, left, top + len(rows) - 1, left + width - 1)
        return True

    def paste(self) -> bool:
        """Paste the clipboard's text (see ``paste_text``)."""
        return self.paste_text(QGuiApplication.clipboard().text())

    def _select_block(self, top: int, left: int, bottom: int, right: int) -> None:
        model = self.model()
        selection = QItemSelection(model.index(top, left), model.index(bottom, right))
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect
        self.selectionModel().select(selection, flags)
        self.selectionModel().setCurrentIndex(
            model.index(top, left), QItemSelectionModel.SelectionFlag.NoUpdate
        )

    def build_context_menu(self) -> QMenu:
        """The Copy / Paste menu (public so owners can extend it and tests can trigger it)."""
        menu = QMenu(self)
        copy = menu.addAction(self.tr("Copy"))
        copy.setShortcut(QKeySequence(QKeySequence.StandardKey.Copy))
        copy.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        copy.triggered.connect(self.copy_selection)
        paste = menu.addAction(self.tr("Paste"))
        paste.setShortcut(QKeySequence(QKeySequence.StandardKey.Paste))
        paste.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        paste.triggered.connect(self.paste)
        model = self._matrix()
        paste.setEnabled(model is not None and model.editable)
        return menu

    def contextMenuEvent(self, event) -> None:
        menu = self.build_context_menu()
        menu.exec(event.globalPos())
        menu.deleteLater()

    # ----- keys ---------------------------------------------------------------------------------
    def event(self, event) -> bool:
        # Take Copy/Paste (and Escape while scrubbing) before any window-wide shortcut does.
        if event.type() == QEvent.Type.ShortcutOverride and (
            event.matches(QKeySequence.StandardKey.Copy)
            or event.matches(QKeySequence.StandardKey.Paste)
            or (self._gesture == "scrub" and event.key() == Qt.Key.Key_Escape)
        ):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event) -> None:
        if self._gesture == "scrub" and event.key() == Qt.Key.Key_Escape:
            self._cancel_scrub()
            event.accept()
        elif event.matches(QKeySequence.StandardKey.Copy):
            self.copy_selection()
            event.accept()
        elif event.matches(QKeySequence.StandardKey.Paste):
            self.paste()
            event.accept()
        elif event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            event.accept()  # never zero values by accident
        else:
            super().keyPressEvent(event)

    # ----- scrubbing ----------------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:
        self._gesture = ""
        self._press = None
        index = self.indexAt(event.position().toPoint())
        model = self._matrix()
        if (
            self.scrub_enabled
            and event.button() == Qt.MouseButton.LeftButton
            and index.isValid()
            and model is not None
            and model.flags(index) & Qt.ItemFlag.ItemIsEditable
            and not event.modifiers() & Qt.KeyboardModifier.ControlModifier
        ):
            self._press = (
                QPersistentModelIndex(index),
                event.position().x(),
                event.position().y(),
                event.modifiers(),
            )
            self._gesture = "pending"
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        if self._gesture == "pending" and event.buttons() & Qt.MouseButton.LeftButton:
            index, x0, y0, _ = self._press
            dx, dy = event.position().x() - x0, event.position().y() - y0
            if abs(dx) + abs(dy) < self.SCRUB_THRESHOLD:
                return  # undecided: neither select nor scrub yet
            if abs(dx) >= abs(dy) and index.isValid():
                self._start_scrub(index, x0)
            else:
                self._gesture = "select"
        if self._gesture == "scrub":
            self._scrub_to(event.position().x(), event.modifiers())
            event.accept()
            return
        if self._gesture == "cancelled":
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        gesture = self._gesture
        self._gesture = ""
        self._press = None
        if gesture == "scrub":
            self._finish_scrub()
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:
        self._gesture = ""
        self._press = None
        super().mouseDoubleClickEvent(event)

    def focusOutEvent(self, event) -> None:
        if self._gesture == "scrub":  # a popup stole the mouse: keep what was scrubbed
            self._gesture = ""
            self._finish_scrub()
        super().focusOutEvent(event)

    def _start_scrub(self, index: QPersistentModelIndex, x0: float) -> None:
        model = self._matrix()
        row, col = index.row(), index.column()
        self._gesture = "scrub"
        self._scrub_cell = (row, col)
        self._scrub_origin = model.value(row, col)
        self._scrub_value = self._scrub_origin
        self._scrub_offset = 0.0
        self._scrub_last_x = x0
        self._select_block(row, col, row, col)
        self.setCurrentIndex(model.index(row, col))
        self.viewport().setCursor(Qt.CursorShape.SizeHorCursor)
        self.scrubStarted.emit(row, col)

    def _scrub_to(self, x: float, modifiers) -> None:
        fine = bool(modifiers & Qt.KeyboardModifier.ShiftModifier)
        step = self.fine_scrub_step if fine else self.scrub_step
        self._scrub_offset += (x - self._scrub_last_x) * step
        self._scrub_last_x = x
        value = float(f"{self._scrub_origin + self._scrub_offset:.12g}") + 0.0  # no 0.1+0.2 noise
        value = min(max(value, -MAX_ABS), MAX_ABS)
        if value != self._scrub_value:
            self._scrub_value = value
            self.scrubbed.emit(*self._scrub_cell, value)

    def _cancel_scrub(self) -> None:
        self._gesture = "cancelled"
        self.viewport().unsetCursor()
        self._scrub_value = self._scrub_origin
        self.scrubbed.emit(*self._scrub_cell, self._scrub_origin)
        self.scrubFinished.emit(*self._scrub_cell)

    def _finish_scrub(self) -> None:
        self.viewport().unsetCursor()
        self.scrubFinished.emit(*self._scrub_cell)

    def is_scrubbing(self) -> bool:
        return self._gesture == "scrub"


def _split_block(text: str) -> list[list[str]]:
    """Split pasted text into rows of cell strings (trailing blank lines dropped)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        return []
    if "\t" in text:
        return [line.split("\t") for line in lines]
    if ";" in text:
        return [[cell.strip() for cell in line.split(";")] for line in lines]
    return [[cell for cell in re.split(r"[,\s]+", line.strip())] for line in lines]
