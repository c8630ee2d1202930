"""Controls: scale mode, temperature, causal mask, heads and the selected query row — bound to the model — and
what RoPE does (set in the RoPE panel)."""
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QSignalBlocker, QStringListModel, Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QHBoxLayout, QLabel, QWidget

from explorer.core.plural import count
from explorer.core.settings_schema import SCHEMA
from explorer.i18n import translate
from explorer.model import SETTINGS, STRUCTURE, VALUES
from explorer.widgets.fitting_text import FittingText, shrinkable
from explorer.widgets.number_text import format_number

from .base import Panel
from .setting_controls import SettingControl

NARROW_COMBO_CHARACTERS = 10  # what a combo keeps of its choice when the dock is narrow
SINUSOIDAL_NEEDS_X = "Sinusoidal PE is added to the token vectors X: choose 'project X' above first"


class ControlsPanel(Panel):
    """Every setting of the pipeline; each change is one undoable model edit, each drag one undo step.
    The widgets, their choices, ranges and tooltips come from the settings' one description."""

    reads_results = False
    follows_drags = True

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        self.bound = {name: SettingControl(model, name, self) for name in
                      ("source", "positions", "scale_mode", "scale", "temperature")}
        self.bound["causal"] = SettingControl(model, "causal", self)
        self.source, self.positions = self.bound["source"].widget, self.bound["positions"].widget
        self.scale_mode, self.scale_value = self.bound["scale_mode"].widget, self.bound["scale"].widget
        self.temperature, self.causal = self.bound["temperature"].widget, self.bound["causal"].widget
        self.form, self._rows = form, []  # (field, its label's source text): set again on a change of language
        self._row(QT_TRANSLATE_NOOP("Controls", "Q, K, V"), self.source)
        self._row(QT_TRANSLATE_NOOP("Controls", "Positions"), self.positions)
        self.rope = QLabel(self)
        self.rope.setWordWrap(True)
        self.rope.setToolTip("RoPE turns q and k by their positions; its settings, and Llama 3.1's scaling of its "
                             "frequencies, are in the RoPE panel. " + SCHEMA["rope_scaling"].tooltip)
        self._row("RoPE", self.rope)
        scale_row = QWidget(self)
        row = QHBoxLayout(scale_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.scale_mode, 2)
        row.addWidget(self.scale_value, 1)
        self._row(QT_TRANSLATE_NOOP("Controls", "Scale"), scale_row)
        self._row(QT_TRANSLATE_NOOP("Controls", "Temperature"), self.temperature)
        self._row(QT_TRANSLATE_NOOP("Controls", "Mask"), self.causal)

        self.heads = QComboBox(self)
        self.heads.activated.connect(lambda i, box=self.heads: model.set_param("heads", box.itemData(i)))
        self.head = QComboBox(self)
        self.head.setToolTip(SCHEMA["selected_head"].tooltip)
        self.head.activated.connect(lambda i: model.set_selection(head=i))
        heads_row = QWidget(self)
        row = QHBoxLayout(heads_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.heads, 1)
        self.show_label = QLabel(self)
        row.addWidget(self.show_label)
        row.addWidget(self.head, 1)
        self._row(QT_TRANSLATE_NOOP("Controls", "Heads"), heads_row)

        self.kv_heads = QComboBox(self)
        self.kv_heads.setToolTip(SCHEMA["kv_heads"].tooltip + ". Fewer K/V heads: K and V are mean-pooled over "
                                 "each group (as when a model is turned into GQA); more: repeated (no output changes)")
        self.kv_heads.activated.connect(lambda i, box=self.kv_heads: model.set_param("kv_heads", box.itemData(i)))
        self._row(QT_TRANSLATE_NOOP("Controls", "K/V heads"), self.kv_heads)
        self.cross = QCheckBox(self)
        self.cross.setToolTip("Queries from one sequence, keys and values from another (a translation's target "
                              "reads its source): Q gets tokens of its own. One undoable step.")
        self.cross.toggled.connect(self._cross_toggled)
        self._row(QT_TRANSLATE_NOOP("Controls", "Queries"), self.cross)

        self.row = QComboBox(self)
        self.row.setToolTip(SCHEMA["selected_row"].tooltip)
        self.row.activated.connect(lambda i: model.set_selection(row=i))
        self._row(QT_TRANSLATE_NOOP("Controls", "Query row"), self.row)

        self.shape = QLabel(self)
        self.shape.setWordWrap(True)
        self.shape.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self._row(QT_TRANSLATE_NOOP("Controls", "Shapes"), self.shape)
        self._fitting = []
        for combo in (self.source, self.positions, self.scale_mode, self.kv_heads):
            shrinkable(combo, NARROW_COMBO_CHARACTERS)
        self.retranslate()

    def _row(self, text, field):
        self.form.addRow(text, field)
        self._rows.append((field, text))

    def changeEvent(self, event):
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and hasattr(self, "_rows"):
            self.retranslate()
            self.refresh()  # the combos' items (head 1, …) in the new language

    def retranslate(self):
        """Every label and choice in the interface's language (the settings' own by their English text)."""
        for field, text in self._rows:
            self.form.labelForField(field).setText(translate("Controls", text))
        for control in self.bound.values():
            control.retranslate()
        self.show_label.setText(translate("Controls", "show"))
        self._fit_narrow()

    def _fit_narrow(self):
        """A narrow dock (the window at 1024 × 640) shortens the long texts instead of cutting them off:
        the combos show what fits of their choice (their lists stay whole), the check boxes a short form."""
        for old in self._fitting:  # (the texts of another language)
            old.widget.removeEventFilter(old)
            old.deleteLater()
        self._fitting = [
            FittingText(self.causal, (translate("Controls", "causal mask (no peeking at later tokens)"),
                                      translate("Settings", "causal mask"))),
            FittingText(self.cross, (translate("Controls", "separate query tokens (cross-attention)"),
                                     translate("Controls", "cross-attention")))]

    def _cross_toggled(self, on):
        if not self.model.set_cross(on):  # refused (it says why): show what the session is
            with QSignalBlocker(self.cross):
                self.cross.setChecked(self.model.cross)

    def render(self, flags):
        if not flags & ~VALUES:
            return  # new numbers in Q, K or V: no setting, shape or token shown here changed
        s, m = self.model.settings, self.model
        for control in self.bound.values():
            control.show(s)
        self.bound["positions"].enable_choice("sinusoidal", m.projected, SINUSOIDAL_NEEDS_X)
        self.scale_value.setEnabled(s.scale_mode == "custom")
        self.rope.setText(rope_summary(s))
        blockers = [QSignalBlocker(w) for w in (self.heads, self.head, self.row, self.kv_heads, self.cross)]
        self.cross.setChecked(m.cross)
        if flags & (STRUCTURE | SETTINGS):
            fill(self.heads, [(f"{h} (d_h = {m.widths()[0] // h})", h) for h in m.head_options()])
            d, dv = m.widths()[:2]  # the schema's one say of why only these counts are offered
            self.heads.setToolTip(translate("Settings", SCHEMA["heads"].why).format(
                d=d, dv=dv, options=", ".join(str(h) for h in m.head_options())))
            head = translate("Controls", "head {number}")
            fill(self.head, [head.format(number=i + 1) for i in range(s.heads)])
            fill(self.kv_heads, [(kv_label(g, s.heads), g) for g in m.kv_head_options()])
        if flags & STRUCTURE:  # tokens change only with the structure (a rename is one too)
            fill(self.row, [f"{i}: {t}" for i, t in enumerate(m.query_tokens)])  # (read by index)
        self.heads.setCurrentIndex(self.heads.findData(s.heads))
        self.kv_heads.setCurrentIndex(self.kv_heads.findData(m.state.kv_heads))
        self.kv_heads.setEnabled(s.heads > 1)
        self.head.setCurrentIndex(s.selected_head)
        self.head.setEnabled(s.heads > 1)
        self.row.setCurrentIndex(s.selected_row)
        (d, dv), L = m.widths(), len(m.tokens)
        length = translate("Controls", "L = {tokens}").format(tokens=count(L, 'token'), n_tokens=L)
        if m.cross:
            length = translate("Controls", "L_q = {queries}, L_k = {keys}").format(
                queries=count(len(m.query_tokens), 'query', 'queries'), keys=count(L, 'key'),
                n_queries=len(m.query_tokens), n_keys=L)
        kv = m.state.kv_heads
        widths = f"d = {d} (Q, K), d_v = {dv} (V)"
        if kv < s.heads:
            widths = translate("Controls", "d = {d} (Q), {kv_width} (K: {kv_heads} × {d_h}), d_v = {dv} (V)").format(
                d=d, kv_width=m.state.kv_width(), kv_heads=count(kv, 'K/V head'), n_kv_heads=kv, d_h=d // s.heads, dv=dv)
        text = f"{length}, {widths}"
        if m.projected:
            text = f"{length}, D = {m.matrix('X').shape[1]} → {widths}"
        if kv < s.heads:
            per_token = m.state.kv_width() + dv  # numbers cached per token: H_kv·d_h for K, V's width
            text += "<br>" + translate("Controls", "K/V cache: {per_token} numbers a token ({bytes} B in float16), "
                                                   "{times}× less than with a K/V head per query head").format(
                per_token=per_token, bytes=per_token * 2, times=s.heads // kv)
        self.shape.setText(text)
        del blockers


def rope_summary(s):
    """RoPE in a line: off, or its base and — when on — Llama 3.1's scaling with its numbers."""
    if not s.rope:
        return translate("Controls", "off (the RoPE panel turns it on)")
    text = translate("Controls", "on, base {base}").format(base=f"{s.rope_base:,.0f}")
    if s.rope_scaling == "llama3":
        text += (f", llama3 scaling ×{format_number(s.rope_factor)} (frequency factors "
                 f"{format_number(s.rope_low_freq_factor)} and {format_number(s.rope_high_freq_factor)}, original "
                 f"context {s.rope_original_max_position_embeddings:,})")
    return text


def kv_label(kv, heads):
    """How a K/V head count reads in the combo: what kind of attention it makes."""
    if kv == heads:
        return translate("Controls", "{kv} (one per head: multi-head)").format(kv=kv)
    if kv == 1:
        return translate("Controls", "1 (multi-query, MQA)")
    return translate("Controls", "{kv} (grouped-query, GQA: {each} query heads each)").format(kv=kv, each=heads // kv)


def fill(combo, items):
    """Set a combo's (text, data) items, or its texts alone (a combo read by index), leaving it alone when
    they are already those (no flicker, no work on every temperature tick)."""
    if combo.property("items") != items:  # kept as a Python list: reading 4096 items back costs ~15 ms
        if items and isinstance(items[0], str):  # a list model set at once: 4,096 query rows took ~8 ms by addItem
            if not isinstance(combo.model(), QStringListModel):
                combo.setModel(QStringListModel(combo))
            combo.model().setStringList(items)
        else:
            combo.clear()
            for text, data in items:
                combo.addItem(text, data)
        combo.setProperty("items", items)
