"""F23 Sensitivity: nudge one cell — a score, a query's or a key's number — and see what moves through the
softmax: the weights of ② by its Jacobian ∂a_j/∂s_i = a_j(δ_ij − a_i), then the outputs of ③ (O = A·V).
The numbers come from ``explorer.model.sensitivity_view`` (on a worker when large: "computing…" until they come);
this file only draws them. The cell is the selected query row and key."""
from PySide6.QtCore import QT_TRANSLATE_NOOP, QSignalBlocker, Qt
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QSpinBox

from explorer.i18n import translate
from explorer.model import ALL_STAGES
from explorer.model.background import COMPUTING, FAILED
from explorer.model.sensitivity_view import SensitivityView
from explorer.weak import weakly
from explorer.widgets.html_escape import escape
from explorer.widgets.number_text import format_number
from explorer.widgets.palette import BAD, MUTED

from .base import Panel
from .worker_answers import WorkerAnswers
from .change_views import TIP_DIGITS, ChangeViews, change_text, stacked, value_text

WHAT = {"S": QT_TRANSLATE_NOOP("Sensitivity", "score S[i, j]"),
        "Q": QT_TRANSLATE_NOOP("Sensitivity", "query Q[i, c]"),
        "K": QT_TRANSLATE_NOOP("Sensitivity", "key K[j, c]")}
TIP = QT_TRANSLATE_NOOP(
    "Sensitivity", "Nudge one number by ε and follow it: ① which scores it moves, ② how each weight of those rows "
    "changes (the softmax's Jacobian ∂a_j/∂s_i = a_j(δ_ij − a_i): the nudged key's weight rises by a_i(1 − a_i), "
    "every other falls by a_j·a_i, so the row still sums to 1), ③ how the outputs change (ΔO = ΔA·V). First order: "
    "ε times the derivative, exact as ε → 0. The cell is the selected query row and key (click one in ① or ②).")
HIDDEN_TEXT = QT_TRANSLATE_NOOP("Sensitivity", "What a nudge moves stays hidden until the lesson has revealed ② and ③")
TITLES = {"scores": QT_TRANSLATE_NOOP("Sensitivity", "① ΔS (the nudge)"), "weights": "② ΔA = J·ΔS",
          "output": "③ ΔO = ΔA·V"}  # (formulas: the same in every language)
TIPS = {"scores": QT_TRANSLATE_NOOP("Sensitivity", "How much each score moves: only the nudged score, a query's "
                                                   "whole row, or a key's whole column"),
        "weights": QT_TRANSLATE_NOOP("Sensitivity", "How each weight moves: a_j(Δs_j − Σ_i a_i·Δs_i), row by row. "
                                                    "A masked key's weight stays 0"),
        "output": QT_TRANSLATE_NOOP("Sensitivity", "How each output number moves: the weights' change mixing the rows "
                                                   "of V (then W_o, if projected)")}


def computing_note():
    """" · computing…" after the caption (the summary may be scrolled away)."""
    said = translate("Sensitivity", "computing…")
    return f" <span style='color:{MUTED}'><b>· {said}</b></span>"


FAINT_WEIGHT = 0.01  # a nudged score whose weight is below this moves too little to see: the panel says why


