"""A panel that is one labelled heatmap of the model's results, with a formula line above it."""
import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from explorer.i18n import translate

from explorer.model import ALL_STAGES, DECODE, SELECTION, SETTINGS, STRUCTURE, VALUES
from explorer.weak import weakly
from explorer.widgets.heatmap import Heatmap
from explorer.widgets.nice import nice_ceiling

from .base import Panel


def nice_symmetric_levels(values=None, floor=1.0, extent=None):
    """(−m, m) with m the next of 1, 2, 5 × 10^k above max |value| (at least ``floor``); ``extent``
    (smallest, largest) may stand for the values when the results already know it.

    Steps instead of an exact fit, so the colours show a change of scale or temperature rather
    than re-stretching to the same picture every time.
    """
    if extent is None:
        extent = (float(np.min(values)), float(np.max(values))) if np.size(values) else (0.0, 0.0)
    m = nice_ceiling(max(-extent[0], extent[1], floor))
    return -m, m


# the axis titles and colour bar names of the heatmap panels (context "Heatmap"), for pyside6-lupdate
AXIS_WORDS = (QT_TRANSLATE_NOOP("Heatmap", "query"), QT_TRANSLATE_NOOP("Heatmap", "query tokens"),
              QT_TRANSLATE_NOOP("Heatmap", "key"), QT_TRANSLATE_NOOP("Heatmap", "key tokens"),
              QT_TRANSLATE_NOOP("Heatmap", "dimension"), QT_TRANSLATE_NOOP("Heatmap", "score"),
              QT_TRANSLATE_NOOP("Heatmap", "weight"), QT_TRANSLATE_NOOP("Heatmap", "value"))


