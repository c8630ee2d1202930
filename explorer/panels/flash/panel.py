"""F23 FlashAttention's online softmax, stepped: the shown head's S made tile by tile for one query block, with
the running max m, the running sum ℓ, the rescaling e^(m_old − m_new) and the output so far at every step,
and at the end O equal to the session's ③. The numbers come from ``explorer.core.online_softmax``."""
import math

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QKeySequence, QPalette
from PySide6.QtWidgets import (QAbstractItemView, QAbstractScrollArea, QBoxLayout, QComboBox, QHBoxLayout, QLabel,
                               QPushButton, QSlider, QSpinBox, QTableWidget, QTableWidgetItem, QVBoxLayout)

from explorer.core.flash_accounting import SRAM_SIZES, HbmModel, sram_numbers, sram_size, working_set
from explorer.core.online_softmax import (block_steps, default_tile, flash_attention, head_problem,
                                          largest_difference, smallest_tile, spans)
from explorer.weak import weakly
from explorer.widgets.heatmap import Heatmap
from explorer.widgets.rich_label import RichLabel
from explorer.widgets.tile_overlay import TileOverlay
from explorer.widgets.wrap_row import WrapRow
from explorer.i18n import translate

from ..base import Panel
from ..heatmap_panel import nice_symmetric_levels
from . import texts

MAX_BLOCK_ROWS = 64  # the stepper follows at most this many query rows (its table and tiles stay readable)
PLAY_MS = 900  # between two steps while playing
NARROW = 480  # px: below this width S stands over the table, and Õ over O
TABLE_SHARE = 0.42  # of the width, at most, for the table beside S
MAP_MIN_H = 170  # px: a heatmap keeps its rows and colour bar readable; a low dock scrolls


