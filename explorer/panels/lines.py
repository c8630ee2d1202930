"""F5 Attention lines: queries on the left, keys on the right, one line per weight (BertViz-style).

The edges come from ``explorer.core.lines`` (the k largest weights of each query, at most a few
thousand lines); ``explorer.widgets.lines_canvas`` lays out the tokens and paints the lines.
"""
from PySide6.QtCore import QT_TRANSLATE_NOOP, QSignalBlocker, QSize
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QSpinBox, QVBoxLayout

from explorer.core.lines import top_k_edges
from explorer.core.plural import count
from explorer.i18n import translate
from explorer.widgets.lines_canvas import EMPTY, MAX_LINES, LinesCanvas
from explorer.widgets.palette import MUTED

from .base import Panel

READABLE_TOKENS = 40  # up to this many tokens every line is drawn by default
DEFAULT_TOP_K = 3  # beyond it, the 3 largest weights of each query
ALL_MIN_WEIGHT = 1e-3  # "all" beyond READABLE_TOKENS leaves out weights below this (bounds the edge count)
HIDDEN_TEXT = QT_TRANSLATE_NOOP("Lines", "weights hidden until ② is revealed")


class AttentionLinesPanel(Panel):
    """F5: each query's weights as lines to the keys; hover a token to isolate its lines, click a query to select it."""

    snug = True  # the dock shows it whole down to its views' minimum (the lines thin their labels), then scrolls

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.top_k = QSpinBox(self)
        self.top_k.setRange(0, 1)
        self.keep_text(self.top_k.setSpecialValueText, "Lines", "all")
        self.keep_text(self.top_k.setToolTip, "Lines",
                       "Draw only the k largest weights of each query row (all: every nonzero weight)")
        self.top_k.valueChanged.connect(self._top_k_changed)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.note.setMinimumWidth(40)
        self.note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.note.setStyleSheet(f"color: {MUTED};")
        small = QFont(self.note.font())
        if small.pointSizeF() > 0:
            small.setPointSizeF(small.pointSizeF() * 0.9)
        self.note.setFont(small)
        self.canvas = LinesCanvas(self)
        self.canvas.queryClicked.connect(lambda i: model.set_selection(row=i))
        self.keep_text(lambda text, canvas=self.canvas: canvas.set_headers(text, translate("Lines", "key")), "Lines",
                       "query")
        controls = QHBoxLayout()
        top_k_label = QLabel(self)
        self.keep_text(top_k_label.setText, "Lines", "top-k per query")
        controls.addWidget(top_k_label)
        controls.addWidget(self.top_k)
        controls.addWidget(self.note, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.caption)
        layout.addLayout(controls)
        layout.addWidget(self.canvas, 1)
        self._user_k = None  # the user's choice from the spin box (None: the default for the size)
        self._n_tokens = None
        self._cache_results = self._cache_key = None
        self._edges = EMPTY

    def sizeHint(self):
        return QSize(450, 500)

    def k(self):
        """The k in use: None for every edge."""
        return self.top_k.value() or None

    def _top_k_changed(self, value):
        self._user_k = value
        self.refresh()

    def _sync_spin(self, n):
        if n == self._n_tokens:
            return
        self._n_tokens = n
        default = DEFAULT_TOP_K if n > READABLE_TOKENS else 0
        with QSignalBlocker(self.top_k):
            self.top_k.setRange(0, max(n, 1))
            self.top_k.setValue(min(self._user_k if self._user_k is not None else default, n))

    def render_heading(self):
        """The caption from the state: it names the new head count at once, before its results."""
        m = self.model
        head = min(m.settings.selected_head, m.settings.heads - 1)
        two = translate("Lines", " (cross-attention: the queries' sequence on the left, the keys' on the right)"
                        ) if m.cross else ""
        self.caption.setText(translate("Lines", "Each line: a query (left) attends to a key (right); darker and "
                                                "thicker = more weight{two}. Head {head} of {heads}.").format(
            two=two, head=head + 1, heads=m.settings.heads))

    def render(self, flags):
        m, tokens, keys = self.model, self.model.query_tokens, self.model.tokens
        n = len(tokens)
        self._sync_spin(len(keys))
        r = m.results
        n_heads = r.n_heads if r is not None else m.settings.heads
        head = min(m.settings.selected_head, n_heads - 1)
        self.render_heading()
        selected = min(m.settings.selected_row, n - 1)
        if r is None or r.heads.weights.shape[1] != n or m.revealed < 2:
            message = (translate("Lines", HIDDEN_TEXT) if m.revealed < 2
                       else translate("Lines", "no weights to show"))
            self.canvas.set_data(tokens, None, selected=selected, message=message, keys=keys)
            self.note.setText("")
            return
        weights = r.heads.weights[head]
        allowed = r.allowed(head)
        masked = None if allowed is None else ~allowed
        k = self.k()
        min_weight = ALL_MIN_WEIGHT if k is None and max(n, len(keys)) > READABLE_TOKENS else 0.0
        key = (head, k, min_weight)
        if r is not self._cache_results or key != self._cache_key:  # the edges only change with the numbers
            self._edges = top_k_edges(weights, k=k, min_weight=min_weight)
            self._cache_results, self._cache_key = r, key
        self.canvas.set_data(tokens, weights, self._edges, masked=masked, selected=selected, keys=keys)
        self.note.setText(self._describe(k, min_weight))

    def _describe(self, k, min_weight):
        total = self._edges[2].size
        what = (translate("Lines", "every nonzero weight") if k is None
                else translate("Lines", "the {k} largest of each query").format(k=k))
        if min_weight:
            what += translate("Lines", " above {weight}").format(weight=f"{min_weight:g}")
        text = translate("Lines", "{what}: {lines}").format(what=what, lines=count(total, 'line'), n_lines=total)
        if total > MAX_LINES:
            text += translate("Lines", " — only the {most} strongest drawn").format(most=f"{MAX_LINES:,}")
        return text
