"""F8 heads grid: one small heatmap per head — H "radars", each scanning for its own relation.

The chapter: "把 D 维切成 H 份 … 每份 d_h = D/H 维,各自独立跑一遍注意力 … √d 的温度也按头校准".
Every head's weights (or scores) come from ``model.results.heads``; this file only lays them out.
Clicking a head's heatmap makes it the selected head, so the main Scores/Weights/Output panels show it.
"""
import math
from functools import partial
from explorer.weak import weakly
from explorer.widgets.html_escape import escape

import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QRectF, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPalette, QPen
from PySide6.QtWidgets import (QButtonGroup, QComboBox, QFrame, QGridLayout, QHBoxLayout, QLabel, QPushButton,
                               QScrollArea, QSizePolicy, QVBoxLayout, QWidget)

from explorer.core.heads import sharing_name
from explorer.core.plural import count
from explorer.i18n import in_language, translate
from explorer.model import SELECTION
from explorer.widgets.details import Details
from explorer.widgets.heatmap import Heatmap
from explorer.widgets.number_text import format_number
from explorer.widgets.colour_bar import ColourBar
from explorer.widgets.palette import BAD, BAND, FRAME, INK, colour_map, head_colour

from .base import ALL, Panel
from .head_style import head_width, scale_text
from .heatmap_panel import nice_symmetric_levels

MAX_SHOWN = 16  # heads drawn in the grid; more are summarised as "showing 16 of H"
MIN_CELL_W, MIN_CELL_H = 160, 150  # below this the grid scrolls rather than shrinking a head further
TIGHT_LABEL_SHARE = 0.22  # token labels on inner heads only while they take less than this of a head's width
SELECTED_PEN = QColor(INK)
FRAME_PEN = QColor(FRAME)
SELECTED_FILL = QColor(BAND)
MODES = ("weights", "scores")


class HeadCell(QFrame):
    """One head: a coloured title and its heatmap; outlined while it is the selected head."""

    clicked = Signal(int)

    def __init__(self, head, mode, parent=None):
        super().__init__(parent)
        self.head = head
        self.selected = False
        self.title = QLabel(self)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.heatmap = Heatmap(cmap="sequential" if mode == "weights" else "diverging",
                               masked_text="0" if mode == "weights" else "−∞", parent=self)
        self.heatmap.colorbar.setVisible(False)  # one shared colour bar for the whole grid
        layout = QVBoxLayout(self)
        layout.setContentsMargins(5, 4, 5, 4)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.heatmap, 1)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip(translate("Heads", "head {head}: click to show it in the Scores, Weights and Output panels"
                                  ).format(head=head + 1))

    def set_title(self, variants):
        """``variants``: (rich text, plain text) from the fullest to the shortest; the widest that fits is shown."""
        self._variants = variants
        self._fit_title()

    def _fit_title(self):
        variants = getattr(self, "_variants", None)
        if not variants:
            return
        bold = self.title.font()
        bold.setBold(True)
        fm = QFontMetricsF(bold)  # a little generous: only "head h" is bold
        margins = self.layout().contentsMargins()
        room = self.width() - margins.left() - margins.right() - 6
        text = next((rich for rich, plain in variants if fm.horizontalAdvance(plain) <= room), variants[-1][0])
        if text != self.title.text():
            self.title.setText(text)
        self.title.setToolTip(variants[0][1])

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._fit_title()

    def set_selected(self, selected):
        if selected != self.selected:
            self.selected = selected
            self.update()

    def mousePressEvent(self, event):  # the title and the margins select the head too
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(self.head)
        super().mousePressEvent(event)

    def paintEvent(self, event):
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        width = 2.5 if self.selected else 1.0
        pen = QPen(SELECTED_PEN if self.selected else FRAME_PEN, width)
        p.setPen(pen)
        p.setBrush(SELECTED_FILL if self.selected else Qt.BrushStyle.NoBrush)
        r = QRectF(self.rect()).adjusted(width / 2 + 0.5, width / 2 + 0.5, -width / 2 - 0.5, -width / 2 - 0.5)
        p.drawRoundedRect(r, 4, 4)
        p.end()


