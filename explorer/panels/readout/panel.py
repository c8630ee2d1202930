"""③ read by rows: O_i = Σ_j w_ij·v_j — each key's share as a stacked bar, and O_i inside the hull of V's rows.

The chapter: "O 的第 i 行 = 权重行 · V 矩阵 = 各词 value 的凸组合 … 输出不会跑出各 V 围成的凸包".
The numbers come from ``explorer.core.readout``; this file only draws them.
"""
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QBoxLayout, QComboBox, QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from explorer.core.plural import noun
from explorer.core.readout import distinct_names, drawn_keys, keys_by_weight, row_readout
from explorer.model import VALUES
from explorer.weak import weakly
from explorer.widgets.html_escape import escape
from explorer.widgets.number_text import format_fixed, format_weight
from explorer.widgets.palette import BAD, GLOSS
from explorer.widgets.rich_label import RichLabel
from explorer.widgets.snug import SnugContent
from explorer.i18n import translate

from ..base import Panel
from .bars import SharesBars
from .colours import OTHERS_COLOR, key_colour
from .plane import HullPlane
from .plane_labels import PlaneLabels

MAX_KEYS = 12  # keys drawn one by one; any further keys share one grey "others" bar (signs kept apart)
MAX_TERMS = 5  # weights spelled out in the header formula
SIDE_BY_SIDE_ASPECT = 1.25  # width / height above which the two views sit side by side
PLOT_MIN_HEIGHT = 130  # below this the panel scrolls rather than squash the plots
PLOT_MIN_WIDTH = 200


def panel_name():
    """The panel's name as its dock's title says it (explorer/main_window.py DOCKS): one word in either language."""
    return translate("Docks", "Readout")


