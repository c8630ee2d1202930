"""Positions: the sinusoidal PE(L, D) added to X, and "shuffle tokens" — with no positions the
outputs permute exactly as the tokens do (attention is blind to order); with positions they do not."""
from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout

from explorer.widgets.heatmap import Heatmap

from .base import Panel

FORMULA = ("<b>Sinusoidal positions</b> PE[p, 2i] = sin(p / 10000<sup>2i/D</sup>), "
           "PE[p, 2i+1] = cos(p / 10000<sup>2i/D</sup>) — one vector of sines and cosines per position")
PROMPT = ("Shuffle the tokens to test permutation equivariance: without positions, attention cannot tell "
          "the order of its inputs (「猫追狗」和「狗追猫」在它眼里是同一袋词).")
DIRECT_NOTE = ("Positions are added to the token vectors X, and this session edits Q, K, V directly. "
               "Switch to projected mode to see and use them.")


class PositionsPanel(Panel):
    """PE heatmap, the "add positions to X" toggle, and the shuffle check (F12, F13)."""

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.caption = QLabel(FORMULA, self)
        self.caption.setWordWrap(True)
        self.add = QCheckBox("add positions to X (before the projections)", self)
        self.add.setToolTip("X + PE is what W_q, W_k and W_v project when this is on")
        self.add.toggled.connect(lambda on: self.model.set_param("positions", "sinusoidal" if on else "none"))
        self.to_projected = QPushButton("Switch to projected mode", self)
        self.to_projected.setToolTip("Q = X·W_qᵀ, K = X·W_kᵀ, V = X·W_vᵀ, starting from X and W that "
                                     "reproduce the current Q, K, V exactly")
        self.to_projected.clicked.connect(lambda: self.model.set_param("source", "projected"))
        self.note = QLabel(DIRECT_NOTE, self)
        self.note.setWordWrap(True)
        self.heatmap = Heatmap(cmap="diverging", row_title="position", col_title="dimension of X",
                               colorbar_label="PE", parent=self)

        self.seed = QSpinBox(self)
        self.seed.setRange(0, 999_999)
        self.seed.setPrefix("seed ")
        self.seed.setToolTip("Which permutation: the same seed shuffles the same way")
        self.shuffle = QPushButton("Shuffle tokens", self)
        self.shuffle.setToolTip("Reorder the tokens (rows of X, or of Q, K, V) and compare the new output with "
                                "the old output reordered the same way")
        self.shuffle.clicked.connect(lambda: self.model.shuffle_tokens(self.seed.value()))
        self.check = QLabel(PROMPT, self)
        self.check.setWordWrap(True)

        top = QHBoxLayout()
        top.addWidget(self.add, 1)
        top.addWidget(self.to_projected)
        shuffle_row = QHBoxLayout()
        shuffle_row.addWidget(self.shuffle)
        shuffle_row.addWidget(self.seed)
        shuffle_row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.caption)
        layout.addLayout(top)
        layout.addWidget(self.note)
        layout.addWidget(self.heatmap, 1)
        layout.addLayout(shuffle_row)
        layout.addWidget(self.check)

    def render(self, flags):
        m, r = self.model, self.model.results
        with QSignalBlocker(self.add):
            self.add.setChecked(m.settings.positions == "sinusoidal")
        self.add.setEnabled(m.projected)
        self.to_projected.setVisible(not m.projected)
        self.note.setVisible(not m.projected)
        self.heatmap.setVisible(r.pe is not None)
        if r.pe is not None:
            rows = [f"{p}: {t}" for p, t in enumerate(m.tokens)]
            cols = [f"x{j}" for j in range(r.pe.shape[1])]
            self.heatmap.set_matrix(r.pe, row_labels=rows, col_labels=cols, levels=(-1.0, 1.0))
        self.render_check()

    def render_check(self):
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
        if result.equivariant:
            text = (f"<span style='color:#1a7f37'>✓ equivariant</span>: the new output is the old output "
                    f"permuted the same way (max difference {result.max_difference:.1e}). Without positions, "
                    f"order is invisible to attention.")
        else:
            cause = " and ".join(why) or "something that depends on position"
            text = (f"<span style='color:#b00020'>✗ not equivariant</span>: the new output differs from the "
                    f"old one permuted (max difference {result.max_difference:.3g}) — {cause} tie each "
                    f"output to its place.")
        self.check.setText(text)
