"""F7 The step-through lesson: ① → ② → ③ with guess-then-reveal, the chapter's four guided experiments,
and live checks (rows sum to 1, outputs stay in the convex hull of V).

The verdicts and checks come from ``explorer.core.lesson``; this panel only words them.
"""
from explorer.weak import weakly
from explorer.widgets.html_escape import escape

import numpy as np
from PySide6.QtCore import QPoint, QSize, Qt, Signal
from PySide6.QtWidgets import (QComboBox, QFrame, QGroupBox, QHBoxLayout, QPushButton, QScrollArea,
                               QVBoxLayout, QWidget)

from explorer.core.lesson import demo_state, guess_fits, lesson_checks
from explorer.core.presets import demo_session
from explorer.model import ALL_STAGES, SETTINGS, STRUCTURE, VALUES
from explorer.i18n import current_language, translate

from ..base import Panel
from .cards import Card, Frozen, Step, label
from .experiments import ExperimentTexts
from .steps import StepTexts
from .texts import CARD_STYLE, CAT, CHASE, DOT, EXPERIMENTS, RED, SCORES_EN_CROSS, STEPS


class LessonPanel(StepTexts, ExperimentTexts, Panel):
    """F7: guess-then-reveal through ① ② ③, the chapter's four guided experiments, live checks.

    Signals:
        showPanel(str): the name of a dock the lesson wants in front (``"readout"`` when experiment ②
            is set up: its output really mixes 猫 and 激光点, and the Readout panel shows how). The panel
            cannot reach the main window; the window connects it to ``docks[name].raise_()``.
    """

    showPanel = Signal(str)

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self._checks = None
        self._checks_for = None
        self._verdicts = {}  # stage → Frozen: the verdict written when the stage was revealed
        self._seen_revealed = model.revealed
        self.setStyleSheet(CARD_STYLE)

        # ----- the step-through controls: a fixed header, never scrolled out of sight --------------------
        self.header = QWidget(self)
        self.header.setObjectName("lessonHeader")
        self.header.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        head = QVBoxLayout(self.header)
        head.setContentsMargins(8, 6, 8, 6)
        head.setSpacing(4)
        row = QHBoxLayout()
        self.start_button = QPushButton()
        self.keep_text(self.start_button.setToolTip, "Lesson", "Hide ① ② ③; guess the darkest cell of ① and ② and "
                       "which values ③ mixes, before each reveal")
        self.start_button.clicked.connect(self.start)
        self.show_all_button = QPushButton()
        self.keep_text(self.show_all_button.setText, "Lesson", "Show all")
        self.show_all_button.clicked.connect(lambda checked=False: model.set_revealed(ALL_STAGES))
        row.addWidget(self.start_button)
        row.addWidget(self.show_all_button)
        row.addStretch(1)
        head.addLayout(row)
        pick = QHBoxLayout()
        pick.addWidget(self.kept_label("Lesson", "Row to guess in:"))
        self.row_combo = QComboBox()
        self.row_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.row_combo.currentIndexChanged.connect(self._row_picked)
        pick.addWidget(self.row_combo)
        pick.addStretch(1)
        head.addLayout(pick)

        body = QWidget()
        body.setObjectName("lessonBody")
        self.body = body
        layout = QVBoxLayout(body)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(10)
        intro = label()
        self.keep_text(intro.setText, "Lesson", "<b>先猜再看 — guess first, then look.</b> Attention = 三次矩阵乘夹一个 "
                       "softmax: three matrix multiplications around one softmax.")
        layout.addWidget(intro)

        # ----- step-through ------------------------------------------------------------------------
        self.steps_box = QGroupBox()
        self.keep_text(self.steps_box.setTitle, "Lesson", "Step through ① → ② → ③")
        steps = QVBoxLayout(self.steps_box)
        steps.setSpacing(6)
        self.instruction = label()
        self.instruction.setObjectName("lessonNote")
        steps.addWidget(self.instruction)
        self.steps = []
        reveal, set_up = weakly(self.reveal), weakly(self.set_up)  # (the buttons are the panel's: no cycle)
        for stage, title, formula, _panel, zh, en in STEPS:
            step = Step(stage, translate("Lesson", title), formula, zh, en)
            self.keep_text(step.set_title, "Lesson", title)
            step.reveal_button.clicked.connect(lambda checked=False, s=stage: reveal(s))
            steps.addWidget(step)
            self.steps.append(step)
        layout.addWidget(self.steps_box)

        # ----- the chapter's experiments -------------------------------------------------------------
        box = QGroupBox()
        self.keep_text(box.setTitle, "Lesson", "Experiments · 实验引导")
        cards = QVBoxLayout(box)
        cards.setSpacing(8)
        about = label("", "en")
        self.keep_text(about.setText, "Lesson", "The chapter's four guided experiments, on its demo 「猫 追 红色 激光点」. "
                       "<i>Set it up</i> brings its numbers back if you changed them — as one undo step, so Ctrl+Z "
                       "returns yours.")
        cards.addWidget(about)
        self.cards = [Card(*texts) for texts in EXPERIMENTS]
        for i, card in enumerate(self.cards):
            self.keep_text(card.setup_button.setText, "Lesson", "Set it up")
            card.setup_button.clicked.connect(lambda checked=False, n=i + 1: set_up(n))
            cards.addWidget(card)
        self.swap_button = QPushButton()
        self.keep_text(self.swap_button.setText, "Lesson", "Swap K rows of 猫 and 红色")
        self.swap_button.clicked.connect(self.toggle_swap)
        swap_row = QHBoxLayout()  # a row of its own, so the card stays narrow in a slim dock
        swap_row.addWidget(self.swap_button)
        swap_row.addStretch(1)
        self.cards[3].layout().insertLayout(self.cards[3].layout().count() - 1, swap_row)
        layout.addWidget(box)

        # ----- live checks ---------------------------------------------------------------------------
        checks = QGroupBox()
        self.keep_text(checks.setTitle, "Lesson", "Live checks")
        lay = QVBoxLayout(checks)
        self.sum_check = label()
        self.hull_check = label()
        self.keep_text(self.hull_check.setToolTip, "Lesson",
                       "Per output row i: every weight ≥ 0 and the row sums to 1 (a convex recipe, up to rounding), "
                       "and O_i is within the shown distance of the point p_i = w⁺_i·V made with the recipe clipped "
                       "at 0 and renormalised — p_i is a convex combination of V's rows, so it lies in their hull.")
        self._show_languages()
        self.excluded_note = label()
        for w in (self.sum_check, self.hull_check, self.excluded_note):
            lay.addWidget(w)
        layout.addWidget(checks)
        layout.addStretch(1)

        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)  # only below ~240 px
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidget(body)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        outer.addWidget(self.header)
        outer.addWidget(self.scroll, 1)
        self.setMinimumWidth(260)
        model.history_moved.connect(self._undo_moved)

    def _show_languages(self):
        """In 中文 the chapter's own sentences stand alone: their English renderings are left out."""
        english = current_language() != "zh"
        for card in (*self.steps, *self.cards):
            card.en.setVisible(english)
        for card in self.cards:  # an experiment's title: the chapter's Chinese · English, in 中文 the Chinese alone
            card.title.setText(f"<b>{escape(card.title_text if english else card.title_text.split(' · ')[0])}</b>")

    def language_changed(self):
        self._show_languages()  # (a verdict already given stays as it was written: it judged the numbers then)
        super().language_changed()

    def sizeHint(self):
        return QSize(480, 720)

    # ----- actions -----------------------------------------------------------------------------------
    def start(self):
        """Hide ① ② ③ (and forget old guesses); the reader guesses before each reveal."""
        self.model.set_revealed(0)
        self.scroll_to_steps()

    def scroll_to_steps(self):
        """Scroll so the step-through section starts at the top of the view (its instruction, then ①)."""
        top = self.steps_box.mapTo(self.body, QPoint(0, 0)).y()
        self.scroll.verticalScrollBar().setValue(max(0, top - 4))

    def reveal(self, stage):
        if self.model.revealed == stage - 1:
            self.model.set_revealed(stage)

    def _row_picked(self, index):
        if index >= 0:
            self.model.set_selection(row=index)

    def _demo_state(self):
        m = self.model
        return demo_state(m.tokens, {n: m.matrix(n) for n in "QKV"}, m.settings)

    def _load_demo(self):
        """Bring the demo's numbers back (one undo step) unless they are already there; True if loaded."""
        if self._demo_state() == "demo":
            return False
        return self.model.set_session(demo_session(), translate("Lesson", "Set up the chapter's demo"))

    def _say_loaded(self, card, loaded, text=None):
        """The note under a card after Set it up; it goes as soon as the undo stack moves (Ctrl+Z, an edit)."""
        text = text or translate("Lesson", "Loaded the demo's numbers (one undo step: Ctrl+Z brings yours back).")
        card.say(text if loaded else "", self.model.history_index())

    def _undo_moved(self, index):
        for card in self.cards:
            if card.note_index is not None and card.note_index != index:
                card.say("")

    def set_up(self, n):
        """Put the window in the state experiment ``n`` (1–4) needs."""
        card = self.cards[n - 1]
        loaded = self._load_demo()
        self.model.set_selection(row=DOT if n == 3 else CHASE)
        if n == 1:
            self.start()
        else:
            self.model.set_revealed(ALL_STAGES)
        self._say_loaded(card, loaded)
        if n == 2:
            self.showPanel.emit("readout")  # the readout shows how O(追) mixes 猫 and 激光点

    def toggle_swap(self):
        """Experiment ④: swap the K rows of 猫 and 红色 (a second click swaps them back); undoable."""
        loaded = self._demo_state() is None and self._load_demo()
        self.model.set_selection(row=CHASE)
        self.model.set_revealed(ALL_STAGES)
        self.model.swap_tokens("K", CAT, RED)
        if loaded:
            self._say_loaded(self.cards[3], True, translate("Lesson", "Loaded the demo's numbers, then swapped the K "
                                                                      "rows (two undo steps: Ctrl+Z twice brings yours "
                                                                      "back)."))

    # ----- guesses and frozen verdicts ---------------------------------------------------------------
    def _guess(self, stage):
        """The reader's guess for stage 1 or 2 if it still names a cell of what that stage shows; else None.

        Stage ③ takes no darkest-cell guess: the reader predicts which values the row mixes instead.
        """
        if stage not in (1, 2) or self.model.results is None:
            return None
        guess = self.model.guesses.get(stage)
        matrix, _, labels = self._stage_view(stage)
        if not guess_fits(guess, matrix.shape) or not guess_fits(guess, (len(self.model.query_tokens), len(labels))):
            return None
        return int(guess[0]), int(guess[1])

    def _on_changed(self, flags):
        self._track_reveals()  # even while hidden: a verdict is written when its stage is revealed
        super()._on_changed(flags)

    def _track_reveals(self):
        """Freeze the verdict of every stage just revealed; forget those of a restart or a guess now gone."""
        m = self.model
        rev = m.revealed
        self._verdicts = {s: v for s, v in self._verdicts.items() if s <= rev and m.guesses.get(s) == v.guess}
        if rev > self._seen_revealed and m.results is not None and self._fits(m.results):
            for stage in range(self._seen_revealed + 1, rev + 1):
                guess = self._guess(stage)
                if guess is not None:
                    matrix, mask, _ = self._stage_view(stage)
                    self._verdicts[stage] = Frozen(
                        guess=tuple(m.guesses[stage]), text=self._verdict_text(stage, guess),
                        matrix=np.array(matrix, copy=True), mask=None if mask is None else np.array(mask, copy=True))
        self._seen_revealed = rev

    def _fits(self, results):
        """The results are for the current tokens (a failed recompute leaves older ones behind)."""
        return results.heads.weights.shape[-1] == len(self.model.tokens)

    # ----- drawing -----------------------------------------------------------------------------------
    def _start_label(self):
        m = self.model
        return (translate("Lesson", "Start again") if m.revealed < ALL_STAGES or m.guesses
                else translate("Lesson", "Start the lesson"))

    def render(self, flags):
        m = self.model
        if flags & STRUCTURE or self.row_combo.count() != len(m.query_tokens):
            self.row_combo.blockSignals(True)
            self.row_combo.clear()
            self.row_combo.addItems(list(m.query_tokens))
            self.row_combo.blockSignals(False)
            self.steps[0].en.setText(escape(SCORES_EN_CROSS if m.cross else STEPS[0][5]))
        if self.row_combo.currentIndex() != m.settings.selected_row:
            self.row_combo.blockSignals(True)
            self.row_combo.setCurrentIndex(m.settings.selected_row)
            self.row_combo.blockSignals(False)
        self.start_button.setText(self._start_label())
        if m.results is None or not self._fits(m.results):
            return
        if m.results is not self._checks_for or flags & (STRUCTURE | VALUES | SETTINGS):
            self._checks = lesson_checks(m.results)
            self._checks_for = m.results
        self._render_steps()
        self._render_cards()
        self._render_checks()

    def _stage_view(self, stage):
        """(matrix, allowed-mask or None, column labels) that stage ``stage`` shows for the selected head."""
        r, h = self.model.results, self.model.settings.selected_head
        h = min(h, r.n_heads - 1)
        if stage == 3:
            o = r.heads.output
            return o, None, [f"d{j}" for j in range(o.shape[1])]
        mat = (r.heads.scores if stage == 1 else r.heads.weights)[h]
        mask = r.allowed(h)
        return mat, mask, list(self.model.tokens)

    def _head(self):
        r = self.model.results
        return min(self.model.settings.selected_head, r.n_heads - 1)