class HeatmapPanel(Panel):
    """Formula caption + heatmap; clicking a row selects that query for every panel."""

    cmap = "diverging"
    colorbar_label = ""
    col_title = "key"
    masked_text = "−∞"
    stage = 1  # ①, ② or ③: hidden while the lesson has not revealed it
    follows_drags = True

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(self.caption.textFormat().RichText)
        self.heatmap = Heatmap(cmap=self.cmap, row_title=translate("Heatmap", "query"),
                               col_title=translate("Heatmap", self.col_title),
                               colorbar_label=translate("Heatmap", self.colorbar_label), masked_text=self.masked_text,
                               parent=self)
        self._drawn_head = None
        self._notes = ""  # what the last drawn results add to the caption (a warning), kept while they recompute
        self._drawn_from = None  # the results the heatmap shows (its image is a view of their arrays)
        self._guess_seen = None  # (guess, history index when it was first outlined)
        model.history_moved.connect(self._outline_guess)
        self.heatmap.tooltip_provider = weakly(self._tooltip_if_shown, "")
        self.heatmap.image_valid = weakly(self._image_valid, False)
        self.heatmap.cellClicked.connect(self._clicked)
        self.reveal_button = QPushButton(self)
        self.keep_text(lambda text, button=self.reveal_button, stage='①②③'[self.stage - 1]: button.setText(
            text.format(stage=stage)), "Heatmap", "Reveal {stage}")
        self.keep_text(self.reveal_button.setToolTip, "Heatmap",
                       "Show this stage (guess first: click the cell you expect to be darkest)")
        self.reveal_button.clicked.connect(lambda checked=False, stage=self.stage: model.set_revealed(stage))
        self.reveal_button.hide()  # until a render finds the stage hidden (not while nothing is drawn yet)
        top = QHBoxLayout()
        top.addWidget(self.caption, 1)
        top.addWidget(self.reveal_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.heatmap, 1)

    def source(self):
        """The results to draw: for the selected head's ① and ② possibly a partial result, newer than
        the rest (``model.shown_results``); None while there are none to draw."""
        if self.draws_shown_head:
            return self.model.shown_results()
        return None if self.model.pending else self.model.results

    @property
    def drawn_from(self):
        """The results the heatmap shows (None before its first draw)."""
        return self._drawn_from

    def _image_valid(self):
        """The arrays the heatmap shows may be read again (to re-sample them after a resize): they are
        still what this panel would draw, so no recompute is writing them."""
        return self._drawn_from is not None and self.source() is self._drawn_from and self.head() == self._drawn_head

    def _drawn_already(self, flags):
        """The whole results came after the partial result this panel drew from, and nothing else changed
        what it shows: its head's numbers are those on screen (at L = 4096 a draw is 20–80 ms)."""
        return (not flags & ~(VALUES | SETTINGS | STRUCTURE | DECODE | SELECTION) and self.head() == self._drawn_head
                and self.model.repeats(self._drawn_from, self.source()))

    def hidden(self):
        return self.model.revealed < self.stage

    def _clicked(self, row, col):
        if self.hidden() and self.stage < 3:  # ③ asks what each row mixes, not for a darkest cell
            self.model.set_guess(self.stage, row, col)
        else:
            self.model.set_selection(row=row, key=col if self.col_title == "key" else None)

    def _tooltip_if_shown(self, row, col):
        if self.source() is None:  # the results belong to the state before the last edit (or are being rewritten)
            return translate("Heatmap", "Recomputing…")
        if not self.hidden():
            return self.tooltip(row, col)
        return (translate("Heatmap", "Hidden until revealed — click the cell you expect to be darkest") if self.stage < 3
                else translate("Heatmap", "Hidden until revealed — which rows of V will this row mix?"))

    def _outline_guess(self, *args):
        """Outline the reader's guess in magenta while the lesson runs and the numbers are those it was
        made on: gone when the lesson ends (every stage shown) and when the history moves (undo, an edit)."""
        m = self.model
        guess = m.guesses.get(self.stage)
        if guess is None or m.revealed >= ALL_STAGES:
            self._guess_seen = None
        elif self._guess_seen is None or self._guess_seen[0] != guess:
            self._guess_seen = (guess, m.history_index())
        elif self._guess_seen[1] != m.history_index():
            self._guess_seen = (guess, None)  # the history moved: dropped for good (until a new guess)
        shown = self._guess_seen is not None and self._guess_seen[1] == m.history_index()
        self.heatmap.set_highlight([guess] if shown else [])

    def head(self):
        return self.model.settings.selected_head

    def masked(self):
        """True where the selected head's cells are masked, or None when nothing is."""
        allowed = self.source().allowed(self.head())
        return None if allowed is None else ~allowed

    def head_note(self):
        heads = self.model.settings.heads
        return translate("Heatmap", ", head {head}/{heads}").format(head=self.head() + 1, heads=heads) if heads > 1 else ""

    def heading(self):
        """The caption from the state alone (settings, widths), without ``_notes``."""
        raise NotImplementedError

    def render_heading(self):
        """The caption: the formula with the current settings, then what the last results added."""
        if self.hidden():
            task = (translate("Heatmap", "guess first: click the cell you expect to be darkest, then reveal")
                    if self.stage < 3 else translate("Heatmap", "which rows of V will each output mix? Think, then reveal"))
            self.caption.setText(translate("Heatmap", "<b>{stage} hidden</b> — {task}").format(
                stage='①②③'[self.stage - 1], task=task))
        else:
            self.caption.setText(self.heading() + self._notes)

    def tooltip(self, row, col):
        return ""

    def _axis_titles(self):
        """What the rows and columns are, in the interface's language (the colour bar's name too)."""
        cross = self.model.cross
        self.heatmap.set_titles(translate("Heatmap", "query tokens" if cross else "query"),
                                translate("Heatmap", ("key tokens" if cross else "key")
                                          if self.col_title == "key" else self.col_title))
        if self.colorbar_label:
            axis = self.heatmap.colorbar.axis
            axis.setLabel(translate("Heatmap", self.colorbar_label), **axis.labelStyle)

    def changeEvent(self, event):
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and hasattr(self, "heatmap"):
            self._axis_titles()

    def draw(self):
        """Subclasses put their matrix on screen (and in ``_notes`` what it adds to the caption)."""
        raise NotImplementedError

    def render(self, flags):
        """Redraw the matrix only when numbers, shapes, settings, the lesson or the head changed —
        a row click just moves the outlines."""
        if flags & STRUCTURE:
            self._axis_titles()
        if flags & ~SELECTION or self.head() != self._drawn_head:
            if self._drawn_already(flags):
                self._drawn_from = self.source()  # the same numbers, now of whole results
            else:
                self.draw()
                self._drawn_head, self._drawn_from = self.head(), self.source()
        hidden = self.hidden()
        if flags == VALUES and not hidden:
            return  # new numbers only: what is revealed and outlined stays (the guess follows history_moved)
        self.heatmap.set_hidden(hidden)
        self.reveal_button.setVisible(hidden)
        self.reveal_button.setEnabled(self.model.revealed == self.stage - 1)  # the stages come in order
        self.heatmap.set_selected_row(self.model.settings.selected_row)
        self._outline_guess()
        self.render_heading()
