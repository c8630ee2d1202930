"""Positions: the sinusoidal PE(L, D) added to X, or ALiBi's per-head bias on the scores, and
"shuffle tokens" — with no positions the outputs permute exactly as the tokens do (attention is
blind to order); with positions they do not."""
from explorer.widgets.html_escape import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QSignalBlocker
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout

from explorer.core.alibi import alibi_bias
from explorer.widgets.fitting_text import FittingText
from explorer.widgets.heatmap import Heatmap
from explorer.widgets.number_text import format_number
from explorer.widgets.palette import head_colour
from explorer.widgets.plots import lesson_plot

from explorer.i18n import translate

from .base import Panel

FORMULA = QT_TRANSLATE_NOOP("Positions", "<b>Sinusoidal positions</b> PE[p, 2i] = sin(p / 10000<sup>2i/D</sup>), "
           "PE[p, 2i+1] = cos(p / 10000<sup>2i/D</sup>) — one vector of sines and cosines per position")
PROMPT = QT_TRANSLATE_NOOP("Positions", "Shuffle the tokens to test permutation equivariance: without positions, attention cannot tell "
          "the order of its inputs (「猫追狗」和「狗追猫」在它眼里是同一袋词).")
DIRECT_NOTE = QT_TRANSLATE_NOOP("Positions", "Sinusoidal positions are added to the token vectors X, and this session edits Q, K, V "
               "directly. Switch to projected mode to see and use them — or use ALiBi, which needs no X.")
ALIBI_FORMULA = QT_TRANSLATE_NOOP("Positions", "<b>ALiBi</b> (Press et al.): no position vectors; head h adds −m<sub>h</sub>·|i − j| to its "
                 "scores, so a key costs more the further it is. Slopes m<sub>h</sub> = 2<sup>−8h/H</sup>.")
MAP_MIN_H = 200  # px: the PE or bias map's rows stay readable with its axes and colour bar around them
ALIBI_CROSS = QT_TRANSLATE_NOOP("Positions", " In cross-attention i and j count positions in two different sequences: an experiment — "
               "encoder–decoder models do not put ALiBi on cross-attention.")


