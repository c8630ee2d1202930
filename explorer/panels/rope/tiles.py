"""How the RoPE panel arranges itself: its controls in small groups on four rows (wide) or as many to a row
as fit (narrow), the plane beside the spectrum and the score plot, or all three in one column."""
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from explorer.widgets.labelled_slider import LabelledSlider
from explorer.widgets.plots import lesson_plot
from explorer.widgets.tile_grid import TileGrid

NARROW = 760  # px: below this width the tiles stack in one column
ORDER = ("rope", "base*", "style", "offset", "scaling", "factor*", "low", "high", "context", "head", "query", "key",
         "pair*")  # the groups in reading order; * a slider, which takes what its row has left
SLIDER_ROOM = 200  # px a slider group needs at the least to be dragged with some precision
ROW_SPACING = 12


class RopeTiles:
    """Part of RopePanel: groups the controls and places the tiles for the panel's width."""

    def _build_layout(self, labels):
        # the controls come in small groups that flow onto four rows (wide) or ten (narrow); ``labels``: the
        # label of each setting that has one
        self.groups = {"rope": self._group(self.rope_box), "base": self._group(self.base_slider),
                       "style": self._group(labels["rope_style"], self.style_combo),
                       "offset": self._group(labels["rope_offset"], self.offset_box),
                       "scaling": self._group(labels["rope_scaling"], self.scaling_combo),
                       "factor": self._group(self.factor_slider),
                       "low": self._group(labels["rope_low_freq_factor"], self.low_box),
                       "high": self._group(labels["rope_high_freq_factor"], self.high_box),
                       "context": self._group(labels["rope_original_max_position_embeddings"], self.context_box),
                       "pair": self._group(self.pair_slider)}
        for name, text, widget in ((("head", QT_TRANSLATE_NOOP("RoPE", "head"), self.head_combo),
                                    ("query", QT_TRANSLATE_NOOP("RoPE", "query"), self.query_combo),
                                    ("key", QT_TRANSLATE_NOOP("RoPE", "key"), self.key_combo))):
            label = QLabel(self)
            self.keep_text(label.setText, "RoPE", text)
            label.setBuddy(widget)
            self.groups[name] = self._group(label, widget)
        self.bar_rows = [QHBoxLayout() for _ in ORDER]
        self._bar = None  # the groups on each row, as last arranged
        self.bar = QVBoxLayout()
        self.bar.setContentsMargins(0, 0, 0, 0)
        self.bar.setSpacing(4)
        for row in self.bar_rows:
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(ROW_SPACING)
            self.bar.addLayout(row)

        self.plane_tile, plane_layout = self._tile()
        plane_layout.addWidget(self.plane, 1)
        plane_layout.addWidget(self.m_slider)
        n_row = QHBoxLayout()
        n_row.addWidget(self.n_slider, 1)
        n_row.addSpacing(8)
        n_row.addWidget(self.lock_box)
        plane_layout.addLayout(n_row)
        plane_layout.addWidget(self.lock_note)
        plane_layout.addWidget(self.plane_readout)

        self.score_tile, score_layout = self._tile()
        score_layout.addWidget(self.score_plot, 1)
        score_layout.addWidget(self.score_readout)

        self.proof_tile, proof_layout = self._tile((4, 2, 4, 2), 4)
        proof_row = QHBoxLayout()
        proof_row.addWidget(self.toeplitz_button)
        proof_row.addWidget(self.toeplitz_label, 1)
        proof_layout.addLayout(proof_row)
        proof_layout.addWidget(self.quote_zh)
        proof_layout.addWidget(self.quote_en)

        # the plane on the left, the spectrum over score-vs-distance on the right; one column when narrow
        self.tiles = TileGrid((self.plane_tile, self.spectrum, self.score_tile), (
            (NARROW, ((0, 0, 2, 1), (0, 1), (1, 1)), (2, 3, 0)),
            (0, ((0, 0), (1, 0), (2, 0)), (3, 2, 3))), spacing=8)
        self._arrange_bar(self.tiles.columns)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        layout.addLayout(self.bar)
        layout.addWidget(self.problem_label)
        layout.addWidget(self.example_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addLayout(self.tiles, 1)
        layout.addWidget(self.proof_tile)

    # ----- building -----------------------------------------------------------------------------
    def _plot(self, title, bottom, left):
        return lesson_plot(self, self._fg, self._bg, title, bottom, left)

    def _label(self, text="", style="color: #1d232b;"):
        label = QLabel(text, self)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setStyleSheet(style)
        label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        return label

    def _buddy(self, text, widget):
        """A label for a setting's widget, with the same tooltip."""
        label = QLabel(self)
        self.keep_text(label.setText, "RoPE", text)
        label.setBuddy(widget)
        label.setToolTip(widget.toolTip())
        return label

    def _tile(self, margins=(0, 0, 0, 0), spacing=2):
        """A tile of the panel: a widget and the vertical layout its parts go into."""
        tile = QWidget(self)
        layout = QVBoxLayout(tile)
        layout.setContentsMargins(*margins)
        layout.setSpacing(spacing)
        return tile, layout

    def _group(self, *widgets):
        group = QWidget(self)
        row = QHBoxLayout(group)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        for w in widgets:
            row.addWidget(w, 1 if isinstance(w, LabelledSlider) else 0)
        return group

    def _packed_rows(self):
        """The shown groups in reading order, as many to a row as fit the panel's width (a narrow dock)."""
        outer = self.parentWidget()  # a dock's viewport: the panel itself keeps its minimum width when it shrinks
        margins = self.layout().contentsMargins()
        room = (outer.width() if outer is not None else self.width()) - margins.left() - margins.right()
        rows, used = [[]], 0
        for name in ORDER:
            group = self.groups[name.rstrip("*")]
            if group.isHidden():
                continue
            width = max(group.minimumSizeHint().width(), SLIDER_ROOM if name.endswith("*") else
                        group.sizeHint().width())
            if rows[-1] and used + ROW_SPACING + width > room:
                rows.append([])
                used = 0
            used += width + (ROW_SPACING if rows[-1] else 0)
            rows[-1].append(name)
        return [row if any(n.endswith("*") for n in row) else row + [""] for row in rows]

    def _arrange_bar(self, columns):
        g = self.groups
        if columns == 2:
            rows = [["rope", "base*", "style", "offset"], ["scaling", "factor*"], ["low", "high", "context", ""],
                    ["head", "query", "key", "pair*"]]
        else:
            rows = self._packed_rows()
        if rows == self._bar:
            return
        self._bar = rows
        rows = rows + [[]] * (len(self.bar_rows) - len(rows))
        for layout, names in zip(self.bar_rows, rows):
            while layout.count():
                layout.takeAt(0)
            for name in names:
                if not name:
                    layout.addStretch(1)
                else:
                    layout.addWidget(g[name.rstrip("*")], 1 if name.endswith("*") else 0)

    def showEvent(self, event):
        super().showEvent(event)
        if self.parentWidget() is not None:
            self.parentWidget().installEventFilter(self)  # (once: Qt ignores a second install)

    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Resize and watched is self.parentWidget() and self.tiles.columns == 1:
            self._arrange_bar(1)  # the dock's viewport narrower than the panel's least width: pack again
        return super().eventFilter(watched, event)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.tiles.fit(self.width())
        self._arrange_bar(self.tiles.columns)  # narrow: how many groups a row holds follows the width

