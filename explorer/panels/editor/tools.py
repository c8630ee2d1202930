"""The matrix editor's edit buttons: add or remove tokens and dimensions, separate the queries, randomize, reset.
Every one stays in view at 1024 × 640: each ± pair sits under one name ("token  + −") and the groups wrap
onto another line where the dock is narrow (a toolbar hid half of them behind "»")."""
from PySide6.QtCore import QT_TRANSLATE_NOOP, QSignalBlocker
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel

from explorer.i18n import translate
from explorer.widgets.flow_row import FlowRow
from explorer.widgets.framed_button import FramedButton
from explorer.widgets.number_box import WholeBox

TIPS = {"add_token": QT_TRANSLATE_NOOP("Editor", "Add a token (a row of zeros in Q, K and V) after the selected "
                                      "row"),
        "remove_token": QT_TRANSLATE_NOOP("Editor", "Remove the selected query token (its row in Q, K and V)"),
        "add_key": QT_TRANSLATE_NOOP("Editor", "Add a key token (a row of zeros in K and V) at the end"),
        "remove_key": QT_TRANSLATE_NOOP("Editor", "Remove the last key token (its row in K and V)")}
# small framed buttons (a ± pair reads as one control), as compact as a toolbar's
PAIR_PADDING = (1, 1)  # px: a ± button is as narrow as its sign allows


