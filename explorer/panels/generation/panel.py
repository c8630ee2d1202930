"""Generation · KV cache (F15): decode the session token by token — prefill, then one token a step —
with the K and V rows of earlier tokens kept in a cache. The new queries' 1 × t rows over the full
causal heatmap, the cache growing, the equivalence with full causal attention, and the cost."""
import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, QTimer
from PySide6.QtWidgets import QComboBox, QGridLayout, QHBoxLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout

from explorer.core.errors import ExplorerError
from explorer.core.heads import sharing_name
from explorer.core.plural import count
from explorer.model import DECODE, SELECTION
from explorer.model.background import COMPUTING, FAILED, READY
from explorer.model.decode_view import DecodeView
from explorer.weak import weakly
from explorer.widgets.heatmap import Heatmap
from explorer.widgets.details import Details
from explorer.widgets.labelled_slider import LabelledSlider
from explorer.widgets.html_escape import escape
from explorer.widgets.number_text import format_number
from explorer.widgets.palette import BAD, MUTED
from explorer.widgets.wrap_row import WrapRow
from explorer.i18n import in_language, shown_error, translate

from ..base import Panel
from ..heatmap_panel import nice_symmetric_levels
from .costs import CostView
from .texts import CAUSAL_OFF, CAUSAL_OFF_SUMMARY, EQUAL, NOT_EQUAL, SDPA_TRAP, SDPA_TRAP_SUMMARY

TILE_MIN_W, TILE_MIN_H = 200, 180  # a heatmap below this is not read any more: the dock scrolls instead
TILE_WIDE = 260  # the four heatmaps go in one row from this width each
SLIDER_MIN_W = 100  # px: t's slider keeps room to be dragged; a narrower row puts it on a line of its own
SPEEDS = ((QT_TRANSLATE_NOOP("Generation", "1 token/s"), 1000), (QT_TRANSLATE_NOOP("Generation", "2 tokens/s"), 500),
          (QT_TRANSLATE_NOOP("Generation", "5 tokens/s"), 200), (QT_TRANSLATE_NOOP("Generation", "10 tokens/s"), 100))


