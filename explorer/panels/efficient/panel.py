"""F18 Efficient attention: a money-saving school tried on the shown head's own Q, K, V — which cells it
computes, its weights beside the exact ② of the session, how far its output lands, and what it costs.

The exact head is the session's results; the approximation and its error figures come from the model's
``EfficientView`` (on a worker when the head is large: "computing…" until they come), the costs from
``explorer.core.efficient``. The mechanism and its parameters live in this panel (not in the session).
"""
import weakref

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QSignalBlocker, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (QComboBox, QFrame, QHBoxLayout, QLabel, QScrollArea, QSpinBox,
                               QVBoxLayout, QWidget)

from explorer.core.efficient import MECHANISMS, Mechanism, cost_curve, head_inputs, multiply_adds
from explorer.core.linear_attention import FEATURE_MAPS
from explorer.core.plural import noun
from explorer.core.sparse_patterns import PATTERNS
from explorer.model import SELECTION, VALUES
from explorer.model.background import COMPUTING, FAILED
from explorer.model.efficient_view import EfficientView
from explorer.widgets.heatmap import Heatmap
from explorer.widgets.html_escape import escape
from explorer.widgets.nice import nice_ceiling
from explorer.widgets.number_text import format_number
from explorer.widgets.palette import BAD, MUTED
from explorer.widgets.tile_grid import TileGrid

from ..base import Panel
from ..worker_answers import WorkerAnswers
from .cost_plot import CostPlot, curve_lengths
from explorer.i18n import in_language, translate

from .words import (NAMES, NO_BIAS, NO_CAUSAL_LINFORMER, NO_MASS, NOT_SAVED, PHI_NO_SCALE, SCHOOLS_ZH, SENTENCES, SHORT,
                    SHOWN, TIPS, count, sig3)

PARAM_MAX = 8192  # w, l, g: as far as the cost curves go
MAXIMA = {"seed": 99_999, "features": 1024}  # m: 1024 features of an L = 4096 session are 32 MiB already
MAP_MIN_H = 170  # px: a heatmap keeps its rows readable; a low dock scrolls
NARROW = 900  # px: below this the cost plot and the chapter's sentence go under the two heatmaps
NARROWEST = 560  # px: below this every tile takes the whole width, one under another
CAPTION_MIN_H = 48  # px: about three lines of the sentence show; the rest scrolls in its tile
PARAMS = {  # which controls each mechanism uses
    "window": ("window",), "global_window": ("window", "global_tokens"), "strided": ("stride",),
    "fixed": ("stride", "summary"), "linformer": ("rank", "projection", "seed"),
    "linear": ("phi",), "performer": ("features", "seed"),
}
LABELS = {"window": "w", "stride": "l", "summary": "c", "global_tokens": "g", "rank": "k", "features": "m",
          "seed": "seed", "phi": "φ", "projection": "E = F"}
CHOICES = {"phi": [(phi.replace("elu+1", "elu + 1"), phi) for phi in FEATURE_MAPS],
           "projection": [(QT_TRANSLATE_NOOP("Efficient", "random N(0, 1/k)"), "random"),
                          (QT_TRANSLATE_NOOP("Efficient", "mean pooling"), "pooling")]}


