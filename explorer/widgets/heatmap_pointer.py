"""The heatmap's pointer: the hovered cell (outlined, announced, its tooltip kept in step with the numbers) and
the clicked one. Part of ``Heatmap`` (mixed in before pyqtgraph's view), apart from its drawing."""
from __future__ import annotations

import sys

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QToolTip

from .heatmap_ticks import is_cut
from .html_escape import plain_tooltip


class HeatmapPointer:
    """Needs of the heatmap: ``_cell_at_scene``, ``_hover``, ``_tooltip_text``, ``_outline_item``, the column labels
    and ticks, ``tooltip_provider`` and the ``cellHovered``/``cellClicked`` signals."""

    def _scene_pos(self, ev) -> QPointF:
        return self.viewportTransform().inverted()[0].map(ev.position())

    def mouseMoveEvent(self, ev) -> None:
        # Not the scene's sigMouseMoved: pyqtgraph rate-limits it and may drop the last move.
        super().mouseMoveEvent(ev)
        scene_pos = self._scene_pos(ev)
        self._set_hover(*self._cell_at_scene(scene_pos), scene_pos)

    def mousePressEvent(self, ev) -> None:
        super().mousePressEvent(ev)
        if self._cell_at_scene(self._scene_pos(ev))[0] >= 0:
            ev.accept()  # a cell is a click target (and this keeps the release coming to us)

    def mouseReleaseEvent(self, ev) -> None:
        super().mouseReleaseEvent(ev)  # pyqtgraph's scene turns press + release into sigMouseClicked
        if self._cell_at_scene(self._scene_pos(ev))[0] >= 0:
            ev.accept()

    def _on_mouse_clicked(self, ev) -> None:
        if ev.button() != Qt.MouseButton.LeftButton or ev.double():
            return
        r, c = self._cell_at_scene(ev.scenePos())
        if r >= 0:
            self.cellClicked.emit(r, c)

    def _set_hover(self, r: int, c: int, scene_pos: QPointF | None = None) -> None:
        if (r, c) == self._hover:
            return
        self._hover = (r, c)
        self._outline_item.hover = (r, c) if r >= 0 else None
        self._outline_item.update()
        self.cellHovered.emit(r, c)
        text = self._ask_tooltip(r, c) if r >= 0 and self.tooltip_provider is not None else ""
        self._tooltip_text = text
        if text and scene_pos is not None:
            local = self.viewportTransform().map(scene_pos).toPoint()
            QToolTip.showText(self.viewport().mapToGlobal(local), plain_tooltip(text), self.viewport())
        else:
            QToolTip.hideText()

    def _ask_tooltip(self, r: int, c: int) -> str:
        try:
            text = self.tooltip_provider(r, c)
            label = self._col_labels[c] if c < len(self._col_labels) else ""
            cut = text and label not in text and is_cut(self._ticks, label, self._col_label_px[c])
            return f"{label}\n{text}" if cut else text  # a column label cut short (…) above: here in full
        except Exception:  # noqa: BLE001 — an exception leaving a viewport event ends the process
            sys.excepthook(*sys.exc_info())
            return ""

    def refresh_tooltip(self) -> None:
        """The numbers under the pointer changed (an edit, an undo, a reveal): a tooltip on screen
        for the hovered cell follows them, or goes away when the cell has nothing to say now."""
        r, c = self._hover
        if r < 0 or self.tooltip_provider is None:
            return
        old, text = self._tooltip_text, self._ask_tooltip(r, c)
        self._tooltip_text = text
        if text == old or not old or not QToolTip.isVisible() or QToolTip.text() != plain_tooltip(old):
            return  # unchanged, or no tooltip of this cell on screen (Qt's ToolTip event asks again)
        if text:
            QToolTip.showText(QCursor.pos(), plain_tooltip(text), self.viewport())
        else:
            QToolTip.hideText()

    def leaveEvent(self, ev) -> None:
        super().leaveEvent(ev)
        self._set_hover(-1, -1)

    def viewportEvent(self, ev) -> bool:
        # Qt's delayed ToolTip event would reach the scene, which has no item tooltips and hides
        # ours; answer it with the hovered cell's text instead.
        if ev.type() == QEvent.Type.ToolTip and self.tooltip_provider is not None:
            text = self._tooltip_text if self._hover[0] >= 0 else ""
            if text:
                QToolTip.showText(ev.globalPos(), plain_tooltip(text), self.viewport())
            else:
                QToolTip.hideText()
            ev.accept()
            return True
        return super().viewportEvent(ev)