class EditorTools(FlowRow):
    """``actions[key]`` (their full texts, "+ token", are the Edit menu's; a ± button shows its icon text, "+"),
    ``buttons[key]``, ``groups[name]`` and the ``seed`` box. ``row_after()`` and ``selected_row()`` say where a
    token goes and which one goes."""

    def __init__(self, model, row_after, selected_row, parent=None):
        super().__init__(parent=parent)
        m = model
        self.actions, self.buttons, self._texts, self._names = {}, {}, {}, []
        act = self._act
        act("add_token", QT_TRANSLATE_NOOP("Editor", "+ token"), TIPS["add_token"],
            lambda: m.add_token(at=None if m.cross else row_after()), "Ctrl+T", "+")
        act("remove_token", QT_TRANSLATE_NOOP("Editor", "− token"), TIPS["remove_token"],
            lambda: m.remove_token(len(m.tokens) - 1 if m.cross else selected_row()), "Ctrl+Shift+T", "−")
        act("add_query", QT_TRANSLATE_NOOP("Editor", "+ query"),
            QT_TRANSLATE_NOOP("Editor", "Add a query token (a row of zeros in Q) after the selected query"),
            lambda: m.add_token(at=row_after(), side="queries"), short="+")
        act("remove_query", QT_TRANSLATE_NOOP("Editor", "− query"),
            QT_TRANSLATE_NOOP("Editor", "Remove the selected query token (its row in Q)"),
            lambda: m.remove_token(selected_row(), side="queries"), short="−")
        cross = act("cross", QT_TRANSLATE_NOOP("Editor", "Separate queries"),
                    QT_TRANSLATE_NOOP("Editor", "Cross-attention: the queries get tokens of their own (Q's rows), "
                                      "the keys and values keep theirs — as a translation's target reads its source"),
                    lambda on: m.set_cross(on), short=QT_TRANSLATE_NOOP("Editor", "Separate Q"))
        cross.setCheckable(True)
        act("add_dim_qk", QT_TRANSLATE_NOOP("Editor", "+d Q,K"), QT_TRANSLATE_NOOP("Editor", "Add a dimension (a column of zeros) to Q and K "
                                                      "together"), lambda: m.add_dim("qk"), short="+")
        act("remove_dim_qk", QT_TRANSLATE_NOOP("Editor", "−d Q,K"), QT_TRANSLATE_NOOP("Editor", "Remove the last dimension of Q and K"),
            lambda: m.remove_dim("qk"), short="−")
        act("add_dim_v", QT_TRANSLATE_NOOP("Editor", "+d V"), QT_TRANSLATE_NOOP("Editor", "Add a dimension to V"), lambda: m.add_dim("v"),
            short="+")
        act("remove_dim_v", QT_TRANSLATE_NOOP("Editor", "−d V"), QT_TRANSLATE_NOOP("Editor", "Remove the last dimension of V"),
            lambda: m.remove_dim("v"), short="−")
        act("add_dim_x", QT_TRANSLATE_NOOP("Editor", "+D"), QT_TRANSLATE_NOOP("Editor", "Add a dimension to the token vectors X (and a column "
                                                 "to every W)"), lambda: m.add_dim("x"), short="+")
        act("remove_dim_x", QT_TRANSLATE_NOOP("Editor", "−D"), QT_TRANSLATE_NOOP("Editor", "Remove the last dimension of X (and the last "
                                                    "column of every W)"), lambda: m.remove_dim("x"), short="−")
        self.seed = seed = WholeBox(self)
        seed.setRange(0, 999_999)
        act("randomize", QT_TRANSLATE_NOOP("Editor", "Randomize"),
            QT_TRANSLATE_NOOP("Editor", "Fill the editable matrices with random numbers from the seed, then move the "
                                        "seed on by one (the next press gives new numbers)"),
            lambda: (m.randomize(seed.value()), seed.stepBy(1)), "Ctrl+R")  # the next press: new numbers
        act("reset", QT_TRANSLATE_NOOP("Editor", "Reset"),
            QT_TRANSLATE_NOOP("Editor", "Go back to the preset or file as it was opened"), m.reset_to_preset)
        b = self.buttons
        pair = self._pair
        groups = {"tokens": pair(QT_TRANSLATE_NOOP("Editor", "token"), "add_token", "remove_token"),
                  "queries": pair(QT_TRANSLATE_NOOP("Editor", "query"), "add_query", "remove_query"),
                  "dims_qk": pair(QT_TRANSLATE_NOOP("Editor", "d Q,K"), "add_dim_qk", "remove_dim_qk"),
                  "dims_v": pair(QT_TRANSLATE_NOOP("Editor", "d V"), "add_dim_v", "remove_dim_v"),
                  "dims_x": pair(QT_TRANSLATE_NOOP("Editor", "D"), "add_dim_x", "remove_dim_x"),
                  # Reset with the shape's buttons (it puts the shape back too): at 1024 × 640 the rest then
                  # fits a second line, where after Randomize's seed box it took a third
                  "reset": [b["reset"]], "cross": [b["cross"]], "randomize": [b["randomize"], seed]}
        self.groups = {name: self.add_group(widgets) for name, widgets in groups.items()}
        self.retranslate()

    def _act(self, key, text, tip, slot, shortcut=None, short=None):
        a = QAction(self)
        self._texts[key] = (text, tip, short)  # short: the button's text, where the menu's is too long
        if shortcut:
            a.setShortcut(QKeySequence(shortcut))
        a.triggered.connect(slot)
        self.actions[key] = a
        button = self.buttons[key] = FramedButton(self)
        button.setDefaultAction(a)
        button.setObjectName(f"button_{key}")
        return a

    def _pair(self, name, add, remove):
        """A ± group: its name ("token", translated in ``retranslate``), then its + and − buttons."""
        label = QLabel(self)
        self._names.append((label, name))
        for key in (add, remove):
            self.buttons[key].padding = PAIR_PADDING
        return [label, self.buttons[add], self.buttons[remove]]

    def retranslate(self):
        """The texts and tooltips (the Edit menu's too) in the interface's language."""
        for key, (text, tip, short) in self._texts.items():
            a, said = self.actions[key], translate("Editor", tip)
            a.setText(translate("Editor", text))
            if short:
                a.setIconText(translate("Editor", short))
            a.setToolTip(said)
            a.setStatusTip(said)
        for label, text in self._names:
            label.setText(translate("Editor", text))
        self.seed.setPrefix(translate("Editor", "seed "))
        self.seed.setToolTip(translate("Editor", "The seed for Randomize: the same seed gives the same numbers; each press moves it on by one"))

    def show_mode(self, projected, cross):
        """The buttons of the session's mode: ±D where there is an X, ± query and the key tooltips in
        cross-attention."""
        for key in ("add_dim_x", "remove_dim_x"):
            self.actions[key].setVisible(projected)
        for key in ("add_query", "remove_query"):
            self.actions[key].setVisible(cross)
        self.groups["dims_x"].setVisible(projected)  # (a button does not follow its action's visibility)
        self.groups["queries"].setVisible(cross)
        with QSignalBlocker(self.actions["cross"]):
            self.actions["cross"].setChecked(cross)
        self.actions["add_token"].setToolTip(translate("Editor", TIPS["add_key" if cross else "add_token"]))
        self.actions["remove_token"].setToolTip(translate("Editor", TIPS["remove_key" if cross else "remove_token"]))
