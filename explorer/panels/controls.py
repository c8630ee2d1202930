"""Controls: scale mode, temperature, causal mask, heads and the selected query row — bound to the model."""
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QHBoxLayout, QLabel,
                               QWidget)

from explorer.core.session import TEMPERATURE_MAX, TEMPERATURE_MIN
from explorer.model import SETTINGS, STRUCTURE
from explorer.widgets.labelled_slider import LabelledSlider

from .base import Panel

SCALE_MODES = (("inv_sqrt_d", "1/√d  (standard)"), ("none", "none (× 1)"), ("custom", "custom value"))
SOURCES = (("direct", "edit Q, K, V directly"), ("projected", "project X:  Q = X·W_qᵀ, K = X·W_kᵀ, V = X·W_vᵀ"))
POSITIONS = (("none", "none (order is invisible)"), ("sinusoidal", "sinusoidal PE added to X"))


class ControlsPanel(Panel):
    """Every setting of the pipeline; each change is one undoable model edit, each drag one undo step."""

    reads_results = False

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)

        self.source = self._choice(SOURCES, "source", "Where Q, K and V come from: edited directly, or projected "
                                   "from token vectors X by W_q, W_k, W_v (the chapter's three personalities)")
        form.addRow("Q, K, V", self.source)
        self.positions = self._choice(POSITIONS, "positions", "Add the sinusoidal positional encoding PE(L, D) to X "
                                      "before projecting (projected mode only)")
        form.addRow("Positions", self.positions)

        self.scale_mode = QComboBox(self)
        for key, label in SCALE_MODES:
            self.scale_mode.addItem(label, key)
        self.scale_mode.setToolTip("What multiplies QKᵀ: 1/√d keeps the spread of the scores near 1 whatever d is")
        self.scale_mode.currentIndexChanged.connect(
            lambda i: self.model.set_param("scale_mode", self.scale_mode.itemData(i)))
        self.scale_value = QDoubleSpinBox(self)
        self.scale_value.setDecimals(4)
        self.scale_value.setRange(0.0001, 1000.0)
        self.scale_value.setSingleStep(0.05)
        self.scale_value.setKeyboardTracking(False)
        self.scale_value.setToolTip("The custom scale (used when the scale mode is 'custom value')")
        self.scale_value.valueChanged.connect(lambda v: self.model.set_param("scale", v))
        scale_row = QWidget(self)
        row = QHBoxLayout(scale_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.scale_mode, 2)
        row.addWidget(self.scale_value, 1)
        form.addRow("Scale", scale_row)

        self.temperature = LabelledSlider("", TEMPERATURE_MIN, TEMPERATURE_MAX, log=True, parent=self)
        self.temperature.setToolTip("Temperature T divides the scores before the softmax: "
                                    "low T → one key takes all, high T → uniform")
        self.temperature.valueChanged.connect(lambda v: self.model.set_param("temperature", v))
        self.temperature.sliderPressed.connect(self.model.begin_gesture)
        self.temperature.sliderReleased.connect(self.model.end_gesture)
        form.addRow("Temperature", self.temperature)

        self.causal = QCheckBox("causal mask (no peeking at later tokens)", self)
        self.causal.setToolTip("Set the upper triangle (j > i) of the scores to −∞ before the softmax")
        self.causal.toggled.connect(lambda on: self.model.set_param("causal", on))
        form.addRow("Mask", self.causal)

        self.heads = QComboBox(self)
        self.heads.setToolTip("Number of heads H: only divisors of the widths of Q/K and V are offered")
        self.heads.activated.connect(lambda i: self.model.set_param("heads", self.heads.itemData(i)))
        self.head = QComboBox(self)
        self.head.setToolTip("The head the Scores and Weights panels show")
        self.head.activated.connect(lambda i: self.model.set_selection(head=i))
        heads_row = QWidget(self)
        row = QHBoxLayout(heads_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.heads, 1)
        row.addWidget(QLabel("show", self))
        row.addWidget(self.head, 1)
        form.addRow("Heads", heads_row)

        self.row = QComboBox(self)
        self.row.setToolTip("The query row the other panels highlight (or click a row in a heatmap)")
        self.row.activated.connect(lambda i: self.model.set_selection(row=i))
        form.addRow("Query row", self.row)

        self.shape = QLabel(self)
        self.shape.setTextInteractionFlags(Qt.TextSelectableByMouse)
        form.addRow("Shapes", self.shape)

    def _choice(self, items, param, tip):
        box = QComboBox(self)
        for key, label in items:
            box.addItem(label, key)
        box.setToolTip(tip)
        box.activated.connect(lambda i: self.model.set_param(param, box.itemData(i)))
        return box

    def render(self, flags):
        s, m = self.model.settings, self.model
        blockers = [QSignalBlocker(w) for w in (self.scale_mode, self.scale_value, self.temperature, self.causal,
                                                  self.heads, self.head, self.row, self.source, self.positions)]
        self.source.setCurrentIndex(self.source.findData(s.source))
        self.positions.setCurrentIndex(self.positions.findData(s.positions))
        self.positions.setEnabled(m.projected)
        self.scale_mode.setCurrentIndex(self.scale_mode.findData(s.scale_mode))
        self.scale_value.setValue(s.scale)
        self.scale_value.setEnabled(s.scale_mode == "custom")
        self.temperature.setValue(s.temperature)
        self.causal.setChecked(s.causal)
        if flags & (STRUCTURE | SETTINGS):
            fill(self.heads, [(f"{h} (d_h = {m.widths()[0] // h})", h) for h in m.head_options()])
            fill(self.head, [(f"head {i + 1}", i) for i in range(s.heads)])
        if flags & STRUCTURE:  # tokens change only with the structure (a rename is one too)
            fill(self.row, [(f"{i}: {t}", i) for i, t in enumerate(m.tokens)])
        self.heads.setCurrentIndex(self.heads.findData(s.heads))
        self.head.setCurrentIndex(s.selected_head)
        self.head.setEnabled(s.heads > 1)
        self.row.setCurrentIndex(s.selected_row)
        (d, dv), L = m.widths(), len(m.tokens)
        text = f"L = {L} tokens, d = {d} (Q, K), d_v = {dv} (V)"
        if m.projected:
            text = f"L = {L}, D = {m.matrix('X').shape[1]} → d = {d} (Q, K), d_v = {dv} (V)"
        self.shape.setText(text)
        del blockers


def fill(combo, items):
    """Set a combo's (text, data) items, leaving it alone when they are already those (no flicker,
    no work on every temperature tick)."""
    if combo.property("items") != items:  # kept as a Python list: reading 4096 items back costs ~15 ms
        combo.clear()
        for text, data in items:
            combo.addItem(text, data)
        combo.setProperty("items", items)