class HeadsPanel(Panel):
    """F8: every head's weights (or scores) side by side; click one to make it the selected head."""

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.mode = "weights"
        self.cells = []  # one HeadCell per shown head (at most MAX_SHOWN)
        self._built = None  # (H shown, mode) the cells were made for
        self._tight = False

        self.caption = Details("", "", self)  # one line; the whole explanation folded under it

        self.heads_combo = QComboBox(self)
        self.keep_text(self.heads_combo.setToolTip, "Heads",
                       "Number of heads H: only divisors of the widths of Q/K and V are offered")
        self.heads_combo.currentIndexChanged.connect(self._heads_chosen)
        self.weights_button = QPushButton(self)
        self.scores_button = QPushButton(self)
        self.keep_text(self.weights_button.setText, "Heads", "weights")
        self.keep_text(self.scores_button.setText, "Heads", "scores")
        self.mode_group = QButtonGroup(self)
        for b, tip in ((self.weights_button, QT_TRANSLATE_NOOP("Heads", "Show each head's weights A_h = softmax(S_h)")),
                       (self.scores_button, QT_TRANSLATE_NOOP("Heads", "Show each head's scores S_h = Q_h K_hᵀ · scale"))):
            b.setCheckable(True)
            self.keep_text(b.setToolTip, "Heads", tip)
            self.mode_group.addButton(b)
        self.weights_button.setChecked(True)
        self.mode_group.buttonToggled.connect(self._mode_toggled)
        controls = QHBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        controls.addWidget(self.kept_label("Heads", "heads H"))
        controls.addWidget(self.heads_combo)
        controls.addSpacing(12)
        controls.addWidget(self.kept_label("Heads", "show"))
        controls.addWidget(self.weights_button)
        controls.addWidget(self.scores_button)
        controls.addStretch(1)

        self.grid_widget = QWidget()
        self.grid = QGridLayout(self.grid_widget)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(6)
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidget(self.grid_widget)

        fg = self.palette().color(QPalette.ColorRole.WindowText)
        self.colorbar_view = pg.GraphicsLayoutWidget(self)
        self.colorbar_view.setBackground(self.palette().color(QPalette.ColorRole.Base))
        self.colorbar_view.setFixedWidth(74)
        self._bars = {}
        for mode, cmap in (("weights", "sequential"), ("scores", "diverging")):
            bar = ColourBar(colour_map(cmap), width=14, pen=fg)
            self.keep_text(lambda text, axis=bar.axis, color=fg.name(): axis.setLabel(text, color=color),
                           "Heads", QT_TRANSLATE_NOOP("Heads", "weight") if mode == "weights" else
                           QT_TRANSLATE_NOOP("Heads", "score"))
            self._bars[mode] = bar
        self.colorbar = None  # the bar of the current mode, in the view

        self.note = QLabel(self)  # "showing 16 of 24", hidden weights, …
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.RichText)

        body = QHBoxLayout()
        body.setContentsMargins(0, 0, 0, 0)
        body.addWidget(self.scroll, 1)
        body.addWidget(self.colorbar_view)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.caption)
        layout.addLayout(controls)
        layout.addLayout(body, 1)
        layout.addWidget(self.note)

    # ----- user → model -------------------------------------------------------------------------
    def _heads_chosen(self, index):
        h = self.heads_combo.itemData(index)
        if h is not None:
            self.model.set_param("heads", int(h))

    def _mode_toggled(self, button, checked):
        if checked:
            self.set_mode("scores" if button is self.scores_button else "weights")

    def set_mode(self, mode):
        """Show every head's "weights" (default) or "scores"."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if mode == self.mode:
            return
        self.mode = mode
        with QSignalBlocker(self.mode_group):
            (self.scores_button if mode == "scores" else self.weights_button).setChecked(True)
        self._stale |= ALL
        if self.isVisible():
            self._render_stale()

    def _cell_clicked(self, head, row=None, key=None):
        if row is not None and not self.hidden():
            self.model.set_selection(head=head, row=row, key=key)
        else:
            self.model.set_selection(head=head)

    # ----- reading (tests) ----------------------------------------------------------------------
    @property
    def heatmaps(self):
        """The heatmaps shown, in head order."""
        return [c.heatmap for c in self.cells]

    def titles(self):
        """Each shown head's full title (plain text); a narrow head shows a shorter form, this one as tooltip."""
        return [c.title.toolTip() for c in self.cells]

    def selected_cells(self):
        """The heads drawn outlined (the selected head, if it is among the shown ones)."""
        return [c.head for c in self.cells if c.selected]

    def hidden(self):
        """Weights stay hidden until the lesson reveals ② (scores until ①)."""
        return self.model.revealed < (2 if self.mode == "weights" else 1)

    def labels_on_outer_only(self):
        return self._tight

    def tooltip(self, head, row, col):
        """What a head's cell is, for hovering."""
        r, tok, qtok = self.model.results, self.model.tokens, self.model.query_tokens
        if self.model.pending:
            return translate("Heatmap", "Recomputing…")
        if r is None or head >= r.n_heads or row >= len(qtok) or col >= len(tok):
            return ""
        if self.hidden():
            return translate("Heads", "head {head}: hidden until {stage} is revealed").format(
                head=head + 1, stage='②' if self.mode == 'weights' else '①')
        value = format_number((r.heads.weights if self.mode == "weights" else r.heads.scores)[head, row, col])
        text = (translate("Heads", "head {head}: weight[{q} → {k}] = {value}") if self.mode == "weights" else
                translate("Heads", "head {head}: score[{q} → {k}] = {value}")).format(
            head=head + 1, q=qtok[row], k=tok[col], value=value)
        if r.kv_heads < r.n_heads:
            text += "\n" + translate("Heads", "reads K/V head {kv} of {kv_heads}, with query heads {heads}").format(
                kv=r.kv_head(head) + 1, kv_heads=r.kv_heads,
                heads=", ".join(str(h + 1) for h in r.query_heads(r.kv_head(head))))
        allowed = r.allowed(head)
        if allowed is not None and not allowed[row, col]:
            text += "\n" + translate("Heads", "masked (the key is in the future)")
        return text + "\n" + translate("Heads", "click to show this head in the Scores, Weights and Output panels")

    # ----- model → widgets ----------------------------------------------------------------------
    def render(self, flags):
        r = self.model.results
        if r is None:
            return
        s, tokens, queries = self.model.settings, self.model.tokens, self.model.query_tokens
        self._sync_combo()
        n_heads = r.n_heads
        shown = min(n_heads, MAX_SHOWN)
        if self._built == (shown, self.mode) and not flags & ~SELECTION:
            self._show_selection()  # a new row or head: outlines only, the images stay
            return
        if self._built != (shown, self.mode):
            self._build(shown)

        hidden = self.hidden()
        heads = r.heads
        values = heads.weights if self.mode == "weights" else heads.scores
        ranges = [r.score_range(h) for h in range(shown)]
        levels = (0.0, 1.0) if self.mode == "weights" else nice_symmetric_levels(
            extent=(min(lo for lo, _ in ranges), max(hi for _, hi in ranges)))
        allowed = r.allowed()
        masks = None if allowed is None else ~allowed
        cols = self.grid_columns(shown)
        self._tight = self._labels_tight(tokens, cols) or self._labels_tight(queries, cols)
        blank, blank_q = [""] * len(tokens), [""] * len(queries)
        scale = scale_text(s, r.d_head)
        for cell in self.cells:
            h = cell.head
            first_col, top_row = h % cols == 0, h < cols
            cell.heatmap.set_matrix(values[h], row_labels=queries if first_col or not self._tight else blank_q,
                                    col_labels=tokens if top_row or not self._tight else blank, levels=levels,
                                    masked=None if masks is None else masks[h], flagged_rows=heads.masked_rows,
                                    overview=r.overview(self.mode, h, make=False))  # the shown head's
            cell.heatmap.set_hidden(hidden)
            cell.heatmap.colorbar.setVisible(False)  # set_hidden shows it again
            swatch = f"<span style='color:{head_colour(h).name()}'>■</span> "
            parts = [translate("Heads", "head {head}").format(head=h + 1), f"d_h = {r.d_head}",
                     translate("Heads", "scale {scale}").format(scale=scale)]
            if r.kv_heads < r.n_heads:  # the K/V head it shares with its group
                swatch = f"<span style='color:{head_colour(r.kv_head(h)).name()}'>■</span> "
                parts.insert(1, f"K/V {r.kv_head(h) + 1}")
            cell.set_title([(swatch + f"<b>{parts[0]}</b>" + "".join(f" · {escape(t)}" for t in parts[1:k]),
                             "■ " + " · ".join(parts[:k])) for k in (3, 2, 1)])
        self.colorbar.setLevels(levels)
        self.colorbar_view.setVisible(not hidden)

        self.render_heading()
        self._show_selection()

    def render_heading(self):
        """The caption and the heads combo, from the state: they follow a new number of heads at once,
        before its results."""
        self._sync_combo()
        m = self.model
        s, D = m.settings, m.widths()[0]
        n_heads, kv, d_head = s.heads, m.state.kv_heads, head_width(m)
        what = (translate("Heads", "weights A_h = softmax(S_h)") if self.mode == "weights"
                else translate("Heads", "scores S_h = Q_h K_hᵀ · scale"))
        scale = scale_text(s, d_head)
        shared = ""
        if kv < n_heads:
            shared = translate("Heads", " They share {kv_heads} ({name}): heads of one colour read the same K and V, "
                                        "{each} query heads to each, in Hugging Face's repeat_kv order.").format(
                kv_heads=count(kv, 'K/V head'), n_kv_heads=kv, name=in_language(sharing_name(n_heads, kv)), each=n_heads // kv)
        gqa = translate("Heads", ", {kv_heads}").format(kv_heads=count(kv, 'K/V head'), n_kv_heads=kv) if kv < n_heads else ""
        self.caption.set_summary(translate("Heads", "<b>Heads</b>: H = {heads} × d_h = {d_head}, scale {scale}{gqa}")
                                 .format(heads=n_heads, d_head=d_head, scale=escape(scale), gqa=gqa))
        self.caption.set_text(translate(
            "Heads", "<b>Heads</b>: D = {D} cut into H = {heads} slices of d_h = {d_head}; each head attends on its "
                     "own with scale {scale}.{shared} Shown: each head's {what} (rows: query, columns: key). Click a "
                     "head to show it in the other panels.").format(
            D=D, heads=n_heads, d_head=d_head, scale=escape(scale), shared=shared, what=what))

    def _show_selection(self):
        """Outline the selected head and row; the note below the grid."""
        r, s, tokens = self.model.results, self.model.settings, self.model.query_tokens
        n_heads, shown = r.n_heads, len(self.cells)
        for cell in self.cells:
            cell.heatmap.set_selected_row(s.selected_row)
            cell.set_selected(cell.head == s.selected_head and n_heads > 1)
        notes = []
        if self.hidden():
            stage = "②" if self.mode == "weights" else "①"
            notes.append(translate("Heads", "<b>{stage} hidden</b> — each head's {mode} appear once {stage} is "
                                            "revealed").format(stage=stage, mode=translate("Heads", self.mode)))
        if n_heads > shown:
            extra = "" if s.selected_head < shown else translate(
                "Heads", " (the selected head {head} is not among them)").format(head=s.selected_head + 1)
            notes.append(translate("Heads", "showing {shown} of {heads}{extra}").format(
                shown=shown, heads=count(n_heads, 'head'), n_heads=n_heads, extra=extra))
        if r.heads.masked_rows.any():
            rows = ", ".join(t for t, m in zip(tokens, r.heads.masked_rows) if m)
            notes.append(f"<span style='color:{BAD}'>⚠ " + translate("Heads", "fully masked: {rows}").format(
                rows=escape(rows)) + "</span>")
        self.note.setText(" · ".join(notes))
        self.note.setVisible(bool(notes))

    def _sync_combo(self):
        options = self.model.head_options()
        d = self.model.widths()[0]
        with QSignalBlocker(self.heads_combo):
            if [self.heads_combo.itemData(i) for i in range(self.heads_combo.count())] != options:
                self.heads_combo.clear()
                for h in options:
                    self.heads_combo.addItem(f"{h}  (d_h = {d // h})", h)
            self.heads_combo.setCurrentIndex(self.heads_combo.findData(self.model.settings.heads))

    @staticmethod
    def grid_columns(shown):
        return max(1, math.ceil(math.sqrt(shown)))

    def _build(self, shown):
        """New cells when the number of shown heads or the mode changes; otherwise they are reused."""
        for cell in self.cells:
            self.grid.removeWidget(cell)
            cell.setParent(None)
            cell.deleteLater()
        self.cells = []
        cols = self.grid_columns(shown)
        rows = math.ceil(shown / cols)
        clicked, tooltip, model = weakly(self._cell_clicked), weakly(self.tooltip, ""), self.model  # (no cycle)
        for h in range(shown):
            cell = HeadCell(h, self.mode, self.grid_widget)
            cell.clicked.connect(self._cell_clicked)
            cell.heatmap.cellClicked.connect(partial(clicked, h))
            cell.heatmap.tooltip_provider = partial(tooltip, h)
            cell.heatmap.image_valid = lambda: not model.pending
            cell.setMinimumSize(MIN_CELL_W, MIN_CELL_H)
            self.grid.addWidget(cell, h // cols, h % cols)
            self.cells.append(cell)
        for c in range(self.grid.columnCount()):
            self.grid.setColumnStretch(c, 1 if c < cols else 0)
        for r in range(self.grid.rowCount()):
            self.grid.setRowStretch(r, 1 if r < rows else 0)
        if self.colorbar is not None:
            self.colorbar_view.removeItem(self.colorbar)
        self.colorbar = self._bars[self.mode]
        self.colorbar_view.addItem(self.colorbar, row=0, col=0)
        self._built = (shown, self.mode)

    def _labels_tight(self, tokens, cols):
        """Token labels only on the grid's outer row and column when they would crowd the small heads."""
        if cols == 1:
            return False
        fm = QFontMetricsF(self.font())
        label_w = max(fm.horizontalAdvance(t) for t in tokens) + 12
        cell_w = max(self.scroll.viewport().width(), cols * MIN_CELL_W) / cols
        return label_w > TIGHT_LABEL_SHARE * cell_w or len(tokens) > 12

    def resizeEvent(self, event):
        super().resizeEvent(event)
        r = self.model.results
        if r is not None and self.cells and self._labels_tight(self.model.tokens,
                                                               self.grid_columns(len(self.cells))) != self._tight:
            self._stale |= ALL
            if self.isVisible():
                self._render_stale()
