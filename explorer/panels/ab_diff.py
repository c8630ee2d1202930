"""F23 A/B diff: mark a state as A, keep editing, and see B − A (B the state now) for ① S, ② A and ③ O,
gold where B is higher, blue where lower, with the cells that moved most named. A is kept by the model
(``model.comparison``), which makes B − A (``explorer.core.state_diff``) on a worker when large: "computing…" until
it comes; this file only draws it."""
from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton

from explorer.i18n import translate
from explorer.model import ALL_STAGES
from explorer.model.background import COMPUTING, FAILED, READY
from explorer.weak import weakly
from explorer.widgets.html_escape import escape
from explorer.widgets.palette import BAD, MUTED

from .base import ALL, Panel
from .worker_answers import WorkerAnswers
from .change_views import TIP_DIGITS, ChangeViews, change_text, stacked, value_text

TIP = QT_TRANSLATE_NOOP(
    "ABDiff", "Mark the state now as A (Edit ▸ Mark as A for comparison), keep editing, and compare: every cell "
    "shows B − A, B being the state now — gold where B is higher, blue where lower, pale where nothing moved. Or "
    "compare with a saved session of the same shape (Edit ▸ Compare with saved session…).")
# the stages by name in the list of largest changes: "A" there would read as the marked state
STAGE_NAMES = {"scores": QT_TRANSLATE_NOOP("ABDiff", "① scores S"), "weights": QT_TRANSLATE_NOOP("ABDiff", "② weights A"),
               "output": QT_TRANSLATE_NOOP("ABDiff", "③ output O")}
TITLES = {"scores": "① S: B − A", "weights": "② A: B − A", "output": "③ O: B − A"}  # (formulas)
TIPS = {"scores": QT_TRANSLATE_NOOP("ABDiff", "How each score of the shown head differs from A's"),
        "weights": QT_TRANSLATE_NOOP("ABDiff", "How each weight of the shown head differs from A's: a row's changes "
                                               "sum to 0"),
        "output": QT_TRANSLATE_NOOP("ABDiff", "How each output number differs from A's")}
SYMBOL = {"scores": "S", "weights": "A", "output": "O"}