class EfficientPanel(WorkerAnswers, Panel):
    """Mechanism and parameters; A′ beside the exact A; error figures; cost against L² (log–log)."""

    snug = True

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        fg, bg = (self.palette().color(role) for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Base))
        self.kind = QComboBox(self)
        for kind in MECHANISMS:
            self.kind.addItem(NAMES[kind], kind)
            self.keep_text(lambda text, i=self.kind.count() - 1, box=self.kind: box.setItemText(i, text), "Efficient",
                           NAMES[kind])
        self.keep_text(lambda text, box=self.kind: box.setToolTip(text + ". " + translate("Efficient", NOT_SAVED)),
                       "Efficient", TIPS["kind"])
        self.kind.currentIndexChanged.connect(self._changed)
        self.boxes, self.box_labels = {}, {}
        controls = QHBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        controls.addWidget(self.kind)
        starts = dict(window=2, stride=2, summary=1, global_tokens=1, rank=2, features=64, seed=0)
        for name, start in starts.items():
            box = QSpinBox(self)
            box.setRange(0 if name in ("global_tokens", "seed") else 1, MAXIMA.get(name, PARAM_MAX))
            box.setValue(start)
            self._add_control(controls, name, box)
            box.valueChanged.connect(self._changed)
        for name, items in CHOICES.items():
            box = QComboBox(self)
            for i, (text, value) in enumerate(items):
                box.addItem(text, value)
                self.keep_text(lambda said, i=i, box=box: box.setItemText(i, said), "Efficient", text)
            self._add_control(controls, name, box)
            box.currentIndexChanged.connect(self._changed)
        controls.addStretch(1)
        self.view = EfficientView(model, self)
        self.view.work.changed.connect(self.arrived)  # (a bound method: no cycle keeps the panel)
        self._drawn_work = None  # (state, result) of the view last drawn

        self.caption = self._label()
        self.caption.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.caption_tile = QScrollArea(self)  # the chapter's sentence scrolls in its tile, never pushing the maps
        self.caption_tile.setWidgetResizable(True)
        self.caption_tile.setFrameShape(QFrame.Shape.NoFrame)
        self.caption_tile.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.caption_tile.setWidget(self.caption)
        self.caption_tile.setMinimumHeight(CAPTION_MIN_H)
        self.readout = self._label()
        self.notes = self._label()
        self.approx_title = self._label()
        self.exact_title = self._label()
        self.keep_text(self.exact_title.setText, "Efficient", "② exact A = softmax(S)")
        self.keep_text(self.exact_title.setToolTip, "Efficient",
                       "The session's own weights ② of the shown head, as the Weights panel shows them")
        self.approx = Heatmap(cmap="sequential", row_title="query", col_title="key", colorbar_label="weight",
                              masked_text="·", parent=self)
        self.mixed = Heatmap(cmap="diverging", row_title="query", col_title="key", colorbar_label="P·F", parent=self)
        self.exact = Heatmap(cmap="sequential", row_title="query", col_title="key", colorbar_label="weight",
                             masked_text="0", parent=self)
        for name, view in (("approx", self.approx), ("mixed", self.mixed), ("exact", self.exact)):
            view.setObjectName(f"efficient_{name}")
            self.keep_text(lambda text, view=view: view.set_titles(text, translate("Efficient", "key")), "Efficient",
                           "query")
        for view in (self.approx, self.exact):
            self.keep_text(lambda text, axis=view.colorbar.axis: axis.setLabel(text, **axis.labelStyle), "Efficient",
                           "weight")
        # No cycle panel → heatmap → panel: a dropped panel goes at once, not whenever the collector runs (a
        # collection inside a later paint, deleting its Qt objects then, crashed the tests)
        tip = weakref.WeakMethod(self._approx_tip)
        self.approx.tooltip_provider = self.mixed.tooltip_provider = (
            lambda row, col: tip()(row, col) if tip() is not None else "")
        for view in (self.approx, self.mixed, self.exact):
            view.setMinimumHeight(MAP_MIN_H)
        self.mixed.hide()
        self.cost = CostPlot(self, fg, bg)
        self.left_tile, self.right_tile = QWidget(self), QWidget(self)
        for tile, title, views in ((self.left_tile, self.approx_title, (self.approx, self.mixed)),
                                   (self.right_tile, self.exact_title, (self.exact,))):
            box = QVBoxLayout(tile)
            box.setContentsMargins(0, 0, 0, 0)
            box.setSpacing(2)
            box.addWidget(title)
            for view in views:
                box.addWidget(view, 1)
        # Wide: the two heatmaps and the cost plot in a row, the sentence under them. Narrow: the heatmaps,
        # then the cost plot beside the sentence. Narrowest: one under another.
        self.tiles = TileGrid((self.left_tile, self.right_tile, self.cost.widget, self.caption_tile), (
            (NARROW, ((0, 0), (0, 1), (0, 2), (1, 0, 1, 3)), (4, 1, 0, 0)),
            (NARROWEST, ((0, 0), (0, 1), (1, 0), (1, 1)), (3, 2, 0, 0)),
            (0, ((0, 0), (1, 0), (2, 0), (3, 0)), (1, 1, 1, 0))), spacing=6)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(controls)
        layout.addWidget(self.readout)
        layout.addWidget(self.notes)
        layout.addLayout(self.tiles, 1)
        self.approximation = None  # the last Approximation drawn, and its error figures
        self.figures = None
        self._drawn_head = None
        self._show_params()

    # ----- building -----------------------------------------------------------------------------
    def _label(self):
        label = QLabel(self)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText)
        return label

    def _add_control(self, row, name, box):
        label = QLabel(LABELS[name], self)
        if name == "seed":
            self.keep_text(label.setText, "Efficient", "seed")
        label.setBuddy(box)
        self.keep_text(box.setToolTip, "Efficient", TIPS[name])
        self.keep_text(label.setToolTip, "Efficient", TIPS[name])
        row.addSpacing(6)
        row.addWidget(label)
        row.addWidget(box)
        self.boxes[name], self.box_labels[name] = box, label

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.tiles.fit(self.width())

    # ----- state --------------------------------------------------------------------------------
    def mechanism(self):
        """The Mechanism the controls describe."""
        values = {name: box.currentData() if name in CHOICES else box.value() for name, box in self.boxes.items()}
        return Mechanism(kind=self.kind.currentData(), **values)

    def set_mechanism(self, kind, **params):
        """Choose a mechanism and parameters as a person would (used by tests and screenshots)."""
        for name, value in params.items():
            box = self.boxes[name]
            if name in CHOICES:
                box.setCurrentIndex(box.findData(value))
            else:
                box.setValue(value)
        self.kind.setCurrentIndex(self.kind.findData(kind))

    def _show_params(self):
        used = PARAMS[self.kind.currentData()]
        for name in LABELS:
            box = self.boxes[name]
            box.setVisible(name in used)
            self.box_labels[name].setVisible(name in used)
        self.boxes["seed"].setEnabled(self.kind.currentData() == "performer"
                                      or self.boxes["projection"].currentData() == "random")
        stride = self.boxes["stride"].value()
        self.boxes["summary"].setMaximum(stride)  # c ≤ l: a block has l positions

    def _changed(self, *_):
        self._show_params()
        if self.isVisible() and self._on_screen and not self.waiting():
            self._draw()
        else:
            self._stale |= VALUES  # drawn when it is shown

    # ----- drawing ------------------------------------------------------------------------------
    def language_changed(self):
        self._drawn_work = None  # the same answer, said again in the new language
        super().language_changed()

    def render(self, flags):
        if flags == SELECTION and self._drawn_head == self.model.settings.selected_head:
            return  # a row or key clicked elsewhere: nothing here follows the selected row
        self._draw()

    def _draw(self):
        """What the results say at once (the exact ②, the notes, the cost plot); the mechanism's own numbers are
        asked of the model (at once when small, else on its worker: ``_show_tried`` draws them when they come)."""
        m, r = self.model, self.model.results
        if r is None:
            return
        h = self._drawn_head = min(m.settings.selected_head, r.n_heads - 1)
        n_k = r.heads.weights.shape[2]
        for name in ("rank", "global_tokens"):  # k ≤ L and g ≤ L: a shorter session clamps them, quietly
            with QSignalBlocker(self.boxes[name]):
                self.boxes[name].setMaximum(max(1, n_k))
        mech = self.mechanism()
        allowed = r.allowed(h)
        self.exact.set_matrix(r.heads.weights[h], row_labels=m.query_tokens, col_labels=m.tokens, levels=(0.0, 1.0),
                              masked=None if allowed is None else ~allowed, finite=True,
                              overview=r.overview("weights", h))
        self.caption.setText(f"{escape(translate('Efficient', SENTENCES[mech.kind]))}<br><span style='color:{MUTED}'>"
                             f"「{escape(SCHOOLS_ZH)}」</span>")
        self.notes.setText(self.notes_text(mech, allowed is not None, r.slopes is not None))
        self.notes.setVisible(bool(self.notes.text()))
        q, _, v, _ = head_inputs(r, h)
        d, d_v = q.shape[1], v.shape[1]
        lengths = curve_lengths(n_k)
        full, mine = cost_curve(mech, lengths, d, d_v, causal=allowed is not None)
        bill = self.cost_text(mech, n_k, d, d_v, allowed is not None)
        self.cost.show(translate("Efficient", SHORT[mech.kind]), lengths, full, mine, n_k, bill)
        self.ask_view(lambda: self.view.ask(mech, h))

    def show_answer(self):
        """The mechanism's weights and figures once made; while they are made on the worker, "computing…" over
        what was shown before."""
        work = self.view.work
        drawn = (work.state, id(work.result))
        if drawn == self._drawn_work:
            return
        self._drawn_work = drawn
        if work.state == FAILED:
            self.readout.setText(f"<span style='color:{BAD}'>{escape(in_language(work.reason))}</span>")
            self.readout.setToolTip("")
            return
        if work.state == COMPUTING:
            r = self.model.results
            cells = 0 if r is None else int(np.prod(r.heads.weights.shape[1:]))
            before = translate("Efficient", " — what is shown is from before the last change") if (
                self.approximation is not None) else ""
            name = escape(translate("Efficient", NAMES[self.kind.currentData()]))
            self.readout.setText(f"<span style='color:{MUTED}'>" + translate(
                "Efficient", "<b>computing…</b> {name} on {cells} score cells").format(name=name, cells=count(cells))
                + f"{before}</span>")
            return
        if work.result is not None:
            self._draw_tried(work.result)

    def _draw_tried(self, tried):
        m, r = self.model, self.model.results
        mech, h, approx = tried.mechanism, tried.head, tried.approximation
        self.approximation, self.figures = approx, tried.figures
        rows, cols = m.query_tokens, m.tokens
        shown = "pattern" if mech.kind in PATTERNS else mech.kind
        linformer = mech.kind == "linformer" and not approx.distributions  # random E, F: signed mixes
        if mech.kind == "linformer" and not linformer:
            shown = "pooling"
        elif mech.kind == "performer":
            shown = "linear"
        self.approx.setVisible(not linformer)
        self.mixed.setVisible(linformer)
        heads = translate("Efficient", " · head {head}/{heads}").format(head=h + 1, heads=r.n_heads) if r.n_heads > 1 else ""
        title, tip = (translate("Efficient", text) for text in SHOWN[shown])
        self.approx_title.setText(f"{escape(title)}{heads}")  # the mechanism is named in its chooser above
        self.approx_title.setToolTip(tip)
        if linformer:
            reach = nice_ceiling(max(float(np.abs(approx.weights).max()), 1e-12))
            self.mixed.set_matrix(approx.weights, row_labels=rows, col_labels=cols, levels=(-reach, reach),
                                  overview=tried.overview)
        else:
            self.approx.set_matrix(approx.weights, row_labels=rows, col_labels=cols, levels=(0.0, 1.0),
                                   masked=tried.outside, finite=True, overview=tried.overview)
        n_q, n_k = approx.weights.shape
        self.readout.setText(self.readout_text(mech, approx, tried.figures, n_q, n_k, tried.cells))
        self.readout.setToolTip(translate("Efficient", NO_MASS) if approx.computed is None else "")

    @staticmethod
    def cost_text(mech, n_k, d, d_v, causal):
        """The bill at the session's L: the mechanism's multiply-adds against full attention's L²·(d + d_v)."""
        mine, full = multiply_adds(mech, n_k, d, d_v, causal), n_k * n_k * (d + d_v)
        return translate("Efficient", "{mine} vs {full} at L = {L} ({ratio}×)").format(
            mine=count(mine), full=count(full), L=n_k, ratio=f"{mine / full:.2g}")

    @staticmethod
    def readout_text(mech, approx, figures, n_q, n_k, cells=None):
        """The line of figures: cells computed (``cells``, counted with the approximation), output error, KL, mass
        inside."""
        table = n_q * n_k
        if approx.computed is not None:
            cells = int(approx.computed.sum()) if cells is None else cells
            work = translate("Efficient", "<b>{cells}</b> of {table} {noun_en} ({share} %)").format(
                cells=count(cells), table=count(table), noun_en=noun(table, 'cell'), share=f"{100 * cells / table:.0f}")
        elif mech.kind == "linformer":
            work = translate("Efficient", "L·k = <b>{scores}</b> {noun_en}, against k = {k} projected {keys_en}").format(
                scores=count(n_q * mech.rank), noun_en=noun(n_q * mech.rank, 'score'), k=mech.rank,
                keys_en=noun(mech.rank, 'key'))
        else:
            work = translate("Efficient", "<b>no</b> score table")
        parts = [work]
        frob = translate("Efficient", "—, O is all zeros") if figures.frobenius is None else sig3(figures.frobenius)
        parts.append(f"‖O′ − O‖/‖O‖ = <b>{frob}</b>")
        if figures.kl is None:
            parts.append(translate("Efficient", "KL: — (A′ rows are not distributions)") if not approx.distributions
                         else "KL: —")
        else:
            parts.append(translate("Efficient", "mean KL(A′‖A) = <b>{kl}</b> nats ({rows} {noun_en})").format(
                kl=sig3(figures.kl), rows=figures.kl_rows, noun_en=noun(figures.kl_rows, 'row')))
        if figures.mass is not None or approx.computed is None:  # no pattern: "—", its tooltip says why
            parts.append(translate("Efficient", "exact mass inside = <b>{mass}</b>").format(
                mass="—" if figures.mass is None else sig3(figures.mass)))
        return " · ".join(parts)

    @staticmethod
    def notes_text(mech, causal, alibi):
        notes = []
        if mech.kind == "linformer" and causal:
            notes.append(f"<span style='color:{BAD}'>{escape(translate('Efficient', NO_CAUSAL_LINFORMER))}</span>")
        if mech.kind == "linear":
            notes.append(escape(translate("Efficient", PHI_NO_SCALE)))
        if alibi and mech.kind in ("linformer", "linear", "performer"):
            notes.append(escape(translate("Efficient", NO_BIAS)))
        return " ".join(notes)

    def _approx_tip(self, row, col):
        a = self.approximation
        if a is None or row >= a.weights.shape[0] or col >= a.weights.shape[1]:
            return ""
        q, k = self.model.query_tokens[row], self.model.tokens[col]
        if a.computed is not None and not a.computed[row, col]:
            return f"A′[{q} → {k}] = 0\n" + translate("Efficient", "not computed: outside the pattern (or masked)")
        return f"A′[{q} → {k}] = {format_number(a.weights[row, col])}"
