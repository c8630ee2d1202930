"""The table model of an editable numeric matrix: reads cells from the owner's array on demand, parses and
validates typed text, and hands every accepted edit to the owner (the table never writes into the array).
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal

from explorer.i18n import shown_error, translate
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

    def array(self) -> np.ndarray:
        """The numbers the table shows now (the owner's array as last read: never write into it)."""
        return self._array

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
        return (translate("Table", "Row {row}, column {col}") if capital else
                translate("Table", "row {row}, column {col}")).format(row=self._row_labels[row], col=self._col_labels[col])

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
            self.reject(translate("Table", "{cell}: this table is read-only").format(cell=self.cell_name(row, col)))
            return False
        try:
            if isinstance(value, str):
                number = parse_number(value)
            else:
                number = check_number(value)
        except ValueError as error:
            self.reject(translate("Table", "{cell}: {why}").format(cell=self.cell_name(row, col), why=shown_error(error)))
            return False
        if number == self.value(row, col):
            return True
        try:
            self.edit_handler(row, col, number)
        except ValueError as error:
            self.reject(translate("Table", "{cell}: {why}").format(cell=self.cell_name(row, col), why=shown_error(error)))
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
            self.reject(translate("Table", "Nothing to paste"))
            return False
        rows, cols = self._array.shape
        if not self.editable or (self.edit_handler is None and self.block_edit_handler is None):
            self.reject(translate("Table", "This table is read-only; nothing was pasted"))
            return False
        if not (0 <= top < rows and 0 <= left < cols):
            self.reject(translate("Table", "Select a cell to paste into"))
            return False
        height, width = values.shape
        room_rows, room_cols = rows - top, cols - left
        if height > room_rows or width > room_cols:
            self.reject(translate("Table", "The pasted block is {height} × {width} (rows × columns), but from {cell} "
                                           "there is room for only {room_rows} × {room_cols}; nothing was pasted").format(
                height=height, width=width, cell=self.cell_name(top, left, capital=False), room_rows=room_rows,
                room_cols=room_cols))
            return False
        bad = ~np.isfinite(values) | (np.abs(values) > MAX_ABS)
        if bad.any():
            r, c = (int(i) for i in np.argwhere(bad)[0])
            self.reject(translate("Table", "{cell}: {value} is not a finite number within 1e6; nothing was pasted").format(
                cell=self.cell_name(top + r, left + c), value=repr(values[r, c])))
            return False
        try:
            if self.block_edit_handler is not None:
                self.block_edit_handler(top, left, values)
            else:
                for (r, c), v in np.ndenumerate(values):
                    if v != self.value(top + r, left + c):
                        self.edit_handler(top + r, left + c, float(v))
        except ValueError as error:
            self.reject(translate("Table", "Paste at {cell}: {why}").format(cell=self.cell_name(top, left, capital=False),
                                                                             why=shown_error(error)))
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