class PositionsPanel(Panel):
    """PE heatmap, the "add positions to X" toggle, and the shuffle check (F12, F13)."""

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.add = QCheckBox(self)
        self.keep_text(self.add.setToolTip, "Positions", "X + PE is what W_q, W_k and W_v project when this is on")
        self.add.toggled.connect(lambda on: model.set_param("positions", "sinusoidal" if on else "none"))
        self.alibi = QCheckBox(self)
        self.keep_text(self.alibi.setToolTip, "Positions",
                       "Head h adds −m_h·|i − j| to score (i, j) after the scale, before the temperature")
        self.alibi.toggled.connect(lambda on: model.set_param("positions", "alibi" if on else "none"))
        fg, bg = (self.palette().color(role) for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Base))
        self.slopes = lesson_plot(self, fg, bg, "", "", "", min_size=(160, 120))
        self._fg = fg
        self.slope_bars = pg.BarGraphItem(x=[], height=[], width=0.6, brush=pg.mkBrush(fg))
        self.bias_map = Heatmap(cmap="diverging", colorbar_label="bias", parent=self)
        self.slopes.addItem(self.slope_bars)
        self.to_projected = QPushButton(self)
        self.keep_text(self.to_projected.setText, "Positions", "Switch to projected mode")
        self.keep_text(self.to_projected.setToolTip, "Positions", "Q = X·W_qᵀ, K = X·W_kᵀ, V = X·W_vᵀ, starting "
                       "from X and W that reproduce the current Q, K, V exactly")
        self.to_projected.clicked.connect(lambda checked=False: model.set_param("source", "projected"))
        self.note = QLabel(self)
        self.keep_text(self.note.setText, "Positions", DIRECT_NOTE)
        self.note.setWordWrap(True)
        self.heatmap = Heatmap(cmap="diverging", colorbar_label="PE", parent=self)
        for view in (self.heatmap, self.bias_map):  # a low dock scrolls rather than squeeze them to a line
            view.setMinimumHeight(MAP_MIN_H)

        self.seed = QSpinBox(self)
        self.seed.setRange(0, 999_999)
        self.keep_text(self.seed.setPrefix, "Positions", "seed ")
        self.keep_text(self.seed.setToolTip, "Positions", "Which permutation: the same seed shuffles the same way")
        self.shuffle = QPushButton(self)
        self.keep_text(self.shuffle.setText, "Positions", "Shuffle tokens")
        self.keep_text(self.shuffle.setToolTip, "Positions", "Reorder the tokens (rows of X, or of Q, K, V) and "
                       "compare the new output with the old output reordered the same way")
        self.side = QComboBox(self)
        self.side.addItem("", "keys")
        self.side.addItem("", "queries")
        self.keep_text(lambda text, box=self.side: box.setItemText(0, text), "Positions", "the keys")
        self.keep_text(lambda text, box=self.side: box.setItemText(1, text), "Positions", "the queries")
        self.keep_text(self.side.setToolTip, "Positions", "Cross-attention: shuffle the keys' sequence (the "
                       "weights' columns move, the outputs stay) or the queries' (the output rows move with them)")
        self.shuffle.clicked.connect(self._shuffle)
        self._shuffled = "keys"  # which side the last shuffle moved
        self.check = QLabel(self)
        self.check.setWordWrap(True)
        self._fitting = []
        self._write_texts()

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

    def _write_texts(self):
        """The check boxes (each with its short form for a narrow dock), the axes' titles: in the interface's
        language."""
        for old in self._fitting:  # (the texts of another language)
            old.widget.removeEventFilter(old)
            old.deleteLater()
        self._fitting = [
            FittingText(self.add, (translate("Positions", "add positions to X (before the projections)"),
                                   translate("Positions", "add positions to X"))),
            FittingText(self.alibi, (translate("Positions", "ALiBi: a linear bias per head on the scores"), "ALiBi"))]
        self.bias_map.set_titles(translate("Positions", "query token i"), translate("Positions", "key token j"))
        self.heatmap.set_titles(translate("Positions", "position"), translate("Positions", "dimension of X"))
        axis = self.bias_map.colorbar.axis
        axis.setLabel(translate("Positions", "bias"), **axis.labelStyle)
        for side, text in (("bottom", translate("Positions", "head h")), ("left", translate("Positions", "slope m_h"))):
            self.slopes.getPlotItem().getAxis(side).setLabel(text, color=self._fg.name())

    def language_changed(self):
        self._write_texts()
        super().language_changed()

    def render_heading(self):
        """The formula of the positions chosen (the settings): it follows at once, before the results."""
        m = self.model
        alibi = translate("Positions", ALIBI_FORMULA) + (translate("Positions", ALIBI_CROSS) if m.cross else "")
        self.caption.setText(alibi if m.settings.positions == "alibi" else translate("Positions", FORMULA))

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
            self.learned.setText(translate(
                "Positions", "This head comes from {name}, which learns a position vector per place (wpe) and adds "
                             "it to each token's embedding: X already carries the order, so “none” here adds nothing "
                             "more — order is not invisible to this head.").format(name=escape(head.name)))
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
        self.slopes.getPlotItem().setTitle(translate("Positions", "head {head}: m = {slope}").format(
            head=head + 1, slope=format_number(r.slopes[head])), size="9pt")
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
            self.check.setText(translate("Positions", PROMPT))
            return
        s = self.model.settings
        why = []
        if s.positions != "none":
            why.append(translate("Positions", "positions"))
        if s.causal:
            why.append(translate("Positions", "the causal mask"))
        both = translate("Positions", " and ")
        keys = self.model.cross and self._shuffled == "keys"
        if keys and not result.equivariant:
            text = translate("Positions", "<span style='color:#b00020'>✗ not the same output</span> (max difference "
                                          "{difference}): the keys moved with their values, but their positions count "
                                          "here ({why}), so each query weighs them differently.").format(
                difference=f"{result.max_difference:.3g}", why=both.join(why) or translate("Positions", "positions"))
        elif keys:
            text = translate("Positions", "<span style='color:#1a7f37'>✓ the same output</span> (max difference "
                                          "{difference}): the keys moved with their values, so only the weights' "
                                          "columns moved — each query still finds the same keys, wherever they stand."
                             ).format(difference=f"{result.max_difference:.1e}")
        elif result.equivariant:
            text = translate("Positions", "<span style='color:#1a7f37'>✓ equivariant</span>: the new output is the "
                                          "old output permuted the same way (max difference {difference}). Without "
                                          "positions, order is invisible to attention.").format(
                difference=f"{result.max_difference:.1e}")
        else:
            cause = both.join(why) or translate("Positions", "something that depends on position")
            text = translate("Positions", "<span style='color:#b00020'>✗ not equivariant</span>: the new output "
                                          "differs from the old one permuted (max difference {difference}) — {cause} "
                                          "tie each output to its place.").format(
                difference=f"{result.max_difference:.3g}", cause=cause)
        self.check.setText(text)