class GenerationPanel(Panel):
    """The decode stepper: t tokens in the cache (the session's ``decode_t``; 0 = all), P prefilled."""

    snug = True  # in a low dock the heatmaps keep a readable size and the dock scrolls

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        go, t = weakly(self.go), weakly(self.t, 0)  # (the buttons are the panel's: no cycle)
        self.back = QPushButton(self)
        self.keep_text(self.back.setText, "Generation", "◀ Back")
        self.keep_text(self.back.setToolTip, "Generation", "One step back: the cache loses the newest token")
        self.back.clicked.connect(lambda: go(t() - 1))
        self.forward = QPushButton(self)
        self.keep_text(self.forward.setText, "Generation", "Step ▶")
        self.keep_text(self.forward.setToolTip, "Generation",
                       "Decode the next token: its k and v join the cache, its query attends to all of it")
        self.forward.clicked.connect(lambda: go(t() + 1))
        self.play = QPushButton(translate("Generation", "Play"), self)
        self.play.setCheckable(True)
        self.keep_text(self.play.setToolTip, "Generation", "Decode one token after another from the start, at the chosen speed")
        self.play.toggled.connect(self._play_toggled)
        self.speed = QComboBox(self)
        self.speed.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)  # as wide as 每秒 10 个词元 too
        for i, (text, ms) in enumerate(SPEEDS):
            self.speed.addItem(text, ms)
            self.keep_text(lambda said, i=i, box=self.speed: box.setItemText(i, said), "Generation", text)
        self.speed.setCurrentIndex(1)
        self.keep_text(self.speed.setToolTip, "Generation", "How fast Play decodes")
        self.slider = LabelledSlider("t", 1, 2, integer=True, parent=self)
        self.keep_text(self.slider.setToolTip, "Generation", "Tokens in the K/V cache")
        self.slider.slider.setMinimumWidth(SLIDER_MIN_W)
        self.slider.valueChanged.connect(lambda v: go(int(v)))
        self.slider.sliderPressed.connect(model.begin_gesture)
        self.slider.sliderReleased.connect(model.end_gesture)
        self.prefill = QSpinBox(self)
        self.keep_text(self.prefill.setPrefix, "Generation", "prefill ")
        self.keep_text(self.prefill.setToolTip, "Generation",
                       "Tokens the prompt puts in the cache in one step (the first, slow step)")
        self.prefill.valueChanged.connect(lambda v: model.set_param("decode_prefill", int(v)))
        self.causal_note = Details(CAUSAL_OFF_SUMMARY, CAUSAL_OFF, self)
        self.keep_text(self.causal_note.set_summary, "Generation", CAUSAL_OFF_SUMMARY)
        self.keep_text(self.causal_note.set_text, "Generation", CAUSAL_OFF)
        self.causal_on = QPushButton(self)
        self.keep_text(self.causal_on.setText, "Generation", "Turn the causal mask on")
        self.keep_text(self.causal_on.setToolTip, "Generation", "So the main heatmaps show what the decode computes")
        self.causal_on.clicked.connect(lambda checked=False: model.set_param("causal", True))
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._tick)

        self.weights = Heatmap(cmap="sequential", row_title="query", col_title="key", colorbar_label="weight",
                               masked_text="", parent=self)
        self.k_cache = Heatmap(cmap="diverging", row_title="K cache", col_title="dimension", parent=self)
        self.v_cache = Heatmap(cmap="diverging", row_title="V cache", col_title="dimension", parent=self)
        self.output = Heatmap(cmap="diverging", row_title="new output", col_title="dimension", parent=self)
        self.equivalence = QLabel(self)
        self.equivalence.setWordWrap(True)
        self.costs = CostView(self)
        self.trap = Details(SDPA_TRAP_SUMMARY, SDPA_TRAP, self)
        self.keep_text(self.trap.set_summary, "Generation", SDPA_TRAP_SUMMARY)
        self.keep_text(self.trap.set_text, "Generation", SDPA_TRAP)
        for view, row in ((self.k_cache, QT_TRANSLATE_NOOP("Generation", "K cache")),
                          (self.v_cache, QT_TRANSLATE_NOOP("Generation", "V cache")),
                          (self.output, QT_TRANSLATE_NOOP("Generation", "new output"))):
            self.keep_text(lambda text, view=view: view.set_titles(text, translate("Generation", "dimension")),
                           "Generation", row)
        axis = self.weights.colorbar.axis
        self.keep_text(lambda text, axis=axis: axis.setLabel(text, **axis.labelStyle), "Generation", "weight")

        self.bar = WrapRow([[self.back, self.forward, self.play, self.speed], [self.slider, self.prefill]], self,
                           stretch={self.slider: 1})
        causal_row = QHBoxLayout()
        causal_row.addWidget(self.causal_note, 1)
        causal_row.addWidget(self.causal_on, 0, Qt.AlignmentFlag.AlignTop)
        self.tiles = QGridLayout()
        self._columns = 0
        for w in self.heatmaps():  # (no minimum width: the width decides the columns, resizeEvent)
            w.setMinimumHeight(TILE_MIN_H)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.caption)
        layout.addWidget(self.bar)
        layout.addLayout(causal_row)
        layout.addLayout(self.tiles, 3)
        layout.addWidget(self.equivalence)
        layout.addWidget(self.costs, 2)
        layout.addWidget(self.trap)
        self._arrange(2)
        self._caption = ""  # the caption of the step shown, before what the check says
        self._grey = None  # ((rows, cols, cross), stop, mask): the greyed cells of the full heatmap, kept between steps
        self._asking = False  # True while ``render`` asks for the check (it draws the answer itself)
        self.view = DecodeView(model, self)
        self.view.check.changed.connect(self._arrived)

    def heatmaps(self):
        """The new rows over the causal weights, the K and V caches and the new output, in reading order."""
        return self.weights, self.k_cache, self.v_cache, self.output

    def _arrange(self, columns):
        """The four heatmaps in one row, two by two, or one under another, as the width allows."""
        if columns == self._columns:
            return
        self._columns = columns
        for w in self.heatmaps():
            self.tiles.removeWidget(w)
        for i, w in enumerate(self.heatmaps()):
            self.tiles.addWidget(w, i // columns, i % columns)
        for r in range(4):
            self.tiles.setRowStretch(r, 1 if r < 4 // columns else 0)
        for c in range(4):
            self.tiles.setColumnStretch(c, 1 if c < columns else 0)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        room = self.width() - 8
        self._arrange(4 if room >= 4 * TILE_WIDE else 2 if room >= 2 * TILE_MIN_W else 1)

    # ----- the step --------------------------------------------------------------------------------
    def t(self):
        """Tokens in the cache at the step shown: the session's ``decode_t`` (0 or more than L: all)."""
        n = len(self.model.query_tokens)
        t = self.model.settings.decode_t
        return n if t == 0 or t > n else t

    def go(self, t):
        """Show the cache at ``t`` tokens (an undoable setting; t = L is stored as 0, "all")."""
        n = len(self.model.query_tokens)
        t = int(np.clip(t, self.view.prefill(), n))
        self.model.set_param("decode_t", 0 if t == n else t)

    def language_changed(self):
        self.play.setText(translate("Generation", "Pause") if self.play.isChecked() else translate("Generation", "Play"))
        super().language_changed()

    def _play_toggled(self, on):
        self.play.setText(translate("Generation", "Pause") if on else translate("Generation", "Play"))
        (self.model.begin_gesture if on else self.model.end_gesture)()  # one Play run is one undo step
        if on:
            if self.t() >= len(self.model.query_tokens):
                self.go(self.view.prefill())
            self.timer.start(self.speed.currentData())
        else:
            self.timer.stop()

    def _tick(self):
        if self.t() >= len(self.model.query_tokens):
            self.play.setChecked(False)
        else:
            self.go(self.t() + 1)

    # ----- drawing ---------------------------------------------------------------------------------
    def render(self, flags):
        m = self.model
        n, s = len(m.query_tokens), m.settings
        try:
            decoder = self.view.decoder()
            step = decoder.step_at(max(self.t(), self.view.prefill()))
        except ExplorerError as exc:
            self.caption.setText(translate("Generation", "<b>Generation</b>: cannot decode this session — {why}").format(
                why=shown_error(exc)))
            return
        self.slider.blockSignals(True)
        self.slider.setRange(self.view.prefill(), max(n, self.view.prefill() + 1) if n > 1 else 2)
        self.slider.setValue(step.stop)
        self.slider.setEnabled(n > 1)
        self.slider.blockSignals(False)
        self.prefill.blockSignals(True)
        self.prefill.setRange(1, n)
        self.prefill.setValue(self.view.prefill())
        self.prefill.blockSignals(False)
        self.back.setEnabled(step.stop > self.view.prefill())
        self.forward.setEnabled(step.stop < n)
        kind = (translate("Generation", "prefill") if step.index == 0
                else translate("Generation", "decode step {step}").format(step=step.index))
        fresh = step.stop - step.start
        new = (translate("Generation", "{n} new query attends") if fresh == 1
               else translate("Generation", "{n} new queries attend")).format(n=fresh)
        if m.cross:
            read = translate("Generation", "to all {rows} of the source, computed once and fixed (a decoder's own "
                                           "self-attention cache is the one that grows)").format(
                rows=count(len(step.k_cache), 'k and v row'), n_rows=len(step.k_cache))
        else:
            read = translate("Generation", "to the {n} cached k and v rows; earlier rows are not computed again"
                             ).format(n=step.stop)
        grouped = ""
        if decoder.inputs.n_kv < decoder.inputs.n_heads:
            grouped = translate("Generation", " The cache holds {kv_heads} for {query_heads} ({name}).").format(
                kv_heads=count(decoder.inputs.n_kv, 'K/V head'), query_heads=count(decoder.inputs.n_heads, 'query head'),
                n_kv_heads=decoder.inputs.n_kv, n_query_heads=decoder.inputs.n_heads,
                name=in_language(sharing_name(decoder.inputs.n_heads, decoder.inputs.n_kv)))
        self._caption = translate("Generation", "<b>Generation · KV cache</b> — t = {t} of {n} ({kind}): {new} "
                                                "{read}.{grouped}").format(
            t=step.stop, n=n, kind=kind, new=new, read=read, grouped=grouped)
        self.trap.setVisible(not m.cross)  # a decode step's mask: self-attention only
        self.causal_note.setVisible(not s.causal and not m.cross)
        self.causal_on.setVisible(not s.causal and not m.cross)
        self._asking = True
        try:
            self.view.ask_check()  # small: at once; large: on the worker (``_arrived``)
        finally:
            self._asking = False
        self._draw_step(step)
        self._draw_check()
        if flags & ~(DECODE | SELECTION) or self.costs.steps is None:
            curves, steps, shape = self.view.costs()
            self.costs.set_curves(curves, steps, shape, n)
        self.costs.mark(step.stop)

    def _arrived(self):
        """The check's state or result changed: the heatmap and the equivalence drawn again (now if in view)."""
        if not self._asking:
            self._on_changed(DECODE)

    def _draw_step(self, step):
        """The new rows over the full causal heatmap (later rows and future keys greyed), the caches
        with their new rows outlined, and the new output rows."""
        m = self.model
        h, queries, keys = m.settings.selected_head, m.query_tokens, m.tokens
        n, t = len(queries), len(step.k_cache)
        causal, _ = self.view.causal_weights()
        self.weights.set_titles(translate("Generation", "query (head {head})").format(head=h + 1) if m.settings.heads > 1
                                else translate("Generation", "query"), translate("Generation", "key"))
        if causal is not None:  # its rows equal the decode's (checked below): no copy at L = 4096
            self.weights.set_matrix(causal[h], row_labels=queries, col_labels=keys, levels=(0.0, 1.0),
                                    masked=self._greyed(n, len(keys), step.stop, m.cross), finite=True)
            self.weights.set_selected_row(step.stop - 1)
        else:  # not computed (yet, or too large for the memory free): the new rows alone
            self.weights.set_matrix(step.weights[h], row_labels=queries[step.start:step.stop],
                                    col_labels=keys[:t], levels=(0.0, 1.0),
                                    masked=self._greyed(step.stop, t, step.stop, m.cross, keep=False)[step.start:],
                                    finite=True)
            self.weights.set_selected_row(None)
        for view, cache in ((self.k_cache, step.k_cache), (self.v_cache, step.v_cache)):
            view.set_matrix(cache, row_labels=keys[:t], col_labels=[f"d{j}" for j in range(cache.shape[1])],
                            levels=nice_symmetric_levels(cache), finite=True)
            view.set_selected_row(None if m.cross else step.stop - 1)  # a fixed source cache has no new row
        out_cols = [f"d{j}" for j in range(step.output.shape[1])]
        self.output.set_matrix(step.output, row_labels=queries[step.start:step.stop], col_labels=out_cols,
                               levels=nice_symmetric_levels(step.output), finite=True)

    def _greyed(self, rows, cols, stop, cross, keep=True):
        """(rows, cols): the keys after each query (none in cross-attention), and every row not decoded yet. Kept
        between steps (``keep``) and changed only in the rows a step moves: at L = 8192 the whole is 64 M cells."""
        shape = (rows, cols, cross)
        if keep and self._grey is not None and self._grey[0] == shape:
            _, before, masked = self._grey
            for i in range(min(before, stop), max(before, stop)):
                masked[i] = True if i >= stop else (False if cross else np.arange(cols) > i)
        else:
            if cross:
                masked = np.zeros((rows, cols), dtype=bool)
            else:
                masked = np.arange(cols)[None, :] > np.arange(rows)[:, None]  # key j after query i
            masked[stop:] = True
        if keep:
            self._grey = (shape, stop, masked)
        return masked

    def _draw_check(self):
        """Stacked decode rows against full causal attention: the largest difference, or "computing…"."""
        check = self.view.check
        computing = check.state == COMPUTING  # said in the caption too: the equivalence may be scrolled out of view
        self.caption.setText(self._caption + (f" <span style='color:{MUTED}'>" + translate(
            "Generation", "<b>computing…</b> full causal attention") + "</span>"
            if computing and not self.view.own_causal() else ""))
        if check.state == FAILED:
            self.equivalence.setText(f"<span style='color:{BAD}'>{escape(in_language(check.reason))}</span>")
        elif check.state == COMPUTING:
            _, older = self.view.causal_weights()
            what = (translate("Generation", "cross-attention") if self.model.cross
                    else translate("Generation", "full causal attention"))
            before = translate("Generation", " — the heatmap is from before the last change") if older else ""
            self.equivalence.setText(f"<span style='color:{MUTED}'>" + translate(
                "Generation", "<b>computing…</b> the check against {what} of {n} tokens").format(
                what=what, n=len(self.model.query_tokens)) + f"{before}</span>")
        elif check.state == READY:
            diff = check.result.difference
            text = translate("Generation", EQUAL if diff <= 1e-12 else NOT_EQUAL)
            what = (translate("Generation", "cross-attention") if self.model.cross
                    else translate("Generation", "causal attention"))
            self.equivalence.setText(text.format(diff=format_number(diff) if diff else "0", what=what))
        else:
            self.equivalence.setText("")
