"""F17 The Transformer block: the session's attention inside one block of a model — norm → attention → + residual
→ norm → FFN → + residual, each step a live matrix — and the residual stream's size over N stacked blocks.

The chapter: "归一化 → 注意力(token 之间沿 L 轴交流)→ 加回残差流;再归一化 → FFN(每个 token 独立沿 D 轴精加工)→
再加回。交流一拍、加工一拍,轮流往残差流里存款". The numbers come from ``explorer.model.block_view`` (which
calls ``explorer.core.block_stack``, on a worker when large: "computing…" until they come); this file only draws
them.
"""

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QSignalBlocker, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (QBoxLayout, QComboBox, QFrame, QHBoxLayout, QLabel, QPushButton, QScrollArea,
                               QSpinBox, QVBoxLayout, QWidget)

from explorer.core.block import ACTIVATIONS, FFN_MULTS, NORMS, PLACEMENTS
from explorer.i18n import in_language, translate
from explorer.model.background import COMPUTING
from explorer.model.block_view import BlockView
from explorer.weak import weakly
from explorer.widgets.heatmap import Heatmap
from explorer.widgets.html_escape import escape
from explorer.widgets.number_text import format_number
from explorer.widgets.palette import BLUE, MUTED
from explorer.widgets.plots import lesson_plot
from explorer.widgets.wrap_row import WrapRow

from .base import Panel
from .worker_answers import WorkerAnswers

NODES = 8  # x, then seven steps: both orders of the block have eight nodes
NODE_H = 120  # px: a node's heatmap, small enough for a chain, tall enough for a few rows of numbers
CHAIN_MIN_W = 240
CHAIN_MIN_H = 2 * NODE_H  # px: at least two nodes in view when the panel stacks the plot under the chain
NARROW = 560  # px: below this width the plot of the residual norm goes under the chain
FORMULAS = {
    "pre": "<b>Pre-LN</b> &nbsp; h = x + Attn(Norm₁(x)), &nbsp; out = h + FFN(Norm₂(h))",
    "post": "<b>Post-LN</b> &nbsp; h = Norm₁(x + Attn(x)), &nbsp; out = Norm₂(h + FFN(h))",
}
WHOSE = QT_TRANSLATE_NOOP("Block", "<br><small>Attn is the session's own attention (its W_q, W_k, W_v, W_o, heads, mask, scale); the norms' γ, β "
         "and the FFN's weights are drawn from the seed.</small>")
CHAPTER = QT_TRANSLATE_NOOP("Block", "归一化 → 注意力 (token 之间沿 L 轴交流) → 加回残差流; 再归一化 → FFN (每个 token 独立沿 D 轴精加工) → "
           "再加回 — talk along L, work along D, each deposits into the residual stream.")
TIPS = {
    "placement": QT_TRANSLATE_NOOP("Block", "Where the norms sit. Pre-LN (GPT-2, Llama): each sublayer reads a normalised copy and adds to "
                 "the raw stream, which keeps growing. Post-LN (the original Transformer, BERT; PyTorch's "
                 "TransformerEncoderLayer default): the stream itself is normalised after each addition."),
    "norm": QT_TRANSLATE_NOOP("Block", "LayerNorm: subtract each token's mean, divide by its standard deviation, then ×γ + β. RMSNorm (Llama): "
            "divide by the root mean square only, then ×γ."),
    "activation": QT_TRANSLATE_NOOP("Block", "The FFN's non-linearity: GELU x·Φ(x); its tanh approximation (GPT-2); ReLU max(0, x) (the "
                  "original Transformer); SwiGLU silu(x·W₁ᵀ) ⊙ x·W₃ᵀ (Llama's gated MLP)."),
    "ffn": QT_TRANSLATE_NOOP("Block", "The FFN's hidden width F as a multiple of D (4·D in the original Transformer and GPT-2)"),
    "seed": QT_TRANSLATE_NOOP("Block", "The FFN weights and the norms' γ, β are drawn from this seed (the attention's W are the session's): "
            "the same seed always gives the same block"),
    "blocks": QT_TRANSLATE_NOOP("Block", "How many copies of this block are stacked (the same weights in each) for the plot of the residual "
              "stream's size"),
}

WO_TIP = QT_TRANSLATE_NOOP("Block", "W_o becomes D × (its columns): the old W_o in its last rows, zeros above — so the heads' output is added "
          "to the last dimensions of X (its V columns after a switch from direct mode). One undo step.")
READY_TIP = QT_TRANSLATE_NOOP("Block", "Q = X·W_qᵀ, K = X·W_kᵀ, V = X·W_vᵀ with X = [Q | K | V] and W that "
                                      "reproduce the current Q, K, V exactly; and W_o becomes D × (its columns): the "
                                      "old W_o in its last rows, zeros above — so the heads' output is added to the "
                                      "last dimensions of X (its V columns after a switch from direct mode). One undo "
                                      "step.")


def _combo(parent, choices, tip):
    box = QComboBox(parent)
    for value, label in choices:
        box.addItem(label, value)
    box.setToolTip(tip)
    return box