class FlashAttentionPanel(Panel):
    """F23: steps through Algorithm 1 for one query block of the shown head; checks the end against ③."""

    snug = True  # the dock shows it whole down to its heatmaps' minimum, then scrolls

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.problem = None  # the shown head's FlashProblem (from the results)
        self.run = None  # BlockSteps of the chosen block
        self.whole = None  # FlashResult of every block
        self._strip = None
        self._key = None  # what self.run was made from: recomputed only when it changes
        self._shape = None  # (L_q, L_k) the tile sizes were chosen for
        self._seen_row = None  # the selected row the block last followed
        self.heading = RichLabel("", self)
        self.keep_text(self.heading.setText, "Flash", texts.HEADING)

        self.b_r = self._spin("B_r = ", QT_TRANSLATE_NOOP("Flash", "Rows per query block: how many queries share one "
                                                                   "pass over the keys"))
        self.b_c = self._spin("B_c = ", QT_TRANSLATE_NOOP("Flash", "Keys per tile: how many columns of S are made at "
                                                                   "once (B_r = B_c = 1 is the online softmax of one "
                                                                   "row, Milakov & Gimelshein 2018)"))
        self.block = self._spin(QT_TRANSLATE_NOOP("Flash", "query block "), QT_TRANSLATE_NOOP(
            "Flash", "Which block of query rows the stepper follows (it follows the row you select in the other panels "
                     "too)"))
        self.previous = QPushButton(self)
        self.keep_text(self.previous.setText, "Flash", "◀ Previous")
        self.previous.setShortcut(QKeySequence("Alt+Left"))
        self.keep_text(self.previous.setToolTip, "Flash", "The step before (Alt+←)")
        self.next = QPushButton(self)
        self.keep_text(self.next.setText, "Flash", "Next ▶")
        self.next.setShortcut(QKeySequence("Alt+Right"))
        self.keep_text(self.next.setToolTip, "Flash", "The next tile (Alt+→)")
        self.play = QPushButton(translate("Flash", "▶ Play"), self)
        self.keep_text(self.play.setToolTip, "Flash", "Step through the tiles one after another (Alt+P to start or stop)")
        self.play.setShortcut(QKeySequence("Alt+P"))
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setMinimum(1)
        self.keep_text(self.slider.setToolTip, "Flash", "Which step: the tiles computed so far (← → once it has the focus)")
        self.slider.setMinimumWidth(80)
        self.step_label = QLabel(self)
        slider, show_step = self.slider, weakly(self._show_step)  # (the controls are the panel's: no cycle)
        self.previous.clicked.connect(lambda: slider.setValue(slider.value() - 1))
        self.next.clicked.connect(lambda: slider.setValue(slider.value() + 1))
        self.play.clicked.connect(self._toggle_play)
        self.slider.valueChanged.connect(lambda _: show_step())
        self.timer = QTimer(self)
        self.timer.setInterval(PLAY_MS)
        self.timer.timeout.connect(self._tick)

        self.scores = Heatmap(cmap="diverging", row_title="query (this block)", col_title="key",
                              colorbar_label="score S", parent=self)
        self.scores.tooltip_provider = weakly(self._score_tip, "")
        bg = self.palette().color(QPalette.ColorRole.Base)
        self.overlay = TileOverlay(bg).attach(self.scores)
        self.table = QTableWidget(len(texts.TABLE_ROWS), 0, self)  # a row per quantity, a column per query
        for i, (title, tip) in enumerate(texts.TABLE_ROWS):
            item = QTableWidgetItem()
            self.table.setVerticalHeaderItem(i, item)
            self.keep_text(item.setText, "Flash", title)
            self.keep_text(item.setToolTip, "Flash", tip)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.keep_text(self.table.setToolTip, "Flash",
                       "Each query row's running max m and running sum ℓ, before and after this tile")
        self.o_tilde = Heatmap(cmap="diverging", row_title="query", col_title="dimension",
                               colorbar_label="Õ (unnormalised)", parent=self)
        self.o_norm = Heatmap(cmap="diverging", row_title="query", col_title="dimension",
                              colorbar_label="O = Õ / ℓ", parent=self)
        for view in (self.scores, self.o_tilde, self.o_norm):
            view.setMinimumHeight(MAP_MIN_H)
        self.keep_text(self.o_tilde.setToolTip, "Flash", "Õ = Σ e^(s − m)·v over the keys seen so far: rescaled by "
                       "e^(m_old − m_new) whenever the max rises, divided by ℓ only at the end (FlashAttention-2 keeps "
                       "this)")
        self.keep_text(self.o_norm.setToolTip, "Flash", "O = Õ / ℓ: Algorithm 1 keeps O divided by ℓ after every tile "
                       "— the softmax-weighted mean of the values seen so far")
        self.keep_text(lambda text, view=self.scores: view.set_titles(text, translate("Flash", "key")), "Flash",
                       "query (this block)")
        self.keep_text(lambda text, axis=self.scores.colorbar.axis: axis.setLabel(text, **axis.labelStyle), "Flash",
                       "score S")
        for view in (self.o_tilde, self.o_norm):
            self.keep_text(lambda text, view=view: view.set_titles(text, translate("Flash", "dimension")), "Flash",
                           "query")
        self.keep_text(lambda text, axis=self.o_tilde.colorbar.axis: axis.setLabel(text, **axis.labelStyle), "Flash",
                       "Õ (unnormalised)")
        self.step_text, self.block_text, self.check = RichLabel("", self), RichLabel("", self), RichLabel("", self)
        self.memory, self.hbm = RichLabel("", self), RichLabel("", self)
        self.sram = QComboBox(self)
        for i, (n_bytes, words) in enumerate(SRAM_SIZES):
            self.sram.addItem(words, n_bytes)
            self.keep_text(lambda text, i=i, box=self.sram: box.setItemText(i, text), "Flash", words)
        self.keep_text(self.sram.setToolTip, "Flash", "The SRAM size M assumed for the paper's count of HBM accesses: "
                       "the paper's “M around 100KB”, or one streaming multiprocessor's shared memory on an A100 or an "
                       "H100 (counted in numbers of 2 bytes, fp16)")
        show_accounting = weakly(self._show_accounting)
        self.sram.currentIndexChanged.connect(lambda _: show_accounting())
        self._lay_out()

    def _spin(self, prefix, tip):
        box = QSpinBox(self)
        self.keep_text(box.setPrefix, "Flash", prefix)
        self.keep_text(box.setToolTip, "Flash", tip)
        box.setKeyboardTracking(False)  # typing "12" does not stop at 1 on the way
        choose = weakly(self._choose)  # (the box is the panel's: no cycle)
        box.valueChanged.connect(lambda _: choose())
        return box

    def _lay_out(self):
        tiles = QHBoxLayout()
        for box in (self.b_r, self.b_c, self.block):
            tiles.addWidget(box)
        tiles.addStretch(1)
        stepper = WrapRow([[self.previous, self.next, self.play], [self.slider, self.step_label]], self,
                          stretch={self.slider: 1})
        self.maps = maps = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        maps.addWidget(self.scores, 3)
        maps.addWidget(self.table, 0)
        self.outputs = outputs = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        outputs.addWidget(self.o_tilde, 1)
        outputs.addWidget(self.o_norm, 1)
        sram = QHBoxLayout()
        sram.addWidget(self.kept_label("Flash", "SRAM M:"))
        sram.addWidget(self.sram)
        sram.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.heading)
        layout.addLayout(tiles)
        layout.addWidget(stepper)
        layout.addLayout(maps, 3)
        for label in (self.step_text, self.check):
            layout.addWidget(label)
        layout.addLayout(outputs, 2)
        for label in (self.block_text, self.memory):
            layout.addWidget(label)
        layout.addLayout(sram)
        layout.addWidget(self.hbm)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        side = QBoxLayout.Direction.LeftToRight if self.width() >= NARROW else QBoxLayout.Direction.TopToBottom
        for row in (self.maps, self.outputs):  # narrow: S over the table, Õ over O
            if row.direction() != side:
                row.setDirection(side)
        self._fit_table()

    def _fit_table(self):
        """Beside S the table takes what its numbers need, up to TABLE_SHARE of the width (then it scrolls
        sideways), so S keeps the larger part; under S it takes the whole width."""
        t = self.table
        need = t.verticalHeader().width() + t.horizontalHeader().length() + 2 * t.frameWidth() + 2
        beside = self.maps.direction() == QBoxLayout.Direction.LeftToRight
        t.setMaximumWidth(min(need, int(self.width() * TABLE_SHARE)) if beside else 16777215)

    # ----- from the model ----------------------------------------------------------------------
    def render(self, flags):
        r, s = self.model.results, self.model.settings
        self.problem = head_problem(r, s.selected_head)
        lq, lk = self.problem.n_queries, self.problem.n_keys
        with QSignalBlocker(self.b_r), QSignalBlocker(self.b_c), QSignalBlocker(self.block):
            if self._shape != (lq, lk):  # a new length: the default tiles for it
                self._shape = (lq, lk)
                self.b_r.setRange(smallest_tile(lq), min(lq, max(MAX_BLOCK_ROWS, smallest_tile(lq))))
                self.b_c.setRange(smallest_tile(lk), lk)
                self.b_r.setValue(min(default_tile(lq), self.b_r.maximum()))
                self.b_c.setValue(default_tile(lk))
            if s.selected_row != self._seen_row:  # the block follows the row selected elsewhere
                self._seen_row = s.selected_row
                self.block.setValue(s.selected_row // self.b_r.value() + 1)
        if not self._choose():
            self._show_step()  # the same steps: the lesson's reveal (or nothing) changed

    def _choose(self):
        """The tile sizes or the block changed (or the results): run the block's steps again if they differ
        (True), else nothing (False)."""
        if self.problem is None:
            return
        b_r, b_c = self.b_r.value(), self.b_c.value()
        n_blocks = len(spans(self.problem.n_queries, b_r))
        with QSignalBlocker(self.block):
            self.block.setRange(1, n_blocks)
            self.block.setSuffix(translate("Flash", " of {blocks}").format(blocks=n_blocks))
        key = (self.model.revision, self.model.settings.selected_head, b_r, b_c, self.block.value())
        if key == self._key:
            return False
        same_steps = self._key is not None and self._key[2:] == key[2:]
        self._key = key
        self.run = block_steps(self.problem, b_r, b_c, self.block.value() - 1)
        self.whole = flash_attention(self.problem, b_r, b_c)
        self._strip = self.run.strip()
        n = len(self.run.steps)
        with QSignalBlocker(self.slider):
            self.slider.setMaximum(max(n, 1))
            self.slider.setValue(min(self.slider.value(), n) if same_steps else 1)  # an edit keeps the step
        self._show_step()
        self._show_accounting()
        return True

    # ----- one step ----------------------------------------------------------------------------
    def current_step(self):
        """The TileStep shown, or None before anything is drawn."""
        if self.run is None or not self.run.steps:
            return None
        return self.run.steps[min(self.slider.value(), len(self.run.steps)) - 1]

    def _show_step(self):
        step, run = self.current_step(), self.run
        if step is None:
            return
        n, k = len(run.steps), step.number
        self.step_label.setText(translate("Flash", "step {k} of {n}").format(k=k, n=n))
        self.previous.setEnabled(k > 1)
        self.next.setEnabled(k < n)
        if k >= n and self.timer.isActive():
            self._stop()
        qtok, tokens = self.model.query_tokens, self.model.tokens
        (r0, r1) = run.rows
        self.step_text.setText(texts.step_text(step, n, run.n_tiles, qtok, tokens))
        self._draw_scores(step)
        self._fill_table(step, qtok[r0:r1])
        rows, cols = tuple(qtok[r0:r1]), tuple(f"d{j}" for j in range(step.o.shape[1]))
        o_extent = max(float(np.abs(s.o_unnormalised).max()) for s in run.steps)
        self.o_tilde.set_matrix(step.o_unnormalised, row_labels=rows, col_labels=cols,
                                levels=nice_symmetric_levels(extent=(-o_extent, o_extent)), finite=True)
        self.o_norm.set_matrix(step.o, row_labels=rows, col_labels=cols, levels=nice_symmetric_levels(run.output),
                               finite=True)
        self._show_check(k == n)
        self._hide_unrevealed()

    def _hide_unrevealed(self):
        """A lesson that has not revealed ① hides S and the maxima made from it; one before ③, the outputs."""
        shown = self.model.revealed
        self.scores.set_hidden(shown < 1)
        self.table.setVisible(shown >= 1)
        for view in (self.o_tilde, self.o_norm):
            view.set_hidden(shown < 3)
        if shown < 3:
            self.check.setText(translate("Flash", "O stays hidden until the lesson reveals ③."))

    def _draw_scores(self, step):
        run, strip = self.run, self._strip
        finite = strip[np.isfinite(strip)]
        extent = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
        qtok = self.model.query_tokens
        self.scores.set_matrix(strip, row_labels=tuple(qtok[run.rows[0]:run.rows[1]]), col_labels=self.model.tokens,
                               levels=nice_symmetric_levels(extent=extent), masked=~np.isfinite(strip))
        b_c, rows = self.b_c.value(), strip.shape[0]
        boxes = [(0, rows, c0, c1) for c0, c1 in spans(strip.shape[1], b_c)]
        done = [s.tile for s in run.steps[:step.number - 1]]
        ahead = [s.tile for s in run.steps[step.number:]]
        self.overlay.set_tiles(strip.shape, boxes, done=done, ahead=ahead, crossed=run.skipped, current=step.tile)

    def _fill_table(self, step, row_tokens):
        """A row per quantity (m old, m̃, m new, the rescaling, ℓ old, ℓ new), a column per query of the block."""
        t = self.table
        t.setUpdatesEnabled(False)
        t.setColumnCount(len(row_tokens))
        t.setHorizontalHeaderLabels([str(token) for token in row_tokens])
        quantities = (step.m_old, step.tile_max, step.m_new, step.rescale, step.l_old, step.l_new)
        for i, values in enumerate(quantities):
            for c, value in enumerate(values):
                item = t.item(i, c)
                if item is None:
                    item = QTableWidgetItem()
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                    t.setItem(i, c, item)
                item.setText(texts.num(float(value)))
                item.setData(Qt.ItemDataRole.UserRole, float(value))  # the number itself, for tests and tips
        t.resizeColumnsToContents()  # once, not after every cell
        t.resizeRowsToContents()
        self._fit_table()
        t.setUpdatesEnabled(True)
        rows = sum(t.rowHeight(i) for i in range(t.rowCount()))
        t.setMinimumHeight(t.horizontalHeader().sizeHint().height() + rows + 2 * t.frameWidth()
                           + t.horizontalScrollBar().sizeHint().height())

    def shown(self, quantity):
        """The numbers the table shows for ``quantity`` ("m old", "m new", "ℓ new", …), one per query row."""
        i = [title for title, _ in texts.TABLE_ROWS].index(quantity)
        return [self.table.item(i, c).data(Qt.ItemDataRole.UserRole) for c in range(self.table.columnCount())]

    def _head_words(self):
        m, head = self.model, self.model.settings.selected_head
        if m.settings.heads == 1 and not m.projected:
            return "③ O = softmax(S)·V"
        if m.projected:
            return translate("Flash", "③ of head {head} (softmax(S)·V, before the heads are joined and W_o)").format(
                head=head + 1)
        return translate("Flash", "③ of head {head} (softmax(S)·V, before the heads are joined)").format(head=head + 1)

    def language_changed(self):
        self.play.setText(translate("Flash", "❚❚ Pause" if self.timer.isActive() else "▶ Play"))
        self._show_accounting()  # (the steps are the same: ``render`` draws only the step again)
        super().language_changed()

    def _show_check(self, at_end):
        r, head = self.model.results, self.model.settings.selected_head
        want = r.heads.head_outputs[head]
        r0, r1 = self.run.rows
        self.block_difference = largest_difference(self.run.output, want[r0:r1])
        self.whole_difference = largest_difference(self.whole.output, want)
        self.check.setText(texts.check_text(at_end, self.block_difference, self.whole, self.whole_difference,
                                            len(self.run.steps), self._head_words()))

    def _show_accounting(self):
        """The block followed, what is held on chip, and the paper's count of HBM accesses."""
        if self.problem is None or self.whole is None:
            return
        self.block_text.setText(texts.block_text(self.run, self.block.maximum(), self.model.query_tokens,
                                                 self.whole.tiles_skipped))
        p = self.problem
        d, d_v = p.q.shape[1], p.v.shape[1]
        on_chip = working_set(self.b_r.value(), self.b_c.value(), d, d_v)
        self.memory.setText(texts.memory_text(self.whole, p.n_queries, p.n_keys, on_chip))
        n_bytes = self.sram.currentData()
        h = HbmModel(p.n_queries, p.n_keys, d, sram_numbers(n_bytes))
        self.hbm.setText(texts.hbm_text(h, sram_size(n_bytes)))

    def _score_tip(self, row, col):
        run = self.run
        if run is None or self.model.revealed < 1:
            return ""
        q, k = self.model.query_tokens[run.rows[0] + row], self.model.tokens[col]
        j = col // self.b_c.value()
        if j in run.skipped:
            return f"S[{q}, {k}]: " + translate("Flash", "key tile {tile} lies wholly above the diagonal — skipped, never "
                                                         "computed").format(tile=j + 1)
        value = self._strip[row, col]
        number = next(s.number for s in run.steps if s.tile == j)
        what = translate("Flash", "masked (causal)") if value == -math.inf else texts.num(value)
        return f"S[{q}, {k}] = {what}\n" + translate("Flash", "key tile {tile}, computed at step {number}").format(
            tile=j + 1, number=number)

    # ----- playing -----------------------------------------------------------------------------
    def _toggle_play(self):
        if self.timer.isActive():
            self._stop()
            return
        if self.run is None or not self.run.steps:
            return
        if self.slider.value() >= len(self.run.steps):
            self.slider.setValue(1)  # from the start again
        self.timer.start()
        self.play.setText(translate("Flash", "❚❚ Pause"))

    def _tick(self):
        if self.slider.value() >= self.slider.maximum():
            self._stop()
        else:
            self.slider.setValue(self.slider.value() + 1)

    def _stop(self):
        self.timer.stop()
        self.play.setText(translate("Flash", "▶ Play"))

    def set_on_screen(self, on):
        if not on:
            self._stop()  # nothing runs behind another tab
        super().set_on_screen(on)

    def hideEvent(self, event):
        self._stop()
        super().hideEvent(event)
