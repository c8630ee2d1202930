"""Three changes side by side — of ① S, ② A and ③ O — on diverging maps centred at 0: what the
Sensitivity and the A/B diff panels draw (gold up, blue down, pale unmoved). Each map has its own range,
written in its title (no colour bars: three would take a third of a narrow dock). Every change in these
panels is written one way (``change_text``): signed, "0" when unmoved, two significant digits in the cells and
the summary — so a number named under the maps is the one printed in its cell, and ΔA's "−0.0021" still fits
one — and four in a tooltip (the precise number); values (before → after, A and B) alike (``value_text``)."""
import numpy as np
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QVBoxLayout, QWidget

from explorer.weak import weakly
from explorer.widgets.heatmap import Heatmap
from explorer.widgets.nice import nice_ceiling
from explorer.widgets.number_text import format_change, format_number
from explorer.widgets.palette import MUTED

STAGES = ("scores", "weights", "output")
HEATMAP_MIN = QSize(150, 170)


def change_levels(values, biggest=None):
    """(−m, m) with m the next 1, 2, 5 × 10^k above the largest |change| (``biggest`` when it was found off the GUI
    thread): small changes keep their colour."""
    if biggest is None:
        biggest = float(np.max(np.abs(values))) if np.size(values) else 0.0
    m = nice_ceiling(biggest) if biggest > 0 else 1.0
    return -m, m


def stacked(panel, caption, controls, views):
    """The Sensitivity and A/B diff panels' column: caption, controls, the maps (taking the height), and
    a word-wrapped summary under them (returned with the layout)."""
    summary = QLabel(panel)
    summary.setWordWrap(True)
    summary.setTextFormat(Qt.TextFormat.RichText)
    layout = QVBoxLayout(panel)
    layout.setContentsMargins(4, 4, 4, 4)
    layout.addWidget(caption)
    layout.addLayout(controls)
    layout.addWidget(views, 1)
    layout.addWidget(summary)
    return layout, summary


DIGITS = 2  # significant digits of the numbers in the cells and the summary
TIP_DIGITS = 4  # … and in a tooltip


def change_text(value, scale=0.0, digits=DIGITS):
    """A change as these panels write it: "+0.025", "−0.0021", "0" (below 1e-12 of ``scale``: rounding)."""
    return format_change(value, digits, scale)


def value_text(value, digits=DIGITS):
    """A value (not a change) as these panels write it: "0.35", "−2.3"."""
    return format_number(value, digits).replace("-", "−")


class ChangeViews(QWidget):
    """ΔS, ΔA, ΔO heatmaps with a title over each; ``tooltip(stage, row, col)`` answers their hovers and
    ``cellClicked(stage, row, col)`` reports a click."""

    def __init__(self, titles, tips, parent=None):
        super().__init__(parent)
        self.tooltip = None
        self.clicked = None
        self.titles, self.heatmaps, self._names, self._ranges = {}, {}, dict(titles), {}
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setHorizontalSpacing(6)
        self._grid.setVerticalSpacing(2)
        tooltip, clicked = weakly(self._tooltip_of, ""), weakly(self._clicked_on)  # (its maps' slots: no cycle)
        for stage in STAGES:
            title = QLabel(titles[stage], self)
            title.setTextFormat(Qt.TextFormat.RichText)
            title.setAlignment(Qt.AlignmentFlag.AlignCenter)
            title.setToolTip(tips[stage])
            heatmap = Heatmap(cmap="diverging", masked_text="", cell_format=change_text, parent=self)
            heatmap.colorbar.setVisible(False)
            heatmap.setMinimumHeight(HEATMAP_MIN.height())
            heatmap.tooltip_provider = lambda r, c, s=stage: tooltip(s, r, c)
            heatmap.cellClicked.connect(lambda r, c, s=stage: clicked(s, r, c))
            self.titles[stage], self.heatmaps[stage] = title, heatmap
        self.setMinimumWidth(HEATMAP_MIN.width())
        self.columns = 0
        self._arrange(len(STAGES))

    def _tooltip_of(self, stage, row, col):
        return self.tooltip(stage, row, col) if self.tooltip else ""

    def _clicked_on(self, stage, row, col):
        if self.clicked:
            self.clicked(stage, row, col)

    def _arrange(self, columns):
        """The three maps in ``columns`` columns (3: side by side; fewer in a narrow dock, wrapping to rows)."""
        if columns == self.columns:
            return
        self.columns = columns
        grid = self._grid
        for widget in (*self.titles.values(), *self.heatmaps.values()):
            grid.removeWidget(widget)
        for column in range(3):
            grid.setColumnStretch(column, 1 if column < columns else 0)
            grid.setRowStretch(2 * column + 1, 0)
        for i, stage in enumerate(STAGES):
            row, column = divmod(i, columns)
            grid.addWidget(self.titles[stage], 2 * row, column)
            grid.addWidget(self.heatmaps[stage], 2 * row + 1, column)
            grid.setRowStretch(2 * row + 1, 1)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        room = event.size().width() + self._grid.horizontalSpacing()
        self._arrange(max(1, min(3, room // (HEATMAP_MIN.width() + self._grid.horizontalSpacing()))))

    def set_title(self, stage, text):
        """The map's name (rich text); its range follows it when drawn."""
        self._names[stage] = text
        self.titles[stage].setText(text + self._ranges.get(stage, ""))

    def set_tip(self, stage, text):
        self.titles[stage].setToolTip(text)

    def show_changes(self, changes, row_labels, col_labels, masked=None, biggest=None):
        """Draw ``changes`` (stage → 2-D array) with their labels; ``masked``: stage → cells to hatch, or None;
        ``biggest``: stage → its largest |change|, found with the changes (else here, a pass over every cell)."""
        for stage in STAGES:
            values = changes[stage]
            cols = col_labels if stage != "output" else tuple(f"d{j}" for j in range(values.shape[1]))
            hatch = None if masked is None else masked.get(stage)
            levels = change_levels(values, None if biggest is None else biggest[stage])
            self.heatmaps[stage].set_matrix(values, row_labels=row_labels, col_labels=cols, levels=levels,
                                            masked=hatch, finite=True)
            self._ranges[stage] = f" <span style='color:{MUTED}'>(±{format_number(levels[1])})</span>"
            self.titles[stage].setText(self._names[stage] + self._ranges[stage])

    def highlight(self, stage, cells):
        self.heatmaps[stage].set_highlight(cells)
