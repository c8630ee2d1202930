"""Model view (F19): a real model's every layer and head on typed text, as a grid of attention
thumbnails (BertViz's model view); click a head and it becomes the session — its real numbers in
the editor and heatmaps, every one editable — and below, what the model says next with the head as
edited (F25). A tiny model that ships with the app opens first. Layers and heads count from 1 here,
as the rest of the window counts heads."""
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QPointF, QTimer
from PySide6.QtWidgets import (QApplication, QBoxLayout, QComboBox, QFileDialog, QHBoxLayout, QLabel, QLineEdit,
                               QPushButton, QScrollArea, QSpinBox, QToolTip, QVBoxLayout)

from explorer.core.errors import ExplorerError
from explorer.core.head_patterns import strongest_pattern
from explorer.core.plural import count
from explorer.model.flow_back import LOST, NONE, WAITING
from explorer.weak import weakly
from explorer.widgets.fitting_text import shrinkable
from explorer.widgets.head_grid import HeadGrid
from explorer.widgets.heatmap import Heatmap
from explorer.widgets.html_escape import escape
from explorer.widgets.number_text import format_bytes
from explorer.i18n import in_language, shown_error, translate

from ..base import Panel
from .next_tokens import NextTokensView

DEFAULT_TEXT = "the cat sat on the mat and the dog ran to the door the cat sat on the mat and the dog ran"
TYPING_PAUSE_MS = 300  # a run starts this long after the last keystroke (a newer one overtakes it)
EMBEDDED = "embedded"
BADGES = {"previous-token": "prev", "induction": "ind"}
SIDE_CELL = 44  # px: the heads' thumbnails beside the next-token table at least this big, else it goes below them
LEGEND = QT_TRANSLATE_NOOP("ModelView", "Squares: each head's weights on the text. <b>prev</b>: a previous-token head, <b>ind</b>: an induction "
          "head")
LEGEND_TIP = QT_TRANSLATE_NOOP("ModelView", "Each square is one head's attention weights on the text (rows: query, columns: key). prev marks a "
              "previous-token head, ind an induction head (found on repeated random tokens: the weight on the token "
              "after the previous occurrence). Hover a head to read what it mostly does on this text.")


def least_width(widget):
    """The width a layout leaves ``widget`` at the least: its minimum width when set, else its minimum hint."""
    return max(widget.minimumWidth(), widget.minimumSizeHint().width())


