"""An editable numeric matrix table: a lazy table model (``matrix_table_model``) plus a view that scrubs,
copies and pastes.

Generic (it knows nothing of attention) and fast at 4096×768: the model reads cells from the
owner's array on demand and the view makes no per-cell widgets. The table never writes into the
array; every accepted edit goes to a handler of the owner, which changes its data (undoably) and
then calls ``refresh()``, ``refresh_cells()`` or ``reset()``.
"""
from __future__ import annotations

import re

import numpy as np
from PySide6.QtCore import QEvent, QItemSelection, QItemSelectionModel, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QMenu, QTableView

from explorer.i18n import shown_error, translate
from explorer.widgets.number_text import MAX_ABS, parse_number

from .column_fit import ColumnFit
from .matrix_table_model import MatrixTableModel
from .measured_header import MeasuredHeader

__all__ = ["MatrixTableModel", "MatrixTableView", "MeasuredHeader"]


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
        horizontal.setMinimumSectionSize(metrics.horizontalAdvance("00") + 8)  # (column_fit: numbers and labels)
        horizontal.setDefaultSectionSize(metrics.horizontalAdvance("-1.234e+05") + 12)
        horizontal.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        horizontal.setHighlightSections(True)
        self.column_fit = ColumnFit(self, stretch_up_to=6)  # columns as wide as their numbers

    # ----- model plumbing -----------------------------------------------------------------------
    def setModel(self, model) -> None:
        old = self.model()
        if isinstance(old, MatrixTableModel):
            old.rejected.disconnect(self.rejected)
        super().setModel(model)
        if isinstance(model, MatrixTableModel):
            model.rejected.connect(self.rejected)
        self.column_fit.watch(model if isinstance(model, MatrixTableModel) else None)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.column_fit.resized()

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
            model.reject(translate("Table", "Select a cell to paste into"))
            return False
        top, left = box[0], box[1]
        rows = _split_block(text)
        if not rows:
            model.reject(translate("Table", "The clipboard holds no numbers to paste"))
            return False
        width = max(len(r) for r in rows)
        for r, cells in enumerate(rows):
            if len(cells) != width:
                model.reject(translate("Table", "Pasted row {row} has {values} values but the block is {width} wide; "
                                                "nothing was pasted").format(row=r + 1, values=len(cells), width=width))
                return False
        values = np.empty((len(rows), width))
        for r, cells in enumerate(rows):
            for c, cell in enumerate(cells):
                try:
                    values[r, c] = parse_number(cell)
                except ValueError as error:
                    inside = top + r < model.rowCount() and left + c < model.columnCount()
                    where = (translate("Table", " (for {cell})").format(cell=model.cell_name(top + r, left + c, False))
                             if inside else "")
                    model.reject(translate("Table", "Pasted row {row}, column {col}{where}: {why}; nothing was pasted").format(
                        row=r + 1, col=c + 1, where=where, why=shown_error(error)))
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

