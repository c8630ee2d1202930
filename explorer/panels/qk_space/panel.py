"""F24 Query–key space (after AttentionViz): the shown head's queries and keys as points of one plane.

The chapter's three personalities — Q 我在找什么 (what a token looks for), K 我能被什么找到 (what it can
be found by) — drawn together, scaled and shifted without changing any weight (``explorer.core.qk_space``)
so that a query lands near the keys it weighs most. Hover a query: lines to its strongest keys (from ②);
hover a key: the queries that weigh it most. For a real model's head (opened from the Model view), many
sentences at once (AttentionViz's corpus view): each runs through the model, and the head's queries and keys
of them all share one plane, coloured by position (``corpus.py``; the state is ``model.qk_corpus_view``).
"""

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QSignalBlocker, QSize, Qt
from PySide6.QtGui import QCursor, QFont, QPalette
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QSpinBox, QToolTip, QVBoxLayout

from explorer.core.errors import ExplorerError
from explorer.core.plural import count
from explorer.i18n import shown_error, translate
from explorer.core.qk_space import head_queries_keys, qk_plane, top_keys, top_queries
from explorer.model import LESSON, SELECTION
from explorer.model.background import COMPUTING, FAILED
from explorer.weak import weakly
from explorer.widgets.html_escape import escape, plain_tooltip
from explorer.widgets.number_text import format_fixed, format_number, format_weight
from explorer.widgets.palette import BAD, MUTED

from ..base import Panel
from . import corpus
from .plane import K_COLOR, Q_COLOR, QKPlot
from .position_legend import PositionLegend
from .sentences_box import BY_POSITION, SentencesBox

LABEL_ALL = 20  # up to this many points (queries + keys) every one is named; beyond, only those in focus
DEFAULT_TOP_K = 3
PLOT_MIN = QSize(220, 140)
HIDDEN_TEXT = QT_TRANSLATE_NOOP("QKSpace", "the strongest keys stay hidden until ② is revealed")
SESSION, SENTENCES = "session", "sentences"


