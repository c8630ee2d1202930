"""Positions: the sinusoidal PE(L, D) added to X, or ALiBi's per-head bias on the scores, and
"shuffle tokens" — with no positions the outputs permute exactly as the tokens do (attention is
blind to order); with positions they do not."""
from explorer.widgets.html_escape import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout

from explorer.core.alibi import alibi_bias
from explorer.widgets.fitting_text import FittingText
from explorer.widgets.heatmap import Heatmap
from explorer.widgets.number_text import format_number
from explorer.widgets.palette import head_colour
from explorer.widgets.plots import lesson_plot

from .base import Panel

FORMULA = ("<b>Sinusoidal positions</b> PE[p, 2i] = sin(p / 10000<sup>2i/D</sup>), "
           "PE[p, 2i+1] = cos(p / 10000<sup>2i/D</sup>) — one vector of sines and cosines per position")
PROMPT = ("Shuffle the tokens to test permutation equivariance: without positions, attention cannot tell "
          "the order of its inputs (「猫追狗」和「狗追猫」在它眼里是同一袋词).")
DIRECT_NOTE = ("Sinusoidal positions are added to the token vectors X, and this session edits Q, K, V "
               "directly. Switch to projected mode to see and use them — or use ALiBi, which needs no X.")
ALIBI_FORMULA = ("<b>ALiBi</b> (Press et al.): no position vectors; head h adds −m<sub>h</sub>·|i − j| to its "
                 "scores, so a key costs more the further it is. Slopes m<sub>h</sub> = 2<sup>−8h/H</sup>.")
MAP_MIN_H = 200  # px: the PE or bias map's rows stay readable with its axes and colour bar around them
ALIBI_CROSS = (" In cross-attention i and j count positions in two different sequences: an experiment — "
               "encoder–decoder models do not put ALiBi on cross-attention.")