class ReadoutPanel(SharesBars, HullPlane, PlaneLabels, Panel):
    """F4: for the selected query row, each key's share of O_i (stacked bars) and O_i in the hull of V (2-D)."""

    stage = 3

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self._dims = (0, 1)  # which columns of the head's slice of V the plane shows (x, y)
        self._combo_tokens = None  # the tokens row_combo lists
        self._readout = None
        self._shown = (None, [])  # (readout, the keys drawn one by one for it)
        self._names_of = (None, [])  # (the tokens, their distinct names): _key_names
        fg = self.palette().color(QPalette.ColorRole.WindowText)
        bg = self.palette().color(QPalette.ColorRole.Base)

        self.header = RichLabel(parent=self)  # new numbers on every redraw: a QLabel relaid the panel out each time

        self.row_combo = QComboBox(self)
        self.keep_text(self.row_combo.setToolTip, "Readout", "The query row to read (or click a row in any heatmap)")
        self.row_combo.activated.connect(lambda i: model.set_selection(row=i))
        self.x_combo, self.y_combo = QComboBox(self), QComboBox(self)
        self.keep_text(self.x_combo.setToolTip, "Readout", "The dimension of V on the plane's horizontal axis")
        self.keep_text(self.y_combo.setToolTip, "Readout", "The dimension of V on the plane's vertical axis")
        set_dims = weakly(self._set_dims)
        self.x_combo.currentIndexChanged.connect(lambda i: set_dims(x=i))
        self.y_combo.currentIndexChanged.connect(lambda i: set_dims(y=i))
        self.dims_label = self.kept_label("Readout", "plane:")
        self.vs_label = QLabel("×", self)
        controls = QHBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        controls.addWidget(self.kept_label("Readout", "query"))
        controls.addWidget(self.row_combo)
        controls.addSpacing(12)
        for w in (self.dims_label, self.x_combo, self.vs_label, self.y_combo):
            controls.addWidget(w)
        controls.addStretch(1)

        self._build_bars(fg, bg)
        self._build_plane(fg, bg)
        for plot in (self.bars, self.plane):
            plot.setMinimumSize(PLOT_MIN_WIDTH, PLOT_MIN_HEIGHT)

        self.views = QWidget(self)
        self.views_layout = QBoxLayout(QBoxLayout.Direction.LeftToRight, self.views)
        self.views_layout.setContentsMargins(0, 0, 0, 0)
        self.views_layout.addWidget(self.bars, 1)
        self.views_layout.addWidget(self.plane, 1)

        self.legend = RichLabel(parent=self)
        self.check_label = RichLabel(parent=self)
        self.hidden_label = self.kept_label("Readout", "How each output row is mixed stays hidden until ③ is revealed")
        self.hidden_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hidden_label.setStyleSheet("color: #666; font-size: 120%;")
        self.hidden_label.hide()  # until a render finds ③ hidden (not while nothing is drawn yet)

        # Everything sits in a scroll area: in a small dock the panel scrolls instead of squashing the plots
        # below PLOT_MIN_HEIGHT (side by side when wide, stacked when narrow — see resizeEvent).
        self.content = SnugContent()  # plots shrink to PLOT_MIN_HEIGHT before the legend scrolls away
        self.content.setObjectName("readoutContent")
        layout = QVBoxLayout(self.content)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.header)
        layout.addLayout(controls)
        layout.addWidget(self.views, 1)
        layout.addWidget(self.hidden_label, 1)
        layout.addWidget(self.legend)
        layout.addWidget(self.check_label)
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidget(self.content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll)

    # ----- layout -------------------------------------------------------------------------------
    def resizeEvent(self, event):
        super().resizeEvent(event)
        # side by side when the panel is wide, or when stacking would not fit its height anyway
        # while two plots fit next to each other
        room = self.height() - 150  # about what the header, controls, legend and check take
        wide = self.width() >= 480 and (self.width() >= SIDE_BY_SIDE_ASPECT * self.height()
                                        or room < 2 * PLOT_MIN_HEIGHT + 20)
        direction = QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom
        if self.views_layout.direction() != direction:
            self.views_layout.setDirection(direction)

    def hidden(self):
        return self.model.revealed < self.stage

    # ----- model → widgets ----------------------------------------------------------------------
    def render(self, flags):
        r = self.model.results
        if r is None or self._untouched(flags, r):
            return
        tokens = self.model.query_tokens
        s = self.model.settings
        with QSignalBlocker(self.row_combo):
            if self._combo_tokens != list(tokens):  # refilled only when the tokens change, not on every edit
                self.row_combo.clear()
                self.row_combo.addItems([f"{i}: {t}" for i, t in enumerate(tokens)])
                self._combo_tokens = list(tokens)
            self.row_combo.setCurrentIndex(s.selected_row)

        hidden = self.hidden()
        for w in (self.views, self.legend, self.check_label, self.dims_label, self.x_combo, self.vs_label,
                  self.y_combo):
            w.setVisible(not hidden)  # the 1-D case hides the y combo again in _sync_dim_combos
        self.hidden_label.setVisible(hidden)
        if hidden:
            self._readout = None
            self.header.setText(translate("Readout", "<b>③ {name} for {who}</b> — hidden until ③ is revealed").format(
                name=panel_name(), who=escape(self.model.query_tokens[s.selected_row])))
            return

        ro = row_readout(r.heads, r.v, s.selected_row, s.selected_head if r.n_heads > 1 else 0)
        self._readout, self._drawn_from = ro, r
        self._sync_dim_combos(ro)
        self._draw()

    def _untouched(self, flags, results):
        """True for Q cells edited in other query rows than the one drawn: O_i depends on Q only through
        row i (``core.recompute.apply_edit`` rewrites just the edited rows), so nothing drawn changed."""
        edited, ro, s = self.model.edited, self._readout, self.model.settings
        return (flags == VALUES and bool(edited) and set(edited) == {"Q"} and ro is not None
                and results is getattr(self, "_drawn_from", None) and ro.row == s.selected_row
                and ro.row not in edited["Q"][0])

    def _sync_dim_combos(self, ro):
        """Offer the head's columns; keep the chosen pair (clamped to fit) — untouched while d_v = 1."""
        names = [f"d{c}" for c in ro.columns]
        d = len(names)
        if d > 1:
            x, y = (min(i, d - 1) for i in self._dims)
            if x == y:  # clamping collapsed two chosen columns into one: the plane needs two
                x, y = (d - 2, d - 1) if y == d - 1 else (x, y + 1)
            self._dims = (x, y)
        for combo, i in zip((self.x_combo, self.y_combo), self._dims if d > 1 else (0, 0)):
            with QSignalBlocker(combo):
                if [combo.itemText(k) for k in range(combo.count())] != names:
                    combo.clear()
                    combo.addItems(names)
                combo.setCurrentIndex(i)
        self.x_combo.setEnabled(d > 1)
        self.vs_label.setVisible(d > 1)
        self.y_combo.setVisible(d > 1)

    def _set_dims(self, x=None, y=None):
        """A combo picked a column. The plane needs two different ones: picking the other axis's column
        swaps the two axes (d0 × d1, then x := d1 gives d1 × d0) — unless the head has one column."""
        dx, dy = self._dims
        nx = dx if x is None or x < 0 else x
        ny = dy if y is None or y < 0 else y
        one_d = self._readout is not None and len(self._readout.columns) == 1
        if nx == ny and not one_d:
            if x is not None and x >= 0:
                ny = dx  # the x combo took y's column: y takes x's old one
            else:
                nx = dy
            for combo, i in ((self.x_combo, nx), (self.y_combo, ny)):
                if combo.currentIndex() != i:
                    with QSignalBlocker(combo):
                        combo.setCurrentIndex(i)
        self._dims = (nx, ny)
        if self._readout is not None:
            self._draw()

    def dims(self):
        """The columns of V (and O) on the plane's x and y axes (y is None when d_v = 1)."""
        ro = self._readout
        if ro is None:
            return None
        cols = ro.columns
        if len(cols) == 1:
            return int(cols[0]), None
        return int(cols[self._dims[0]]), int(cols[self._dims[1]])

    def shown_keys(self):
        """The keys drawn one by one: all of them, or the MAX_KEYS − 1 heaviest (in token order)."""
        if self._shown[0] is not self._readout:  # ranked once per readout (the bars, the plane and the labels all ask)
            self._shown = (self._readout, drawn_keys(self._readout.weights, MAX_KEYS, self._readout.attended()))
        return list(self._shown[1])

    # ----- drawing ------------------------------------------------------------------------------
    def _draw(self):
        ro = self._readout
        tokens = self._key_names()
        keys = self.shown_keys()
        self._draw_header(ro, tokens)
        self._draw_bars(ro, keys)
        self._draw_plane(ro, keys, tokens)
        self._draw_legend(ro, keys, tokens)

    def _key_names(self):
        """The keys' tokens, a repeated one with its position ("the₃"): the legend and the plane list keys by weight,
        not in order (made once per list of tokens)."""
        tokens = self.model.tokens
        if self._names_of[0] is not tokens:
            self._names_of = (tokens, distinct_names(tokens))
        return self._names_of[1]

    def _draw_header(self, ro, tokens):
        r = self.model.results
        who = escape(self.model.query_tokens[ro.row])
        if ro.masked:
            self.header.setText(translate("Readout", "<b>③ {name} for {who}</b>: {masked}").format(
                name=panel_name(), who=who, masked=f"<span style='color:{BAD}'>" + translate(
                    "Readout", "row fully masked: no output (all weights 0)") + "</span>"))
            return
        order = ro.attended()  # a masked key adds nothing: it is not spelled out as 0·v
        if len(order) > MAX_TERMS:
            order = order[keys_by_weight(ro.weights[order])]
        terms = [f"{escape(format_weight(ro.weights[j]))}·v({escape(tokens[j])})" for j in order[:MAX_TERMS]]
        if len(order) > MAX_TERMS:
            rest = float(ro.weights[order[MAX_TERMS:]].sum())  # display only: the weight not spelled out
            terms.append(translate("Readout", "… ({more} more, Σw = {rest})").format(
                more=len(order) - MAX_TERMS, rest=format_fixed(rest)))
        text = translate("Readout", "<b>③ {name} for {who}</b>: O = {terms} — a convex combination of the rows of V "
                                    "(weights ≥ 0, Σ = 1)").format(name=panel_name(), who=who, terms=" + ".join(terms))
        if r.n_heads > 1:
            lo, hi = int(ro.columns[0]), int(ro.columns[-1])
            cols = f"d{lo}" if lo == hi else f"d{lo}–d{hi}"
            text += f"<br><span style='color:{GLOSS}'>" + translate(
                "Readout", "head {head}/{heads} (chosen in Controls) mixes its slice V[:, {cols}] into {noun_en} {cols} of O"
            ).format(head=ro.head + 1, heads=r.n_heads, cols=cols, noun_en=noun(hi - lo + 1, 'column')) + "</span>"
        self.header.setText(text)

    def _draw_legend(self, ro, keys, tokens):
        entries = []
        for slot, j in enumerate(keys):
            entries.append(f"<span style='color:{key_colour(slot).name()}'>■</span>&nbsp;{escape(tokens[j])}"
                           f"&nbsp;{escape(format_weight(ro.weights[j]))}")
        rest = len(ro.attended()) - len(keys)
        if rest:
            w = float(ro.weights.sum() - ro.weights[keys].sum())
            entries.append(f"<span style='color:{OTHERS_COLOR}'>■</span>&nbsp;" + translate(
                "Readout", "{rest}&nbsp;others&nbsp;{weight}").format(rest=rest, weight=format_fixed(w)))
        entries.append("<b>—●</b>&nbsp;" + translate("Readout", "total") + "&nbsp;O<sub>i,d</sub>")
        entries.append("<b>★</b>&nbsp;O<sub>i</sub>")
        self.legend.setText("&nbsp;&nbsp; ".join(entries))