class ModelViewPanel(Panel):
    """Choose a model, type text, see every head; click one to make it the session."""

    reads_results = False
    snug = True  # the grid and the generated rows share a low dock before it scrolls

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.ck = model.checkpoints
        self.choice = QComboBox(self)
        self.keep_text(self.choice.setToolTip, "ModelView", "The tiny model that ships with the explorer, the models "
                       "in your Hugging Face cache (nothing is downloaded), or any folder with config.json, "
                       "*.safetensors and tokenizer.json")
        self.choice.activated.connect(self._chosen)
        shrinkable(self.choice, 24)  # a narrow dock shows what fits of a long model's name
        self.text = QLineEdit(DEFAULT_TEXT, self)
        self.keep_text(self.text.setToolTip, "ModelView", "Text to run through the model; every head's attention follows as you type")
        self.text.returnPressed.connect(self.run)
        self._typing = QTimer(self)
        typing = self._typing  # (the line's signal holds no reference back to the panel)
        self.text.textEdited.connect(lambda _: typing.start())
        self._typing.setSingleShot(True)
        self._typing.setInterval(TYPING_PAUSE_MS)
        self._typing.timeout.connect(self.run)
        self.cancel_button = QPushButton(self)
        self.keep_text(self.cancel_button.setText, "ModelView", "Cancel")
        self.keep_text(self.cancel_button.setToolTip, "ModelView", "Stop the forward pass in flight (at its next layer)")
        self.cancel_button.clicked.connect(self.ck.cancel)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.n_new = QSpinBox(self)
        self.n_new.setRange(1, 64)
        self.n_new.setValue(8)
        self.keep_text(self.n_new.setSuffix, "ModelView", " tokens")
        self.generate_button = QPushButton(self)
        self.keep_text(self.generate_button.setText, "ModelView", "Generate")
        self.keep_text(self.generate_button.setToolTip, "ModelView", "Greedy: the likeliest next token, again and "
                       "again, with a K/V cache in every layer (each new token's query reads every earlier token's "
                       "cached k and v)")
        ck, text, n_new = self.ck, self.text, self.n_new
        self.generate_button.clicked.connect(lambda: ck.generate(text.text(), n_new.value()))
        self.generated = QLabel(self)
        self.generated.setWordWrap(True)
        self.rows = Heatmap(cmap="sequential", row_title="layer · head", col_title="cached token",
                            colorbar_label="weight", parent=self)
        self.keep_text(lambda text, view=self.rows: view.set_titles(text, translate("ModelView", "cached token")),
                       "ModelView", "layer · head")
        self.keep_text(lambda text, axis=self.rows.colorbar.axis: axis.setLabel(text, **axis.labelStyle), "ModelView",
                       "weight")
        self.rows.setMinimumHeight(190)  # eight rows (2 layers × 4 heads) with their labels
        self.rows.setVisible(False)
        self.grid = HeadGrid(self)
        self.grid.cellHovered.connect(self._hovered)
        self.grid.cellClicked.connect(self.open_head)
        self.grid.installEventFilter(self)  # a head's words as its tooltip too: the line below may be scrolled away
        self.info = QLabel(self)
        self.info.setWordWrap(True)
        self.keep_text(self.info.setToolTip, "ModelView", LEGEND_TIP)
        self.next_tokens = NextTokensView(model.flow_back, self, open_folder=weakly(self.open_model))
        self.grid_area = scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.grid)
        scroll.setMinimumHeight(150)  # two layers of thumbnails, whatever else the dock holds
        # the heads and what the model says next: side by side where they fit, else one above the other
        self.split = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self.split.addWidget(scroll, 1)
        self.split.addWidget(self.next_tokens)

        top = QHBoxLayout()
        top.addWidget(self.kept_label("ModelView", "Model"))
        top.addWidget(self.choice, 1)
        row = QHBoxLayout()
        row.addWidget(self.kept_label("ModelView", "Text"))
        row.addWidget(self.text, 1)
        row.addWidget(self.cancel_button)
        gen_row = QHBoxLayout()
        gen_row.addWidget(self.generate_button)
        gen_row.addWidget(self.n_new)
        gen_row.addWidget(self.generated, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addLayout(self.split, 3)
        layout.addWidget(self.info)
        layout.addLayout(gen_row)
        layout.addWidget(self.rows, 2)
        self.ck.opened.connect(self._opened)
        self.ck.progress.connect(self._progress)
        self.ck.ran.connect(self._ran)
        self.ck.failed.connect(self._failed)
        self.ck.generated.connect(self._generated)
        self._said = ""  # the status line between runs ("Running…" stands in for it during one)
        model.history_moved.connect(self._outline_session_head)
        # its own timer (a turn later) is deleted with it, and the model's signal holds no reference to the panel
        self._tokens_changed = QTimer(self)
        self._tokens_changed.setSingleShot(True)
        self._tokens_changed.setInterval(0)
        self._tokens_changed.timeout.connect(self._next_tokens_changed)
        model.flow_back.changed.connect(self._tokens_changed.start)
        self._reveal = False  # a head just opened: bring what the model says next into the dock's view
        self._followed_load = None  # the session load whose head (if any) the grid and the text have followed
        model.changed.connect(self._maybe_follow)
        self._fill_choices()
        self._hovered(-1, -1)

    # ----- choosing and running --------------------------------------------------------------------
    def _fill_choices(self):
        from explorer.models import list_cached_models
        self.choice.clear()
        self.choice.addItem(translate("ModelView", "tiny-induction — ships with the explorer (2 layers × 4 heads)"),
                            EMBEDDED)
        try:
            cached = list_cached_models(only_supported=True)
        except (ExplorerError, OSError):
            cached = []
        for c in cached:
            self.choice.addItem(translate("ModelView", "{repo} — {kind}, {layers} layers × {heads} heads").format(
                repo=c.repo_id, kind=c.model_type, layers=c.layers, heads=c.heads), str(c.path))
        self.choice.addItem(translate("ModelView", "Other folder…"), None)

    def _chosen(self, index):
        where = self.choice.itemData(index)
        if where is None:
            self.choose_folder()
        else:
            self.open_model(where)

    def offer_models(self):
        """Open the list of models to choose from (File ▸ Open model…), once the dock just shown is laid out."""
        QTimer.singleShot(0, self, self.choice.showPopup)

    def _show_open_model(self):
        """The choice names the open model: its entry, or a new one for a folder opened from elsewhere (a
        failed "Other folder…" goes back to it)."""
        from explorer.models import EMBEDDED_MODEL
        if self.ck.model is None:
            return
        here = Path(self.ck.model.folder).resolve()
        for i in range(self.choice.count()):
            where = self.choice.itemData(i)
            if where is not None and (EMBEDDED_MODEL if where == EMBEDDED else Path(where)).resolve() == here:
                self.choice.setCurrentIndex(i)
                return
        other = self.choice.count() - 1  # "Other folder…" stays last
        self.choice.insertItem(other, f"{self.ck.model.name} — {here}", str(here))
        self.choice.setCurrentIndex(other)

    def choose_folder(self):
        """Ask for a checkpoint folder (config.json, *.safetensors, tokenizer.json) and open it."""
        folder = QFileDialog.getExistingDirectory(self, translate("ModelView", "Open a model folder"))
        if folder:
            self.open_model(folder)

    def open_model(self, where=EMBEDDED):
        if self.ck.open(where):
            self.run()

    def run(self):
        """Run the text now (typing runs it after a short pause)."""
        self._typing.stop()
        if self.ck.model is None:
            self.open_model()
            return
        self.ck.run(self.text.text())

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._arrange()

    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Resize and watched is self.parentWidget():
            self._arrange()  # the dock's viewport: the panel itself keeps its minimum width when it shrinks
        if event.type() == QEvent.Type.ToolTip and watched is self.grid:
            cell = self.grid.cell_at(QPointF(event.pos()))
            if cell is None or self.ck.latest is None:
                QToolTip.hideText()
            else:
                QToolTip.showText(event.globalPos(), self.head_words(*cell), self.grid,
                                  self.grid.cell_rect(*cell).toRect())
            return True
        return super().eventFilter(watched, event)

    def _arrange(self):
        """Side by side when the grid with SIDE_CELL thumbnails and the next-token table both fit the width
        (a wide dock), else the table under the grid."""
        room = self.parentWidget().width() if self.parentWidget() is not None else self.width()  # a dock's viewport
        margins = self.layout().contentsMargins()
        need = (max(least_width(self.grid), self.grid.width_for(SIDE_CELL)) + 2 * self.grid_area.frameWidth()
                + self.split.spacing() + least_width(self.next_tokens) + margins.left() + margins.right())
        wanted = QBoxLayout.Direction.LeftToRight if room >= need else QBoxLayout.Direction.TopToBottom
        if self.split.direction() != wanted:
            self.split.setDirection(wanted)

    def _next_tokens_changed(self):
        self._arrange()  # the table's width changed
        self._follow_loaded_head()
        if self._reveal:
            self._reveal = self.model.flow_back.state in (NONE, WAITING)  # until the head's numbers (or why not)
            QTimer.singleShot(0, self, self.reveal_next_tokens)  # once the dock has laid out the table's new size

    def _maybe_follow(self, _flags):
        if self.model.loads != self._followed_load:  # (cheap: it runs on every edit)
            QTimer.singleShot(0, self, self._follow_loaded_head)

    def _follow_loaded_head(self):
        """A session opened from a file as a head of the open model: the text box, the grid and its outline
        become that head's (its own token ids run again), not whatever the view had run before."""
        source, loads = self.model.state.model_head, self.model.loads
        if loads == self._followed_load or (source is not None and not self.ck.serves(source)):
            return  # followed already, or (its model not open yet) when it opens
        self._followed_load = loads
        if source is None or self.model.flow_back.state == LOST:
            return  # (LOST: the open model no longer matches the head, and says so; its ids are not run)
        self._typing.stop()
        self.text.setText(self.ck.model.text_of(source.ids))
        self._outline_session_head()  # (outlined once the grid is of its ids: after the run below)
        latest = self.ck.latest
        if latest is None or tuple(latest.run.ids) != tuple(source.ids):
            self.ck.run_ids(source.ids, self.text.text())

    def reveal_next_tokens(self):
        """Scroll the dock (a low one) just far enough that what the model says next is in view."""
        scroll = self.parentWidget().parentWidget() if self.parentWidget() is not None else None
        if isinstance(scroll, QScrollArea):
            for _ in range(3):  # the table's new height, then the panel's, then the scroll area's range
                QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
            scroll.ensureWidgetVisible(self.next_tokens, 0, 0)

    def showEvent(self, event):
        super().showEvent(event)
        if self.parentWidget() is not None:
            self.parentWidget().installEventFilter(self)  # (once: Qt ignores a second install)
        if self.ck.model is None:
            QTimer.singleShot(0, self, self._open_first)

    def _open_first(self):
        """The first model the view opens: the session's own (a head saved in its file), else — or when that one
        will not open (the next-token section says why) — the embedded one (nothing to download)."""
        for where in (self.model.flow_back.home(), EMBEDDED):
            if self.ck.model is None and where is not None and self.ck.open(where):
                self.run()

    # ----- what the runs say -----------------------------------------------------------------------
    def _say(self, text):
        self._said = text
        self.status.setText(text)

    def _opened(self, name):
        self._show_open_model()
        self._say(translate("ModelView", "Opened {name}").format(name=escape(name)))

    def _progress(self, text):
        if text and not self.ck.busy:
            return  # a layer's progress queued behind the run's end
        self.status.setText(translate("ModelView", "Running… {what}").format(what=escape(text)) if text else self._said)
        self.cancel_button.setEnabled(bool(text))

    def _failed(self, reason):
        self._show_open_model()
        self._say(f"<span style='color:#b00020'>{escape(in_language(reason))}</span>")

    def _ran(self):
        latest, m = self.ck.latest, self.ck.model
        notable = {(h.layer, h.head): BADGES.get(h.role, h.role) for h in (m.notable_heads or [])}
        self.grid.set_thumbnails(latest.thumbnails, row_label=translate("ModelView", "layer"),
                                 col_label=translate("ModelView", "head"), badges=notable, first=1)
        self._outline_session_head()
        self._arrange()  # the grid's least width follows its layers and heads
        c = m.config
        unknown = sum(t == "<unk>" for t in latest.run.tokens)
        lower = translate("ModelView", " (lower-case words)") if m.name == 'tiny-induction' else ''
        warn = (" <span style='color:#b00020'>" + translate(
            "ModelView", "{unknown} of them unknown to this model (&lt;unk&gt;): its vocabulary has {vocab} entries"
                         "{lower}").format(unknown=unknown, vocab=f"{c.vocab:,}", lower=lower) + "</span>"
                if unknown else "")
        self._say(translate("ModelView", "{name}: {layers} layers × {heads} heads on {tokens}{warn} — click a head to "
                                         "make it the session").format(
            name=escape(m.name), layers=c.layers, heads=c.heads, tokens=count(len(latest.run.tokens), 'token'),
            n_tokens=len(latest.run.tokens), warn=warn))

    def _generated(self):
        """The generated text, the newest token's 1 × t rows in every layer and head, the cache's size."""
        gen, m = self.ck.generation, self.ck.model
        c = m.config
        words = self._say_generated()
        last = gen.rows[-1]  # (layers, heads, t): the newest token's rows, 1 × t per head
        labels = [m.token_label(t) for t in gen.prompt_ids + gen.new_ids[:-1]] + [words[-1]]
        flat = last.reshape(-1, last.shape[-1])
        self.rows.set_matrix(flat, row_labels=[f"L{i + 1} H{j + 1}" for i in range(c.layers) for j in range(c.heads)],
                             col_labels=labels[:flat.shape[1]], levels=(0.0, 1.0), finite=True)
        self.rows.setVisible(True)

    def _say_generated(self):
        """The line under Generate (its note on the session's edits follows the session); the generated words."""
        gen, m = self.ck.generation, self.ck.model
        c = m.config
        words = [m.token_label(t) for t in gen.new_ids]
        per_token = 2 * c.layers * c.kv_heads * c.head_dim
        ended = translate("ModelView", " (stopped: the model ended its text)") if gen.ended else ""
        self.generated.setText(f"<b>{escape(' '.join(words))}</b>{ended}" + translate(
            "ModelView", " — K/V cache: 2 (K and V) · {layers} layers · {kv_heads} K/V heads · d_h {d_h} = {per_token} "
                         "numbers per token ({token_bytes} in float16), {cache_bytes} for its {tokens} tokens").format(
            layers=c.layers, kv_heads=c.kv_heads, d_h=c.head_dim, per_token=f"{per_token:,}",
            token_bytes=in_language(format_bytes(per_token * 2)), cache_bytes=in_language(format_bytes(gen.cache_bytes(c, 2))),
            tokens=gen.cache_tokens) + self._as_trained())
        return words

    def _as_trained(self):
        """While the session is a head of this model: a note that Generate ran the model without its edits (an
        edited head holds numbers for the text's tokens only; "what the model says next" has them)."""
        head = self.model.state.model_head
        if head is None or not self.ck.serves(head):
            return ""
        return ". <i>" + translate("ModelView", "Generated by {name} as trained: the session's edits of layer {layer} "
                                                "head {head} show in what the model says next, not here").format(
            name=escape(head.name), layer=head.layer + 1, head=head.head + 1) + "</i>"

    def _hovered(self, layer, head):
        if layer < 0 or self.ck.latest is None:
            outlined = ("" if self.grid.selected is None else translate(
                "ModelView", ". The outlined head is the session, shown as trained: its edits' effect is under “What "
                             "the model says next”"))
            self.info.setText(translate("ModelView", LEGEND) + outlined)
            return
        self.info.setText(self.head_words(layer, head))

    def head_words(self, layer, head):
        """What head (layer, head) (indices from 0) mostly does on the latest run's text, as rich text."""
        run = self.ck.latest.run
        words, score = strongest_pattern(run.attentions[layer, head], run.ids)
        known = [h for h in (self.ck.model.notable_heads or []) if (h.layer, h.head) == (layer, head)]
        role = "".join(f" — {'an' if h.role[0] in 'aeiou' else 'a'} {h.role} head (score {h.score:.2f})"
                       for h in known)
        where = f"mostly {words} ({score:.2f})" if not words.startswith("no one") else f"{words}, {score:.2f})"
        return translate("ModelView", "<b>layer {layer}, head {head}</b>: on this text its weight goes to {where}{role}. "
                                      "Click to open it as the session.").format(
            layer=layer + 1, head=head + 1, where=escape(where), role=role)

    def open_head(self, layer, head):
        """Make head (layer, head) (indices from 0) of the latest run the session: one undo step, every
        number editable; the session remembers the head, so its edits flow back into the model."""
        if self.ck.latest is None:
            return False
        try:
            session = self.ck.head_session(layer, head)
        except ExplorerError as exc:
            self.model.notify(translate("ModelView", "Cannot open layer {layer} head {head}: {why}").format(
                layer=layer + 1, head=head + 1, why=shown_error(exc)))
            return False
        opened = self.model.set_session(session, translate("ModelView", "Open {title}").format(title=session.title),
                                        model_head=self.ck.head_source(layer, head))
        self.model.set_selection(row=session.settings.selected_row)  # the last token: where a pattern shows
        self._outline_session_head()
        self._followed_load = self.model.loads  # (the session now is this head: nothing loaded to follow)
        self._reveal = opened
        if opened:
            QTimer.singleShot(0, self, self.reveal_next_tokens)
        return opened

    def _session_head(self):
        """(layer, head) of the session while it is a head of the open model on the grid's text, else None."""
        head, latest = self.model.state.model_head, self.ck.latest
        if head is None or latest is None or not self.ck.serves(head) or tuple(latest.run.ids) != head.ids:
            return None
        return head.layer, head.head

    def _outline_session_head(self, *_):
        """The session's head stays outlined through its edits; another session (an undo, a file) drops it."""
        where = self._session_head()
        if self.ck.generation is not None and self.ck.model is not None:
            self._say_generated()  # File ▸ New: no more "the session's edits of layer … head …"
        if where != self.grid.selected:
            self.grid.selected = where
            self.grid.update()
            self._hovered(-1, -1)

    def language_changed(self):
        self.next_tokens.render()
        self._hovered(-1, -1)
        if self.choice.count():
            self.choice.setItemText(self.choice.count() - 1, translate("ModelView", "Other folder…"))
            if self.choice.itemData(0) == EMBEDDED:
                self.choice.setItemText(0, translate("ModelView", "tiny-induction — ships with the explorer (2 layers × "
                                                                  "4 heads)"))
        if self.ck.latest is not None and self.ck.model is not None:
            self._ran()  # the grid's labels and the line above it
        super().language_changed()

    def render(self, flags):
        """The grid follows the model's runs, not the session."""