class ABDiffPanel(WorkerAnswers, Panel):
    """B − A of the shown head's S and A and of O, what A is, and the largest changes by stage."""

    compareFileWanted = Signal()  # "Compare with saved session…": the window asks for the file and reads it

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.keep_text(weakly(self._say_tip), "ABDiff", TIP)  # (its own method: weakly, or a cycle)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.mark_button = QPushButton(self)
        self.keep_text(self.mark_button.setText, "ABDiff", "Mark as A")
        self.keep_text(self.mark_button.setToolTip, "ABDiff", "Keep the state now as A; edit on, and each stage shows "
                                                              "B − A")
        self.mark_button.clicked.connect(self.mark)
        self.file_button = QPushButton(self)
        self.keep_text(self.file_button.setText, "ABDiff", "Compare with saved session…")
        self.keep_text(self.file_button.setToolTip, "ABDiff", "Take A from a saved session of the same shape (the "
                                                              "file is only read)")
        self.file_button.clicked.connect(self.compareFileWanted)
        self.clear_button = QPushButton(self)
        self.keep_text(self.clear_button.setText, "ABDiff", "Clear A")
        self.keep_text(self.clear_button.setToolTip, "ABDiff", "Forget A")
        self.clear_button.clicked.connect(model.comparison.clear)
        buttons = QHBoxLayout()
        for button in (self.mark_button, self.file_button, self.clear_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.views = ChangeViews(TITLES, TIPS, self)
        for stage in TIPS:
            views = self.views  # (the setters hold the views, not the panel)
            self.keep_text(lambda said, s=stage, v=views: v.set_tip(s, said), "ABDiff", TIPS[stage])
        self.views.tooltip = weakly(self._tooltip, "")
        self.views.clicked = lambda stage, row, col: model.set_selection(row=row)
        layout, self.summary = stacked(self, self.caption, buttons, self.views)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addStretch(0)  # takes the height while the maps are hidden (else the words spread down the panel)
        self._layout = layout
        self.diff = None  # the StageDiff on screen
        self._drawn_head = None  # the head ``diff`` is drawn of
        self._caption = ""  # what A is, before "computing…" (the summary may be scrolled away)
        self._language = ""  # a text of the language ``diff`` was drawn in (a change of language draws it again)
        on_changed = weakly(self._on_changed)  # (the model's signals: they must not keep the panel)
        model.comparison.changed.connect(lambda: on_changed(ALL))
        model.comparison.work.changed.connect(weakly(self.arrived))

    def _show_views(self, on):
        self.views.setVisible(on)
        self._layout.setStretch(self._layout.count() - 1, 0 if on else 1)

    def mark(self):
        done = self.model.comparison.mark()
        if not done:
            self.model.notify(done.reason)

    def _say_tip(self, text):
        self.setToolTip(text)

    def render(self, flags):
        c = self.model.comparison
        self.clear_button.setEnabled(c.marked is not None)
        hidden = self.model.revealed < ALL_STAGES  # the lesson's guesses come first
        if c.marked is None:
            self.diff = None
            self._show_views(False)
            self.caption.setText(translate("ABDiff", "<b>A/B diff</b>: no A yet — <i>Mark as A</i> keeps the state "
                                                     "now; edit on, and every stage shows B − A (B is the state now)"))
            said = translate("ABDiff", "Or compare with a saved session of the same shape.")
            self.summary.setText(f"<span style='color:{MUTED}'>{said}</span>")
            return
        self._caption = translate("ABDiff", "<b>A/B diff</b>: A is {name}; B is the state now").format(
            name=escape(c.name))
        self.caption.setText(self._caption)
        if hidden:
            self.diff = None
            self._show_views(False)
            said = translate("ABDiff", "B − A stays hidden until the lesson has revealed ② and ③")
            self.summary.setText(f"<span style='color:{MUTED}'>{said}</span>")
            return
        self.ask_view(c.ask)  # small: at once; large: later (``arrived``)

    def show_answer(self):
        """B − A once made; while made on the worker, "computing…" under the one drawn before."""
        c, work = self.model.comparison, self.model.comparison.work
        if c.marked is None or self.model.revealed < ALL_STAGES:
            return
        computing = translate("ABDiff", "computing…")
        self.caption.setText(self._caption + (f" <span style='color:{MUTED}'><b>· {computing}</b></span>"
                                              if work.state == COMPUTING else ""))
        if work.state == FAILED:
            self.diff = None
            self._show_views(False)
            self.summary.setText(f"<span style='color:{BAD}'>{escape(work.reason)}</span>")
            return
        if work.state == COMPUTING:
            self._show_views(self.diff is not None)
            n, lq, lk, _ = c.marked.shape
            before = (translate("ABDiff", " — what is shown is from before the last change")
                      if self.diff is not None else "")
            said = translate("ABDiff", "<b>computing…</b> B − A of {n} weights{before}").format(
                n=f"{n * lq * lk:,}", before=before)
            self.summary.setText(f"<span style='color:{MUTED}'>{said}</span>")
            return
        compared, head = work.result if work.state == READY else None, self.model.selection.head
        diff = None if compared is None else compared.diff
        if diff is None or (diff is self.diff and head == self._drawn_head and self.views.isVisibleTo(self)
                            and self._language == translate("ABDiff", "Largest changes — ")):
            return  # (drawn already)
        self.diff, self._drawn_head, self._language = diff, head, translate("ABDiff", "Largest changes — ")
        self._show_views(True)
        heads = translate("ABDiff", " (head {head})").format(head=head + 1) if self.model.settings.heads > 1 else ""
        for stage in ("scores", "weights"):
            self.views.set_title(stage, f"{'①②'[stage == 'weights']} {SYMBOL[stage]}: B − A{heads}")
        masked = None if diff.masked is None else {"scores": diff.masked[head], "weights": diff.masked[head]}
        biggest = {"scores": compared.biggest["scores"][head], "weights": compared.biggest["weights"][head],
                   "output": compared.biggest["output"]}
        self.views.show_changes({"scores": diff.scores[head], "weights": diff.weights[head], "output": diff.output},
                                self.model.query_tokens, self.model.tokens, masked, biggest)
        self.summary.setText(self._summary(diff))

    def _cell(self, change):
        qtok, tok = self.model.query_tokens, self.model.tokens
        if change.stage == "output":
            return f"O[{qtok[change.row]}, d{change.col}]"
        head = (translate("ABDiff", " (head {head})").format(head=change.head + 1) if self.model.settings.heads > 1
                else "")
        return f"{SYMBOL[change.stage]}[{qtok[change.row]} → {tok[change.col]}]{head}"

    def _summary(self, diff):
        if diff.unchanged:
            said = translate("ABDiff", "B is the same as A: nothing moved.")
            return f"<span style='color:{MUTED}'>{said}</span>"
        lines = []
        for stage, changes in diff.largest.items():
            if changes:
                said = ", ".join(f"{escape(self._cell(ch))} {value_text(ch.before)} → "
                                 f"{value_text(ch.after)} ({change_text(ch.delta)})" for ch in changes)
                lines.append(f"<b>{translate('ABDiff', STAGE_NAMES[stage])}</b>: {said}")
        return translate("ABDiff", "Largest changes — ") + "<br>".join(lines)

    def _tooltip(self, stage, row, col):
        d, c = self.diff, self.model.comparison
        qtok, tok = self.model.query_tokens, self.model.tokens
        if d is None or c.marked is None or d.scores.shape[1:] != c.marked.scores.shape[1:] or row >= len(qtok) \
                or (stage != "output" and col >= len(tok)):
            return ""  # (a B − A drawn before the shape changed, while the next one is computed)
        if stage == "output":
            index, cell = (row, col), f"O[{qtok[row]}, d{col}]"
        else:
            index, cell = (self.model.selection.head, row, col), f"{SYMBOL[stage]}[{qtok[row]} → {tok[col]}]"
        a = getattr(c.marked, stage)[index]
        b = a + getattr(d, stage)[index]
        return translate("ABDiff", "{cell}\nin A (marked): {a}\nin B (now): {b}\nB − A = {change}").format(
            cell=cell, a=value_text(a, TIP_DIGITS), b=value_text(b, TIP_DIGITS),
            change=change_text(b - a, digits=TIP_DIGITS))