class SensitivityPanel(WorkerAnswers, Panel):
    """The selected cell nudged by ε: ΔS, ΔA and ΔO of the shown head, and the largest changes named."""

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.view = SensitivityView(model, self)
        self.view.work.changed.connect(self.arrived)
        self.keep_text(weakly(self._say_tip), "Sensitivity", TIP)  # (its own method: weakly, or a cycle)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.what = QComboBox(self)
        for i, (key, text) in enumerate(WHAT.items()):
            self.what.addItem(text, key)
            self.keep_text(lambda said, box=self.what, i=i: box.setItemText(i, said), "Sensitivity", text)
        self.keep_text(self.what.setToolTip, "Sensitivity", "What to nudge: a score directly, or a number of Q or K "
                                                            "(as the scores use them, after RoPE when it is on)")
        self.column = QSpinBox(self)
        self.column.setPrefix("c = ")
        self.keep_text(self.column.setToolTip, "Sensitivity", "The column c inside the shown head (0 … d_h − 1) of "
                                                              "the query's or key's vector")
        self.epsilon = QDoubleSpinBox(self)
        self.epsilon.setDecimals(3)
        self.epsilon.setRange(0.001, 10.0)
        self.epsilon.setSingleStep(0.05)
        self.epsilon.setValue(0.1)
        self.epsilon.setPrefix("ε = ")
        self.keep_text(self.epsilon.setToolTip, "Sensitivity", "The size of the nudge; the changes shown are ε "
                                                               "times the derivatives")
        refresh = weakly(self.refresh)  # (its own controls' slots: no cycle)
        for control in (self.what, self.column, self.epsilon):
            signal = control.currentIndexChanged if control is self.what else control.valueChanged
            signal.connect(lambda *args: refresh())
        controls = QHBoxLayout()
        controls.addWidget(self.kept_label("Sensitivity", "Nudge"))
        controls.addWidget(self.what)
        controls.addWidget(self.column)
        controls.addWidget(self.epsilon)
        controls.addStretch(1)
        self.views = ChangeViews(TITLES, TIPS, self)
        for stage in TITLES:
            views = self.views  # (the setters hold the views, not the panel)
            self.keep_text(lambda said, s=stage, v=views: v.set_title(s, said), "Sensitivity", TITLES[stage])
            self.keep_text(lambda said, s=stage, v=views: v.set_tip(s, said), "Sensitivity", TIPS[stage])
        self.views.tooltip = weakly(self._tooltip, "")
        self.views.clicked = weakly(self._clicked)
        _, self.summary = stacked(self, self.caption, controls, self.views)
        self.shown = None  # the Sensitivity on screen
        self._nudged = None  # the Nudged on screen
        self._caption = ""  # the caption of the cell nudged, before "computing…"
        self._language = ""  # a text of the language the nudge on screen was drawn in

    def nudged(self):
        """(what, row, col) of the cell nudged: from the selection (query row, key) and the column box."""
        what, sel = self.what.currentData(), self.model.selection
        if what == "S":
            return what, sel.row, sel.key
        return what, (sel.row if what == "Q" else sel.key), self.column.value()

    def _cell_name(self, what, row, col):
        qtok, tok = self.model.query_tokens, self.model.tokens
        if what == "S":
            return f"S[{qtok[row]} → {tok[col]}]"
        return f"{what}[{(qtok if what == 'Q' else tok)[row]}, c{col}]"

    def _say_tip(self, text):
        self.setToolTip(text)

    def render(self, flags):
        r, head = self.model.results, self.model.selection.head
        self.column.setEnabled(self.what.currentData() != "S")
        with QSignalBlocker(self.column):
            self.column.setMaximum(max(r.d_head - 1, 0))
        what, row, col = self.nudged()
        name = self._cell_name(what, row, col)
        heads = translate("Sensitivity", ", head {head}").format(head=head + 1) if r.n_heads > 1 else ""
        self._caption = translate("Sensitivity", "<b>Nudge {cell} by ε</b>{heads}: what moves through the softmax "
                                                 "({jacobian})").format(
            cell=escape(name), heads=heads,
            jacobian="∂a<sub>j</sub>/∂s<sub>i</sub> = a<sub>j</sub>(δ<sub>ij</sub> − a<sub>i</sub>)")
        self.caption.setText(self._caption)
        hidden = self.model.revealed < ALL_STAGES  # the lesson's guesses come first
        if hidden:
            self.views.setVisible(False)
            self.shown = self._nudged = None
            self.summary.setText(f"<span style='color:{MUTED}'>{translate('Sensitivity', HIDDEN_TEXT)}</span>")
            return
        epsilon = self.epsilon.value()
        self.ask_view(lambda: self.view.ask(head, what, row, col, epsilon))  # small: at once; large: later (``arrived``)

    def show_answer(self):
        """The nudge's changes once made; while made on the worker, "computing…" under those drawn before."""
        work = self.view.work
        self.caption.setText(self._caption + (computing_note() if work.state == COMPUTING else ""))
        if work.state == FAILED:
            self.views.setVisible(False)
            self.shown = self._nudged = None
            self.summary.setText(f"<span style='color:{BAD}'>{escape(work.reason)}</span>")
            return
        if work.state == COMPUTING:
            self.views.setVisible(self._nudged is not None)
            r = self.model.results
            before = (translate("Sensitivity", " — what is shown is from before the last change")
                      if self._nudged is not None else "")
            said = translate("Sensitivity", "<b>computing…</b> the nudge through {rows} × {cols} weights{before}")
            self.summary.setText(f"<span style='color:{MUTED}'>" + said.format(
                rows=r.heads.weights.shape[1], cols=r.heads.weights.shape[2], before=before) + "</span>")
            return
        nudged = work.result
        language = translate("Sensitivity", "no weight")  # (a change of language draws the same nudge again)
        if nudged is None or (nudged is self._nudged and language == self._language):
            return
        self._nudged, self.shown, self._language = nudged, nudged.sensitivity, language
        s = nudged.sensitivity
        qtok, tok = self.model.query_tokens, self.model.tokens
        masked = None if nudged.masked is None else {"scores": nudged.masked, "weights": nudged.masked}
        self.views.setVisible(True)
        self.views.show_changes(nudged.changes, qtok, tok, masked, nudged.biggest)
        self.views.highlight("scores", [(s.row, s.col)] if s.what == "S" else [])
        self.summary.setText(self._summary(nudged, self._cell_name(s.what, s.row, s.col)))

    def _summary(self, nudged, name):
        s, eps = nudged.sensitivity, nudged.epsilon
        qtok, tok = self.model.query_tokens, self.model.tokens
        weights = [f"A[{escape(qtok[i])} → {escape(tok[j])}] {change_text(s.weights[i, j] * eps)}"
                   for i, j in nudged.largest_weights]
        outputs = [f"O[{escape(qtok[i])}, d{j}] {change_text(s.output[i, j] * eps)}" for i, j in nudged.largest_outputs]
        if not weights and not outputs:
            masked = nudged.masked
            if s.what != "S":  # a query's or a key's number: a whole row or column of scores
                why = QT_TRANSLATE_NOOP("Sensitivity", "Nothing moves: {cell} is masked (its weight is 0 whatever the "
                                                       "score), or its row gives all its weight to one key.")
            elif masked is not None and masked[s.row, s.col]:
                why = QT_TRANSLATE_NOOP("Sensitivity", "Nothing moves: {cell} is masked (its weight is 0 whatever the "
                                                       "score).")
            else:
                why = QT_TRANSLATE_NOOP("Sensitivity", "Nothing moves: the row of {cell} gives all its weight to one "
                                                       "key (a weight of 1 or 0 moves by a(1 − a) = 0).")
            return f"<span style='color:{MUTED}'>" + translate("Sensitivity", why).format(cell=escape(name)) + "</span>"
        reach = (translate("Sensitivity", " (in heads {heads})").format(heads=", ".join(str(h + 1) for h in s.heads))
                 if len(s.heads) > 1 else "")
        said = translate("Sensitivity", "Nudging {cell} by +{epsilon}{reach} moves most: {weights}; {outputs}").format(
            cell=escape(name), epsilon=format_number(eps), reach=reach,
            weights=", ".join(weights) or translate("Sensitivity", "no weight"),
            outputs=", ".join(outputs) or translate("Sensitivity", "no output"))
        return said + self._faint_note(s)

    def _faint_note(self, s):
        """A score whose key gets almost no weight moves almost nothing (every ∂a_j/∂s_i carries a_i): say so,
        or the maps look blank and the panel broken."""
        if s.what != "S" or self.model.pending:
            return ""
        heads = self.model.results.heads
        head = min(self.model.selection.head, heads.weights.shape[0] - 1)
        if s.row >= heads.weights.shape[1] or s.col >= heads.weights.shape[2]:
            return ""
        weight = float(heads.weights[head, s.row, s.col])
        if not 0 < weight < FAINT_WEIGHT:
            return ""
        return f"<br><span style='color:{MUTED}'>" + translate(
            "Sensitivity", "Its weight is only {weight}: a score that gets almost no weight moves almost nothing "
                           "(each ∂a<sub>j</sub>/∂s<sub>i</sub> carries a<sub>i</sub>). Click a darker cell of ② to "
                           "nudge that one.").format(weight=value_text(weight)) + "</span>"

    def _clicked(self, stage, row, col):
        self.model.set_selection(row=row, key=col if stage != "output" else None)

    def _tooltip(self, stage, row, col):
        n = self._nudged
        qtok, tok = self.model.query_tokens, self.model.tokens
        if n is None or row >= len(qtok) or (stage != "output" and col >= len(tok)):
            return ""  # (a nudge drawn before a token was removed, while the next one is computed)
        s, eps = n.sensitivity, n.epsilon
        if stage == "output":
            value, cell = s.output[row, col], f"O[{qtok[row]}, d{col}]"
        else:
            value, cell = getattr(s, stage)[row, col], f"{'S' if stage == 'scores' else 'A'}[{qtok[row]} → {tok[col]}]"
        return (f"∂{cell}/∂ε = {value_text(value, TIP_DIGITS)}\n" + translate(
            "Sensitivity", "a nudge of ε = {epsilon} moves it by about {change}").format(
            epsilon=format_number(eps), change=change_text(value * eps, digits=TIP_DIGITS)))
