"""Controls: scale mode, temperature, causal mask, heads and the selected query row — bound to the model."""
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import QComboBox, QFormLayout, QHBoxLayout, QLabel, QWidget

from explorer.core.plural import count
from explorer.core.settings_schema import SCHEMA
from explorer.model import SETTINGS, STRUCTURE

from .base import Panel
from .setting_controls import SettingControl

SINUSOIDAL_NEEDS_X = "Sinusoidal PE is added to the token vectors X: choose 'project X' above first"


class ControlsPanel(Panel):
    """Every setting of the pipeline; each change is one undoable model edit, each drag one undo step.
    The widgets, their choices, ranges and tooltips come from the settings' one description."""

    reads_results = False

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        self.bound = {name: SettingControl(model, name, self) for name in
                      ("source", "positions", "scale_mode", "scale", "temperature")}
        self.bound["causal"] = SettingControl(model, "causal", self, "causal mask (no peeking at later tokens)")
        self.source, self.positions = self.bound["source"].widget, self.bound["positions"].widget
        self.scale_mode, self.scale_value = self.bound["scale_mode"].widget, self.bound["scale"].widget
        self.temperature, self.causal = self.bound["temperature"].widget, self.bound["causal"].widget
        form.addRow("Q, K, V", self.source)
        form.addRow("Positions", self.positions)
        scale_row = QWidget(self)
        row = QHBoxLayout(scale_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.scale_mode, 2)
        row.addWidget(self.scale_value, 1)
        form.addRow("Scale", scale_row)
        form.addRow("Temperature", self.temperature)
        form.addRow("Mask", self.causal)

        self.heads = QComboBox(self)
        self.heads.setToolTip(SCHEMA["heads"].tooltip)
        self.heads.activated.connect(lambda i: self.model.set_param("heads", self.heads.itemData(i)))
        self.head = QComboBox(self)
        self.head.setToolTip(SCHEMA["selected_head"].tooltip)
        self.head.activated.connect(lambda i: self.model.set_selection(head=i))
        heads_row = QWidget(self)
        row = QHBoxLayout(heads_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.heads, 1)
        row.addWidget(QLabel("show", self))
        row.addWidget(self.head, 1)
        form.addRow("Heads", heads_row)

        self.row = QComboBox(self)
        self.row.setToolTip(SCHEMA["selected_row"].tooltip)
        self.row.activated.connect(lambda i: self.model.set_selection(row=i))
        form.addRow("Query row", self.row)

        self.shape = QLabel(self)
        self.shape.setTextInteractionFlags(Qt.TextSelectableByMouse)
        form.addRow("Shapes", self.shape)

    def render(self, flags):
        s, m = self.model.settings, self.model
        for control in self.bound.values():
            control.show(s)
        self.bound["positions"].enable_choice("sinusoidal", m.projected, SINUSOIDAL_NEEDS_X)
        self.scale_value.setEnabled(s.scale_mode == "custom")
        blockers = [QSignalBlocker(w) for w in (self.heads, self.head, self.row)]
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
        text = f"L = {count(L, 'token')}, d = {d} (Q, K), d_v = {dv} (V)"
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