def _spin(parent, low, high, prefix, tip):
    box = QSpinBox(parent)
    box.setRange(low, high)
    box.setPrefix(prefix)
    box.setKeyboardTracking(False)
    box.setToolTip(tip)
    return box


class BlockPanel(WorkerAnswers, Panel):
    """The block as a vertical chain of heatmaps (its nodes) beside a plot of ‖residual stream‖ over N blocks."""

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.view = BlockView(model, parent=self)
        self.view.work.changed.connect(self.arrived)
        self._shown_stack = False  # a block is drawn (kept while the next is computed)
        self.formula = QLabel(self)
        self.formula.setWordWrap(True)
        self.keep_text(lambda text, label=self.formula: label.setToolTip(text + translate("Block", WHOSE).replace("<br>", "\n")
                                                            .replace("<small>", "").replace("</small>", "")),
                       "Block", CHAPTER)
        self._narrow = False
        self.placement = _combo(self, PLACEMENTS, TIPS["placement"])
        self.norm = _combo(self, NORMS, TIPS["norm"])
        self.activation = _combo(self, ACTIVATIONS, TIPS["activation"])
        self.ffn = _combo(self, [(m, f"F = {m}·D") for m in FFN_MULTS], TIPS["ffn"])
        self.seed = _spin(self, 0, 999_999, "seed ", TIPS["seed"])
        self.blocks = _spin(self, 1, 64, "N = ", TIPS["blocks"])
        for box, key in ((self.placement, "placement"), (self.norm, "norm"), (self.activation, "activation"),
                         (self.ffn, "ffn"), (self.seed, "seed"), (self.blocks, "blocks")):
            self.keep_text(box.setToolTip, "Block", TIPS[key])
        self.keep_text(self.seed.setPrefix, "Block", "seed ")
        change = weakly(self._change)  # (the boxes are the panel's: no cycle)
        for name, box in (("placement", self.placement), ("norm", self.norm), ("activation", self.activation),
                          ("ffn_mult", self.ffn)):
            box.activated.connect(lambda i, name=name, box=box: change(**{name: box.itemData(i)}))
        self.seed.valueChanged.connect(lambda v: change(seed=v))
        self.blocks.valueChanged.connect(lambda v: change(blocks=v))

        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.note.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.make_ready = QPushButton(self)
        view = self.view
        self.make_ready.clicked.connect(lambda checked=False: view.make_ready())

        chain = QWidget()
        chain_layout = QVBoxLayout(chain)
        chain_layout.setContentsMargins(0, 0, 0, 0)
        chain_layout.setSpacing(2)
        self.captions, self.maps = [], []
        for _ in range(NODES):
            caption = QLabel(chain)
            caption.setWordWrap(True)
            heatmap = Heatmap(cmap="diverging", parent=chain)
            heatmap.setFixedHeight(NODE_H)
            chain_layout.addWidget(caption)
            chain_layout.addWidget(heatmap)
            self.captions.append(caption)
            self.maps.append(heatmap)
        chain_layout.addStretch(1)
        self.chain = QScrollArea(self)
        self.chain.setWidgetResizable(True)
        self.chain.setFrameShape(QFrame.NoFrame)
        self.chain.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.chain.setWidget(chain)
        self.chain.setMinimumWidth(CHAIN_MIN_W)

        fg, bg = (self.palette().color(role) for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Base))
        self.plot = lesson_plot(self, fg, bg, "", "", "", min_size=(180, 150))
        self.keep_text(lambda text, plot=self.plot: plot.getPlotItem().getAxis("bottom").setLabel(text, color=fg.name()),
                       "Block", "block n (0 = the input x)")
        self.keep_text(lambda text, plot=self.plot: plot.getPlotItem().getAxis("left").setLabel(text, color=fg.name()),
                       "Block", "mean ‖x_n‖ over tokens")
        self.keep_text(self.plot.setToolTip, "Block", "The residual stream's size after each of N stacked copies of "
                       "the block: post-LN ends each block in a norm, so it stays put; pre-LN keeps adding to the raw "
                       "stream")
        self.curve = self.plot.plot([], [], pen=pg.mkPen(BLUE, width=2), symbol="o", symbolSize=6,
                                    symbolBrush=pg.mkBrush(BLUE), symbolPen=None)
        self.norm_text = QLabel(self)
        self.norm_text.setWordWrap(True)
        side = QVBoxLayout()
        side.addWidget(self.plot, 1)
        side.addWidget(self.norm_text)

        controls = WrapRow([[self.placement, self.norm], [self.activation, self.ffn], [self.seed, self.blocks]], self)
        self.body = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self.body.addWidget(self.chain, 3)
        self.body.addLayout(side, 2)
        unavailable = QHBoxLayout()
        unavailable.addWidget(self.note, 1)
        unavailable.addWidget(self.make_ready, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.formula)
        layout.addWidget(controls)
        layout.addLayout(unavailable)
        layout.addLayout(self.body, 1)
        self._unavailable = unavailable
        self.show_settings()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        narrow = self.width() < NARROW
        if narrow != self._narrow:  # a narrow dock keeps the line on whose weights these are for the tooltip
            self._narrow = narrow
            self.show_settings()
        self.body.setDirection(QBoxLayout.Direction.TopToBottom if narrow else QBoxLayout.Direction.LeftToRight)
        self.chain.setMinimumHeight(CHAIN_MIN_H if narrow else 0)

    # ----- the block's own settings (not the session's: no undo step, not saved) ----------------------
    def _change(self, **changes):
        if self.view.change(**changes):
            self.refresh()
        else:
            self.show_settings()

    def show_settings(self):
        s = self.view.settings
        for box, value in ((self.placement, s.placement), (self.norm, s.norm), (self.activation, s.activation),
                           (self.ffn, s.ffn_mult)):
            with QSignalBlocker(box):
                box.setCurrentIndex(box.findData(value))
        for box, value in ((self.seed, s.seed), (self.blocks, s.blocks)):
            with QSignalBlocker(box):
                box.setValue(value)
        self.formula.setText(FORMULAS[s.placement] + ("" if self._narrow else translate("Block", WHOSE)))

    def readable_size(self, size):
        """Without a block to draw (Q, K, V edited directly: one sentence and a button), no more room than that."""
        if self.model.projected:
            return size
        self.refresh()  # (drawn now if it was just built: the sentence, not the block's rows, is what is measured)
        self.layout().activate()
        return size[0], self.sizeHint().height()

    # ----- drawing ---------------------------------------------------------------------------------
    def render(self, flags):
        self.show_settings()
        self.ask_view(self.view.ask)  # a small block comes at once, a large one later (``arrived``)

    def show_answer(self):
        """The block once made; while it is made on the worker, "computing…" over the block drawn before."""
        work = self.view.work
        stack, reason = self.view.result()
        computing = work.state == COMPUTING
        if computing:
            m = self.model
            before = translate("Block", " — what is shown is from before the last change") if self._shown_stack else ""
            reason = (f"<span style='color:{MUTED}'>" + translate("Block", "<b>computing…</b> the block of {n} tokens, "
                      "{blocks} deep").format(n=len(m.query_tokens), blocks=self.view.settings.blocks) + f"{before}</span>")
        self.note.setVisible(reason is not None)
        self.note.setText(in_language(reason) if reason else "")
        fixable = not computing and reason is not None and self.view.fixable()
        self.make_ready.setVisible(fixable)
        if fixable:
            direct = not self.model.projected
            self.make_ready.setText(translate("Block", "Switch to projected mode") if direct
                                    else translate("Block", "Let W_o write into the stream"))
            self.make_ready.setToolTip(translate("Block", READY_TIP if direct else WO_TIP))
        if computing:  # the chain keeps the last block drawn (its rows may be of another session's tokens), if any
            for widget in (self.chain, self.plot, self.norm_text):
                widget.setVisible(self._shown_stack)
            return
        self._shown_stack = stack is not None
        for widget in (self.chain, self.plot, self.norm_text):
            widget.setVisible(stack is not None)
        # without a block to draw, the room left goes under the note, not between the rows above it
        self.layout().setStretchFactor(self._unavailable, 1 if stack is None else 0)
        if stack is None:
            return
        tokens = self.model.query_tokens
        row = self.model.settings.selected_row
        for node, caption, heatmap in zip(stack.first.nodes, self.captions, self.maps):
            matrix = node.matrix
            size = float(np.linalg.norm(matrix, axis=1).mean())
            arrow = "" if node.key == "x" else "↓ "
            name = in_language(node.caption)
            caption.setText(f"{arrow}<b>{escape(name)}</b> &nbsp; " + translate(
                "Block", "({rows}×{cols}, mean ‖row‖ = {size})").format(
                rows=matrix.shape[0], cols=matrix.shape[1], size=format_number(size, 3)))
            reach = float(np.abs(matrix).max()) or 1.0
            cols = [f"h{j}" if node.key == "hidden" else f"x{j}" for j in range(matrix.shape[1])]
            heatmap.set_matrix(matrix, row_labels=tokens, col_labels=cols, levels=(-reach, reach), finite=True)
            heatmap.set_selected_row(row)
            heatmap.tooltip_provider = (lambda i, j, node=node, cols=cols:
                                        f"{escape(in_language(node.caption))}<br>{escape(tokens[i])}, {cols[j]}: "
                                        f"{format_number(node.matrix[i, j], 6)}")
        self.draw_norms(stack)

    def draw_norms(self, stack):
        means = stack.mean_norms
        n = np.arange(len(means))
        self.curve.setData(n, means)
        self.plot.setXRange(0, max(len(means) - 1, 1), padding=0.05)
        self.plot.setYRange(0, float(means.max()) * 1.1 or 1.0, padding=0)
        self.norm_text.setText(translate("Block", "‖x‖ {first} → after block 1: {second} → after block {n}: {last}")
                               .format(first=format_number(means[0], 3), second=format_number(means[1], 3),
                                       n=len(means) - 1, last=format_number(means[-1], 3)))