class QKSpacePanel(Panel):
    """F24: queries and keys of the shown head on one plane; hover a point for its strongest partners."""

    draws_shown_head = True  # only the shown head's q, k and ② are read
    snug = True

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        fg = self.palette().color(QPalette.ColorRole.WindowText)
        bg = self.palette().color(QPalette.ColorRole.Base)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.top_k = QSpinBox(self)
        self.top_k.setRange(1, 1)
        self.keep_text(self.top_k.setToolTip, "QKSpace", "How many of the strongest keys (or queries) to join to the point in focus")
        self.top_k.valueChanged.connect(self._top_k_changed)
        self.focus_text = QLabel(self)  # what the point in focus weighs (the tooltip says it too)
        self.focus_text.setWordWrap(True)
        self.focus_text.setTextFormat(Qt.TextFormat.PlainText)
        self.focus_text.setMinimumWidth(40)
        self.focus_text.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        # two lines, whatever it says: a longer text would push the plot, and the point under the pointer, away
        self.focus_text.setFixedHeight(2 * self.focus_text.fontMetrics().lineSpacing() + 2)
        self.focus_text.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.plot = QKPlot(self, fg, bg)
        for side, text in (("bottom", QT_TRANSLATE_NOOP("QKSpace", "plane axis 1")),
                           ("left", QT_TRANSLATE_NOOP("QKSpace", "axis 2"))):
            self.keep_text(lambda said, axis=self.plot.widget.getPlotItem().getAxis(side), color=fg.name():
                           axis.setLabel(said, color=color), "QKSpace", text)
        self.plot.widget.setMinimumSize(PLOT_MIN)
        self.keep_text(self.plot.widget.setToolTip, "QKSpace", "Hover a query for its strongest keys, a key for the "
                       "queries that weigh it most; click a query to select its row")
        self.plot.hovered.connect(self._hovered)
        self.plot.clicked.connect(self._clicked)
        self.plot.widget.installEventFilter(self)
        self.note = QLabel(self)  # the variance kept, and that the plane is a projection
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.RichText)
        self.note.setStyleSheet(f"color: {MUTED};")
        small = QFont(self.note.font())
        if small.pointSizeF() > 0:
            small.setPointSizeF(small.pointSizeF() * 0.9)
        self.note.setFont(small)
        self.points_from = QComboBox(self)
        for i, (text, data) in enumerate(((QT_TRANSLATE_NOOP("QKSpace", "this session"), SESSION),
                                          (QT_TRANSLATE_NOOP("QKSpace", "many sentences"), SENTENCES))):
            self.points_from.addItem(text, data)
            self.keep_text(lambda said, box=self.points_from, i=i: box.setItemText(i, said), "QKSpace", text)
        self.keep_text(self.points_from.setToolTip, "QKSpace", "The session's tokens, or — for a head of a real model "
                       "— many sentences at once, each run through the model (AttentionViz's corpus view)")
        points_from_changed, draw_corpus = weakly(self._points_from_changed), weakly(self._draw_corpus)  # (no cycle)
        self.points_from.currentIndexChanged.connect(lambda _: points_from_changed())
        self.sentences = SentencesBox(self)
        self.sentences.place.connect(self.place_sentences)
        self.sentences.load.connect(self.load_sentences)
        self.sentences.colouring.connect(lambda _: draw_corpus())
        self.sentences.setVisible(False)
        self.legend = PositionLegend(self)
        self.legend.setVisible(False)
        self.corpus_view = None  # made when first asked for: it runs the open model
        controls = QHBoxLayout()
        controls.addWidget(self.points_from)
        controls.addWidget(self.kept_label("QKSpace", "top-k"))
        controls.addWidget(self.top_k)
        controls.addWidget(self.focus_text, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.caption)
        layout.addLayout(controls)
        layout.addWidget(self.sentences)
        layout.addWidget(self.plot.widget, 1)
        layout.addWidget(self.legend)
        layout.addWidget(self.note)
        self._user_k = None
        self._n_keys = None
        self.plane = None  # the QKPlane on screen
        self._from = self._head = None  # the results and head it was made from
        self.hover_text = ""  # the last hover's words (shown as a tooltip)

    def sizeHint(self):
        return QSize(480, 520)

    # ----- the state ---------------------------------------------------------------------------------
    def head(self):
        m = self.model
        r = m.shown_results()
        n = r.n_heads if r is not None else m.settings.heads
        return min(m.settings.selected_head, n - 1)

    def render_heading(self):
        m = self.model
        heads = m.settings.heads
        which = translate("QKSpace", " Head {head} of {heads}.").format(head=self.head() + 1, heads=heads) if heads > 1 else ""
        r = m.shown_results()
        if r is not None and r.kv_heads < r.n_heads:
            group = r.query_heads(r.kv_head(self.head()))
            which += translate("QKSpace", " Its keys are K/V head {kv}, shared by query heads {first}–{last}.").format(
                kv=r.kv_head(self.head()) + 1, first=group[0] + 1, last=group[-1] + 1)
        cross = translate("QKSpace", " (cross-attention: the queries come from one sequence, the keys from the other)"
                          ) if m.cross else ""
        query = f"<span style='color:{Q_COLOR}'>● " + translate("QKSpace", "query") + "</span>"
        key = f"<span style='color:{K_COLOR}'>▲ " + translate("QKSpace", "key") + "</span>"
        if self.corpus_mode:
            self.caption.setText(translate(
                "QKSpace", "{query} (我在找什么) · {key} (我能被什么找到) of the session's real head over many sentences, "
                           "each run through the model on its own.").format(query=query, key=key))
            return
        self.caption.setText(translate(
            "QKSpace", "{query}: what a token looks for (我在找什么) · {key}: what it can be found by (我能被什么找到)"
                       "{cross}. A query lands near the keys it weighs most.{which}").format(
            query=query, key=key, cross=cross, which=which))

    def language_changed(self):
        self._from = None  # the note under the plot is written again too
        self.sentences.retranslate()
        self.legend.retranslate()
        super().language_changed()
        self._draw_corpus()

    def _top_k_changed(self, value):
        self._user_k = value
        self._draw_focus()

    def _sync_spin(self, n_keys):
        if n_keys == self._n_keys:
            return
        self._n_keys = n_keys
        with QSignalBlocker(self.top_k):
            self.top_k.setRange(1, max(n_keys, 1))
            self.top_k.setValue(min(self._user_k or DEFAULT_TOP_K, max(n_keys, 1)))

    # ----- drawing ----------------------------------------------------------------------------------
    def render(self, flags):
        self.render_heading()
        r, head = self.model.shown_results(), self.head()
        if r is None or self.corpus_mode:
            return  # (the corpus view draws when its sentences are placed: ``_draw_corpus``)
        self._sync_spin(len(self.model.tokens))
        # the results may be rewritten in place by an edit: new numbers are known by the flags, not by identity
        repeated = head == self._head and self.model.repeats(self._from, r)  # whole results after a partial one
        if not repeated and (head != self._head or r is not self._from or flags & ~(SELECTION | LESSON)):
            try:
                self.plane = qk_plane(*head_queries_keys(r, head))
            except ExplorerError as exc:
                self.plane = None
                self.plot.set_points([], [])
                self.note.setText(f"<span style='color:{BAD}'>" + translate(
                    "QKSpace", "Cannot place this head's queries and keys: {why}").format(why=escape(shown_error(exc)))
                    + "</span>")
            else:
                self.plot.set_points(self.plane.queries, self.plane.keys)
                short, long = self._describe(r)
                self.note.setText(escape(short))
                self.note.setToolTip(long)
        self._from, self._head = r, head
        self._draw_focus()

    def _describe(self, r):
        """(the note under the plot, its tooltip): the variance kept, and why the plane shows what it shows."""
        p, d = self.plane, r.d_head
        n = len(p.queries) + len(p.keys)
        s = format_fixed(p.scale, 2) if p.scale < 1e4 else format_number(p.scale, 3)
        short = translate("QKSpace", "The plane keeps {kept} of the variance of the {points} — a projection (PCA, {d} → "
                                     "2 dimensions). Queries ×{s}, keys ÷{s} and moved onto the queries' centre: no "
                                     "weight changes.").format(kept=f"{p.kept:.0%}", points=count(n, 'point'), n_points=n,
                                                               d=d, s=s)
        long = translate("QKSpace", "Its axes are the two directions in which queries and keys together vary most; "
                                    "points apart in {d} dimensions may land close on it. Multiplying every q by s and "
                                    "dividing every k by s leaves each q·k; adding one vector c to every key adds q·c "
                                    "to a whole row of scores, which softmax ignores. So the weights (②) are those of "
                                    "the head, while the two clouds share one centre (their mean lengths were made "
                                    "equal before the keys moved onto it; AttentionViz, Yeh et al. 2023).").format(d=d)
        return short, long

    def focus(self):
        """The point in focus: the hovered one, else the selected query row; None when nothing is drawn."""
        if self.plane is None:
            return None
        if self.plot.hover is not None:
            return self.plot.hover
        return ("query", min(self.model.settings.selected_row, len(self.plane.queries) - 1))

    def partners(self):
        """(side, index, partner indices, their weights) of the point in focus, from the shown head's ②; the
        partners are None while ② is hidden."""
        side, i = self.focus()
        if self.model.revealed < 2 or self.model.shown_results() is not self._from:
            return side, i, None, None  # hidden, or the weights drawn from are being rewritten
        weights = self._from.heads.weights[self._head]
        found = top_keys(weights, i, self.top_k.value()) if side == "query" else \
            top_queries(weights, i, self.top_k.value())
        return side, i, found[0], found[1]

    def _draw_focus(self):
        if self.corpus_mode:
            return self._draw_corpus_focus()
        if self.plane is None or self._from is None or self.model.shown_results() is not self._from:
            self.plot.set_lines((0, 0), [], [], None)
            self.plot.set_labels([])
            self.focus_text.setText("" if self.plane is None else translate("QKSpace", "recomputing…"))
            return  # (the tokens may already be those of an edit whose results are still being made)
        side, i, partners, ws = self.partners()
        q_tok, k_tok = self.model.query_tokens, self.model.tokens
        own = self.plane.queries if side == "query" else self.plane.keys
        other = self.plane.keys if side == "query" else self.plane.queries
        other_tok = k_tok if side == "query" else q_tok
        start = own[i]
        if partners is None:
            self.plot.set_lines(start, [], [], start)
        else:
            self.plot.set_lines(start, other[partners], ws, start)
        self.plot.set_labels(*self._labels(side, i, partners))
        name = q_tok[i] if side == "query" else k_tok[i]
        if partners is None:
            why = translate("QKSpace", HIDDEN_TEXT) if self.model.revealed < 2 else translate("QKSpace", "recomputing…")
            text = f"{translate('QKSpace', side)} {name}: {why}"
        elif not len(partners):
            text = (translate("QKSpace", "query {name}: fully masked — no key to attend to") if side == "query" else
                    translate("QKSpace", "key {name}: no query may attend to it")).format(name=name)
        else:
            listed = " · ".join(f"{other_tok[j]} {format_weight(w)}" for j, w in zip(partners, ws))
            text = (translate("QKSpace", "query {name} looks for → {listed}") if side == "query" else
                    translate("QKSpace", "key {name} is found by ← {listed}")).format(name=name, listed=listed)
        self.focus_text.setText(text)

    def _labels(self, side, i, partners):
        """The token names to draw — every point's when few, else those of the point in focus and its partners —
        and the index of the focus's name among them."""
        q_tok, k_tok = self.model.query_tokens, self.model.tokens
        p = self.plane
        if len(p.queries) + len(p.keys) <= LABEL_ALL:
            qs, ks = list(range(len(p.queries))), list(range(len(p.keys)))
        else:
            found = [] if partners is None else list(partners)
            qs, ks = ([i], found) if side == "query" else (found, [i])
        first = qs.index(i) if side == "query" else len(qs) + ks.index(i)
        return ([(*p.queries[j], q_tok[j], Q_COLOR, "query") for j in qs] +
                [(*p.keys[j], k_tok[j], K_COLOR, "key") for j in ks]), first

    # ----- the pointer -------------------------------------------------------------------------------
    def _hovered(self, found):
        self._draw_focus()
        if found is None:
            self.hover_text = ""
            QToolTip.hideText()
            return
        self.hover_text = self.focus_text.text()
        if self.plot.widget.underMouse():
            QToolTip.showText(QCursor.pos(), plain_tooltip(self.hover_text), self.plot.widget)

    def _clicked(self, found):
        if found[0] == "query" and not self.corpus_mode:
            self.model.set_selection(row=found[1])

    # ----- many sentences (the corpus view) ---------------------------------------------------------
    @property
    def corpus_mode(self):
        return self.points_from.currentData() == SENTENCES

    def show_sentences(self, on=True):
        """Show many sentences (True) or the session's tokens (False)."""
        self.points_from.setCurrentIndex(self.points_from.findData(SENTENCES if on else SESSION))

    def _points_from_changed(self):
        on = self.corpus_mode
        self.sentences.setVisible(on)
        self.top_k.setEnabled(True)
        self.plot.leave()
        if on:
            if self.corpus_view is None:
                from explorer.model.qk_corpus_view import QKCorpusView
                self.corpus_view = QKCorpusView(self.model, self)
                self.corpus_view.changed.connect(self._draw_corpus)
            self.render_heading()
            self._draw_corpus()
        else:
            self.legend.setVisible(False)
            self.plane, self._from = None, None  # drawn again from the session
            self.refresh()

    def place_sentences(self, text):
        """Place the sentences of ``text`` (one per line) for the session's head; a refusal is said under them
        and changes nothing. True when placed (or being placed)."""
        self.show_sentences(True)
        why = self.corpus_view.place(text)
        if why:
            self.sentences.say(why, bad=True)
            return False
        self.sentences.show_text(False)  # placed: the plot takes the room (the Sentences button shows them again)
        self._draw_corpus()
        return True

    def load_sentences(self, path):
        """Place the sentences of a .txt file (its text then in the box); a bad file is refused as text is."""
        self.show_sentences(True)
        text, why = self.corpus_view.load(path)
        if why:
            self.sentences.say(why, bad=True)
            return False
        self.sentences.text.setPlainText(text)
        self.sentences.show_text(False)
        self._draw_corpus()
        return True

    def _draw_corpus(self):
        view = self.corpus_view
        if not self.corpus_mode or view is None:
            return
        work, placed = view.work, view.placed
        if placed is None:
            self.plot.set_points([], [])
            self.legend.setVisible(False)
            head, why = view.source()
            self.note.setText("")
            if work.state == FAILED:
                self.sentences.say(work.reason, bad=True)
            elif work.state == COMPUTING:
                self.sentences.say(translate("QKSpace", "Running the sentences through the model…"))
            else:
                self.sentences.say(why or translate("QKSpace", "Press Place to run the sentences through the model"),
                                   bad=bool(why))
            self._draw_corpus_focus()
            return
        colour_by = self.sentences.colour
        q_brushes, k_brushes = corpus.brushes(placed, colour_by)
        self.plot.set_points(placed.plane.plane.queries, placed.plane.plane.keys, q_brushes, k_brushes)
        self.legend.set_last(corpus.last_position(placed))
        self.legend.setVisible(colour_by == BY_POSITION)
        short, long = corpus.note(placed)
        self.note.setText(escape(short))
        self.note.setToolTip(long)
        longest = max(len(w) for w in placed.head.weights)
        self._sync_spin(longest)
        said = {COMPUTING: translate("QKSpace", "Running the sentences through the model…"),
                FAILED: work.reason}.get(work.state, view.note)
        self.sentences.say(said, bad=work.state == FAILED or bool(view.note))
        self._draw_corpus_focus()

    def _draw_corpus_focus(self):
        placed = None if self.corpus_view is None else self.corpus_view.placed
        hover = self.plot.hover
        if placed is None or hover is None:
            self.plot.set_lines((0, 0), [], [], None)
            self.plot.set_labels([])
            self.focus_text.setText("" if placed is None else
                                    translate("QKSpace", "hover a point: its sentence, token and position"))
            return
        side, i = hover
        found, ws = corpus.partners(placed, side, i, self.top_k.value())
        pts = placed.plane.plane
        own, other = (pts.queries, pts.keys) if side == "query" else (pts.keys, pts.queries)
        self.plot.set_lines(own[i], other[found], ws, own[i])
        self.plot.set_labels(corpus.labels(placed, side, i, found), first=0)  # (the point in focus first)
        self.focus_text.setText(corpus.describe(placed, side, i, found, ws))

    def eventFilter(self, watched, event):
        if watched is self.plot.widget and event.type() == QEvent.Type.Leave:
            self.plot.leave()
        return False
