"""A panel that is one labelled heatmap of the model's results, with a formula line above it."""
import numpy as np
from PySide6.QtWidgets import QLabel, QVBoxLayout

from explorer.widgets.heatmap import Heatmap

from .base import Panel


class HeatmapPanel(Panel):
    """Formula caption + heatmap; clicking a row selects that query for every panel."""

    cmap = "diverging"
    colorbar_label = ""
    col_title = "key"
    masked_text = "−∞"

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(self.caption.textFormat().RichText)
        self.heatmap = Heatmap(cmap=self.cmap, row_title="query", col_title=self.col_title,
                               colorbar_label=self.colorbar_label, masked_text=self.masked_text, parent=self)
        self.heatmap.tooltip_provider = self.tooltip
        self.heatmap.cellClicked.connect(lambda row, col: self.model.set_selection(row=row))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.caption)
        layout.addWidget(self.heatmap, 1)

    def head(self):
        return self.model.settings.selected_head

    def masked(self):
        """True where the selected head's cells are masked, or None when nothing is."""
        heads = self.model.results.heads
        if heads.mask is None:
            return None
        return ~np.broadcast_to(heads.mask, heads.scores.shape)[self.head()]

    def head_note(self):
        r = self.model.results
        return f" — head {self.head() + 1} of {r.n_heads}" if r.n_heads > 1 else ""

    def tooltip(self, row, col):
        return ""

    def render(self, flags):
        self.heatmap.set_selected_row(self.model.settings.selected_row)
