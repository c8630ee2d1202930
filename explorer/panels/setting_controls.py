"""Controls made from the settings' one description: a combo box for a choice, a check box for a
switch, a slider or spin box for a number — each sends its change to ``model.set_param`` and shows
the model's value without echoing it back. Not a panel: the panels that show settings use it."""
from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QComboBox

from explorer.core.settings_schema import SCHEMA
from explorer.i18n import translate
from explorer.widgets.labelled_slider import LabelledSlider
from explorer.widgets.number_box import NumberBox, WholeBox

SPIN_DECIMALS = 4


def allow_switch(widget, why, tooltip):
    """A switch the settings' rules would refuse to flip now (``why``, from ``model.setting_problem``) is greyed
    out, its tooltip saying why; else enabled with its own ``tooltip``."""
    widget.setEnabled(why is None)
    widget.setToolTip(tooltip if why is None else why)


class SettingControl:
    """One setting's widget, bound to the model: ``widget`` to lay out, ``show(settings)`` to refresh.
    ``text``: a check box's text, or a slider's label."""

    def __init__(self, model, name, parent, text=""):
        self.model, self.setting, self.text = model, SCHEMA[name], text
        s = self.setting
        if s.choices:
            self.widget = QComboBox(parent)
            for value, label in s.choices:
                self.widget.addItem(translate("Settings", label), value)
            self.widget.activated.connect(lambda i: self._send(self.widget.itemData(i)))
        elif s.kind is bool:
            self.widget = QCheckBox(translate("Settings", text or s.label), parent)
            self.widget.toggled.connect(self._send)
        elif s.log:
            self.widget = LabelledSlider(text, s.low, s.high, s.default, log=True, snap=s.snap, parent=parent)
            self.widget.valueChanged.connect(self._send)
            self.widget.sliderPressed.connect(model.begin_gesture)
            self.widget.sliderReleased.connect(model.end_gesture)
        else:
            if s.kind is int:
                self.widget = WholeBox(parent)
                self.widget.setRange(s.low, s.high)
            else:  # (a typed text out of range, or not above an open bound, is refused with the reason)
                self.widget = NumberBox(parent, low_open=s.low_open)
                self.widget.setDecimals(SPIN_DECIMALS)
                self.widget.setSingleStep(0.05)
                self.widget.setRange(s.low, s.high)
            self.widget.setKeyboardTracking(False)
            self.widget.valueChanged.connect(self._send)
        self.widget.setToolTip(s.tooltip)

    def retranslate(self):
        """Its choices' or check box's text in the interface's language (the schema's English is the source;
        tools/update_translations.py collects it). The tooltips, longer explanations, stay English."""
        s, w = self.setting, self.widget
        if isinstance(w, QComboBox):
            for i, (_, label) in enumerate(s.choices):
                w.setItemText(i, translate("Settings", label))
        elif isinstance(w, QCheckBox):
            w.setText(translate("Settings", self.text or s.label))

    def _send(self, value):
        if not self.model.set_param(self.setting.name, value):  # refused (it says why): show the model's value
            self.show(self.model.settings)

    def show(self, settings):
        """Show the model's value (signals blocked: nothing is sent back)."""
        value = getattr(settings, self.setting.name)
        w = self.widget
        with QSignalBlocker(w):
            if isinstance(w, QComboBox):
                w.setCurrentIndex(w.findData(value))
            elif isinstance(w, QCheckBox):
                w.setChecked(value)
                self._allow(self.model.setting_problem(self.setting.name, not value))
            elif w.value() != value:  # a spin box repaints on every setValue, even of the same value
                w.setValue(value)

    def _allow(self, why):
        allow_switch(self.widget, why, self.setting.tooltip)

    def enable_choice(self, value, on, why=""):
        """Grey out one choice of a combo box (e.g. sinusoidal PE in direct mode), saying why."""
        item = self.widget.model().item(self.widget.findData(value))
        item.setEnabled(on)
        item.setToolTip("" if on else why)