class PositionsPanel(Panel):
    """PE heatmap, the "add positions to X" toggle, and the shuffle check (F12, F13)."""

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.caption = QLabel(FORMULA, self)
        self.caption.setWordWrap(True)
        self.add = QCheckBox("add positions to X (before the projections)", self)
        self.add.setToolTip("X + PE is what W_q, W_k and W_v project when this is on")
        self.add.toggled.connect(lambda on: model.set_param("positions", "sinusoidal" if on else "none"))
        self.alibi = QCheckBox("ALiBi: a linear bias per head on the scores", self)
        self.alibi.setToolTip("Head h adds −m_h·|i − j| to score (i, j) after the scale, before the temperature")
        self.alibi.toggled.connect(lambda on: model.set_param("positions", "alibi" if on else "none"))
        fg, bg = (self.palette().color(role) for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Base))
        self.slopes = lesson_plot(self, fg, bg, "", "head h", "slope m_h", min_size=(160, 120))
        self.slope_bars = pg.BarGraphItem(x=[], height=[], width=0.6, brush=pg.mkBrush(fg))
        self.bias_map = Heatmap(cmap="diverging", row_title="query token i", col_title="key token j",
                                colorbar_label="bias", parent=self)
        self.slopes.addItem(self.slope_bars)
        self.to_projected = QPushButton("Switch to projected mode", self)
        self.to_projected.setToolTip("Q = X·W_qᵀ, K = X·W_kᵀ, V = X·W_vᵀ, starting from X and W that "
                                     "reproduce the current Q, K, V exactly")
        self.to_projected.clicked.connect(lambda checked=False: model.set_param("source", "projected"))
        self.note = QLabel(DIRECT_NOTE, self)
        self.note.setWordWrap(True)
        self.heatmap = Heatmap(cmap="diverging", row_title="position", col_title="dimension of X",
                               colorbar_label="PE", parent=self)
        for view in (self.heatmap, self.bias_map):  # a low dock scrolls rather than squeeze them to a line
            view.setMinimumHeight(MAP_MIN_H)

        self.seed = QSpinBox(self)
        self.seed.setRange(0, 999_999)
        self.seed.setPrefix("seed ")
        self.seed.setToolTip("Which permutation: the same seed shuffles the same way")
        self.shuffle = QPushButton("Shuffle tokens", self)
        self.shuffle.setToolTip("Reorder the tokens (rows of X, or of Q, K, V) and compare the new output with "
                                "the old output reordered the same way")
        self.side = QComboBox(self)
        self.side.addItem("the keys", "keys")
        self.side.addItem("the queries", "queries")
        self.side.setToolTip("Cross-attention: shuffle the keys' sequence (the weights' columns move, the outputs "
                             "stay) or the queries' (the output rows move with them)")
        self.shuffle.clicked.connect(self._shuffle)
        self._shuffled = "keys"  # which side the last shuffle moved
        self.check = QLabel(PROMPT, self)
        self.check.setWordWrap(True)
        self._fitting = [FittingText(self.add, ("add positions to X (before the projections)", "add positions to X")),
                         FittingText(self.alibi, ("ALiBi: a linear bias per head on the scores", "ALiBi"))]

        top = QHBoxLayout()
        top.addWidget(self.add, 1)
        top.addWidget(self.to_projected)
        shuffle_row = QHBoxLayout()
        shuffle_row.addWidget(self.shuffle)
        shuffle_row.addWidget(self.side)
        shuffle_row.addWidget(self.seed)
        shuffle_row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.caption)
        layout.addLayout(top)
        layout.addWidget(self.alibi)
        layout.addWidget(self.note)
        self.learned = QLabel(self)  # a GPT-2 head: its positions are inside X already
        self.learned.setWordWrap(True)
        layout.addWidget(self.learned)
        layout.addWidget(self.heatmap, 3)
        self.alibi_row = alibi_row = QHBoxLayout()  # side by side: the bias map keeps the panel's height
        alibi_row.addWidget(self.bias_map, 3)
        alibi_row.addWidget(self.slopes, 1)
        layout.addLayout(alibi_row, 3)
        layout.addLayout(shuffle_row)
        layout.addWidget(self.check)
        layout.addStretch(0)  # with no map to show (direct mode), what is left of the dock goes below the text

    def render_heading(self):
        """The formula of the positions chosen (the settings): it follows at once, before the results."""
        m = self.model
        self.caption.setText(ALIBI_FORMULA + (ALIBI_CROSS if m.cross else "")
                             if m.settings.positions == "alibi" else FORMULA)

    def render(self, flags):
        m, r = self.model, self.model.results
        alibi = r.slopes is not None
        for box, value in ((self.add, "sinusoidal"), (self.alibi, "alibi")):
            with QSignalBlocker(box):
                box.setChecked(m.settings.positions == value)
        self.add.setEnabled(m.projected)
        self.to_projected.setVisible(not m.projected)
        self.note.setVisible(not m.projected and not alibi)
        head = m.state.model_head
        learned = head is not None and head.learned_positions and m.settings.positions == "none"
        self.learned.setVisible(learned)
        if learned:
            self.learned.setText(f"This head comes from {escape(head.name)}, which learns a position vector per "
                                 f"place (wpe) and adds it to each token's embedding: X already carries the "
                                 f"order, so “none” here adds nothing more — order is not invisible to this head.")
        self.render_heading()
        self.slopes.setVisible(alibi)
        self.heatmap.setVisible(not alibi and r.pe is not None)
        self.bias_map.setVisible(alibi)
        layout = self.layout()  # the stretch goes to the map shown, or below the text when none is (direct mode)
        layout.setStretchFactor(self.heatmap, 3 if self.heatmap.isVisibleTo(self) else 0)
        layout.setStretchFactor(self.alibi_row, 3 if alibi else 0)
        layout.setStretch(layout.count() - 1, 0 if alibi or r.pe is not None else 1)
        if alibi:
            self.draw_alibi(r, m.settings.selected_head)
        elif r.pe is not None:
            rows = [f"{p}: {t}" for p, t in enumerate(m.query_tokens)]
            cols = [f"x{j}" for j in range(r.pe.shape[1])]
            self.heatmap.set_matrix(r.pe, row_labels=rows, col_labels=cols, levels=(-1.0, 1.0))
        self.render_check()

    def draw_alibi(self, r, head):
        """The slopes of every head, and the bias −m_h·|i − j| of the shown head."""
        heads = len(r.slopes)
        self.slope_bars.setOpts(x=list(range(1, heads + 1)), height=list(r.slopes),
                                brushes=[pg.mkBrush(head_colour(h)) for h in range(heads)])
        self.slopes.getAxis("bottom").setTicks([[(h, str(h)) for h in range(1, heads + 1)], []])
        self.slopes.setXRange(0.4, heads + 0.6, padding=0)
        self.slopes.setYRange(0, max(r.slopes) * 1.1, padding=0)
        m = self.model
        bias = alibi_bias(r.slopes[head], np.arange(len(m.query_tokens)), len(m.tokens))  # query i, key j
        self.slopes.getPlotItem().setTitle(f"head {head + 1}: m = {format_number(r.slopes[head])}", size="9pt")
        reach = float(-bias.min()) or 1.0
        self.bias_map.set_matrix(bias, row_labels=m.query_tokens, col_labels=m.tokens,
                                 levels=(-reach, reach))

    def _shuffle(self):
        self._shuffled = self.side.currentData()
        self.model.shuffle_tokens(self.seed.value(), side=self._shuffled)

    def render_check(self):
        self.side.setVisible(self.model.cross)
        result = self.model.shuffle_result()
        if result is None:
            self.check.setText(PROMPT)
            return
        s = self.model.settings
        why = []
        if s.positions != "none":
            why.append("positions")
        if s.causal:
            why.append("the causal mask")
        keys = self.model.cross and self._shuffled == "keys"
        if keys and not result.equivariant:
            text = (f"<span style='color:#b00020'>✗ not the same output</span> (max difference "
                    f"{result.max_difference:.3g}): the keys moved with their values, but their positions count "
                    f"here ({' and '.join(why) or 'positions'}), so each query weighs them differently.")
        elif keys:
            text = (f"<span style='color:#1a7f37'>✓ the same output</span> (max difference "
                    f"{result.max_difference:.1e}): the keys moved with their values, so only the weights' columns "
                    f"moved — each query still finds the same keys, wherever they stand.")
        elif result.equivariant:
            text = (f"<span style='color:#1a7f37'>✓ equivariant</span>: the new output is the old output "
                    f"permuted the same way (max difference {result.max_difference:.1e}). Without positions, "
                    f"order is invisible to attention.")
        else:
            cause = " and ".join(why) or "something that depends on position"
            text = (f"<span style='color:#b00020'>✗ not equivariant</span>: the new output differs from the "
                    f"old one permuted (max difference {result.max_difference:.3g}) — {cause} tie each "
                    f"output to its place.")
        self.check.setText(text)
