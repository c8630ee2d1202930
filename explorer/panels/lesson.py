"""F7 The step-through lesson: ① → ② → ③ with guess-then-reveal, the chapter's four guided experiments,
and live checks (rows sum to 1, outputs stay in the convex hull of V).

The verdicts and checks come from ``explorer.core.lesson``; this panel only words them.
"""
from dataclasses import dataclass
from html import escape

import numpy as np
from PySide6.QtCore import QPoint, QSize, Qt, Signal
from PySide6.QtWidgets import (QComboBox, QFrame, QGroupBox, QHBoxLayout, QLabel, QPushButton, QScrollArea,
                               QSizePolicy, QVBoxLayout, QWidget)

from explorer.core.lesson import (darkest_cols_in_row, demo_state, distinguishing_decimals, guess_fits, judge_guess,
                                  lesson_checks, top_contributors)
from explorer.core.presets import demo_session
from explorer.core.readout import row_readout
from explorer.model import ALL_STAGES, SETTINGS, STRUCTURE, VALUES
from explorer.widgets.cell_text import format_value

from .base import Panel

OK, BAD = "#1b7f3b", "#b00020"
CARD_STYLE = """
QGroupBox { font-weight: 600; }
QFrame#lessonCard { border: 1px solid #d3d9e1; border-radius: 6px; background: #fbfcfd; }
QFrame#lessonCard[current="true"] { border: 2px solid #4a7bd0; background: #f4f8ff; }
QLabel#lessonNote { background: #fff7e0; border: 1px solid #ecd9a3; border-radius: 4px; padding: 6px; }
QWidget#lessonHeader { border-bottom: 1px solid #d3d9e1; }
"""
WARN = "#8a5a00"
NOT_DEMO = "Not the demo's numbers or settings — Set it up to load them"

STEPS = (
    # (stage, title, formula, panel, 中文 from the chapter, English)
    (1, "① Scores", "S = Q Kᵀ / √d", "Scores",
     "「一次矩阵乘,L² 个点积批发到手。」除以 √d = 「把温度校准回『有分辨力但不极端』的区间」。",
     "One matrix multiplication delivers all L² dot products at once; dividing by √d keeps the scores "
     "discriminating but not extreme."),
    (2, "② Weights", "A = softmax(S)", "Weights",
     "「分数表逐行过 softmax……每行变成非负、和为 1 的注意力权重」。",
     "The score table goes through softmax one row at a time: each row becomes non-negative attention "
     "weights that sum to 1 — a budget."),
    (3, "③ Output", "O = A · V", "Output",
     "「O 的第 i 行 = 权重行 · V 矩阵 = 各词 value 的凸组合」,「输出不会跑出各 V 围成的凸包」。",
     "Row i of O = the weight row · V = a convex combination of the tokens' values, so the output never "
     "leaves the convex hull of the V rows."),
)

EXPERIMENTS = (
    ("① 单步走,每一步先猜再看 · Step through, guessing first",
     "按 ①→②→③ 单步走,每一步先猜再看:分数表里哪格该深?softmax 后每行是不是和为 1?",
     "Step through ①→②→③, guessing before each look: which cell of the score table should be darkest? "
     "After the softmax, does every row sum to 1?"),
    ("② 盯「追」那一行 · The row of 追",
     "盯「追」那一行:它同时深看「猫」与「激光点」——动词把主语宾语的信息抓进自己的新向量,readout "
     "里能看到它的输出确实混进了两者的成分。",
     "Watch the row of 追: it looks hard at both 猫 and 激光点 — the verb pulls the subject and the object "
     "into its new vector, and its output really mixes in both."),
    ("③ 「激光点」看「红色」 · 激光点 looks at 红色",
     "盯「激光点」那行对「红色」的权重:修饰关系被捕捉。",
     "Watch the weight in the row of 激光点 on 红色: the modifier relation is captured."),
    ("④ 复盘:机制是死的,权重是学的 · The mechanism is fixed, the weights are learned",
     "整个过程只有矩阵乘和一个 softmax,而「谁看谁」的智能,全部来自 Q、K 投影矩阵里被训练出来的数字——"
     "机制是死的,权重是学的。",
     "The whole process is matrix multiplications and one softmax; the intelligence of who looks at whom "
     "comes entirely from the trained numbers in Q and K. Try it: swap the K rows of 猫 and 红色 — "
     "nothing in the mechanism changes, yet 追 now looks at 红色 instead of 猫. The pattern follows the "
     "numbers in K."),
)

CHASE, CAT, RED, DOT = 1, 0, 2, 3  # rows of the demo 「猫 追 红色 激光点」


def _label(text="", role=None):
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    if role == "zh":
        label.setStyleSheet("color: #1d232b;")
    elif role == "en":
        label.setStyleSheet("color: #4a5360;")
    return label


def _mark(ok):
    return f"<span style='color:{OK if ok else BAD}; font-weight:600'>{'✓' if ok else '✗'}</span>"


def _fixed(x, decimals):
    """``x`` with ``decimals`` decimals, a true minus sign and no "−0.00"."""
    text = f"{float(x):.{decimals}f}"
    if text.startswith("-") and text.strip("-0.") == "":
        text = text[1:]
    return text.replace("-", "−")


def _weight(x, decimals=2):
    """A weight as the heatmaps print it (two decimals), or as many as ``decimals``; a weight too small
    to show but not zero reads "<0.01" rather than a misleading "0.00"."""
    x = float(x)
    if 0 < x < 0.5 * 10.0 ** -decimals:
        return f"<{10.0 ** -decimals:.{decimals}f}"
    return _fixed(x, decimals)


def weight_texts(values, among=None):
    """Texts for ``values`` with two decimals, or more when two different numbers of ``among`` (default
    ``values``) would otherwise read the same — the numbers a card or verdict names side by side."""
    d = distinguishing_decimals(values if among is None else among)
    return [_weight(x, d) for x in values]


def _tiny(x):
    return "0" if x == 0 else f"{x:.1e}"


def _names(labels, cols):
    names = [escape(labels[c]) for c in cols]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _vector(values):
    """An output row as the Output heatmap prints it: [0.45, 0.18, 0.41]."""
    values = np.asarray(values, dtype=float)
    magnitude = float(np.max(np.abs(values))) if values.size else 0.0
    return "[" + ", ".join(format_value(float(x), magnitude) for x in values) + "]"


def _cols(columns):
    lo, hi = int(columns[0]), int(columns[-1])
    return f"d{lo}" if lo == hi else f"d{lo}–d{hi}"


@dataclass(frozen=True)
class _Frozen:
    """A verdict as it was written when its stage was revealed, and the numbers it judged."""

    guess: tuple
    text: str
    matrix: np.ndarray
    mask: object


class _Card(QFrame):
    """One guided experiment: its title, the chapter's sentence, English, live numbers, buttons."""

    def __init__(self, title, zh, en, parent=None):
        super().__init__(parent)
        self.setObjectName("lessonCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(4)
        self.title = _label(f"<b>{escape(title)}</b>")
        self.zh = _label(escape(zh), "zh")
        self.en = _label(escape(en), "en")
        self.live = _label()
        self.note = _label()
        self.note.setVisible(False)
        self.buttons = QHBoxLayout()
        self.setup_button = QPushButton("Set it up")
        self.buttons.addWidget(self.setup_button)
        self.buttons.addStretch(1)
        for w in (self.title, self.zh, self.en, self.live, self.note):
            layout.addWidget(w)
        layout.addLayout(self.buttons)
        self.note_index = None  # the undo-stack index the note was written for (None: any)

    def say(self, text, index=None):
        """Show ``text`` under the card; with ``index``, only while the undo stack stays at that index."""
        self.note.setText(text)
        self.note.setVisible(bool(text))
        self.note_index = index if text else None


class _Step(QFrame):
    """One of ① ② ③: formula, the chapter's sentence, the guess or the verdict, and its Reveal button."""

    def __init__(self, stage, title, formula, zh, en, parent=None):
        super().__init__(parent)
        self.stage = stage
        self.setObjectName("lessonCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(4)
        top = QHBoxLayout()
        formula = escape(formula).replace(" ", "&nbsp;")  # the formula stays on one line
        self.title = _label(f"<b>{escape(title)}</b> &nbsp; <span style='font-family:serif'>{formula}</span>")
        self.reveal_button = QPushButton(f"Reveal {title[0]}")
        self.reveal_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        top.addWidget(self.title, 1)
        top.addWidget(self.reveal_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(top)
        layout.addWidget(_label(escape(zh), "zh"))
        layout.addWidget(_label(escape(en), "en"))
        self.status = _label()
        layout.addWidget(self.status)


class LessonPanel(Panel):
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
        self._verdicts = {}  # stage → _Frozen: the verdict written when the stage was revealed
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
        self.start_button = QPushButton("Start the lesson")
        self.start_button.setToolTip("Hide ① ② ③; guess the darkest cell of ① and ② and which values ③ mixes, "
                                     "before each reveal")
        self.start_button.clicked.connect(self.start)
        self.show_all_button = QPushButton("Show all")
        self.show_all_button.clicked.connect(lambda: self.model.set_revealed(ALL_STAGES))
        row.addWidget(self.start_button)
        row.addWidget(self.show_all_button)
        row.addStretch(1)
        head.addLayout(row)
        pick = QHBoxLayout()
        pick.addWidget(QLabel("Row to guess in:"))
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
        intro = _label("<b>先猜再看 — guess first, then look.</b> Attention = 三次矩阵乘夹一个 softmax: "
                       "three matrix multiplications around one softmax.")
        layout.addWidget(intro)

        # ----- step-through ------------------------------------------------------------------------
        self.steps_box = QGroupBox("Step through ① → ② → ③")
        steps = QVBoxLayout(self.steps_box)
        steps.setSpacing(6)
        self.instruction = _label()
        self.instruction.setObjectName("lessonNote")
        steps.addWidget(self.instruction)
        self.steps = []
        for stage, title, formula, _panel, zh, en in STEPS:
            step = _Step(stage, title, formula, zh, en)
            step.reveal_button.clicked.connect(lambda checked=False, s=stage: self.reveal(s))
            steps.addWidget(step)
            self.steps.append(step)
        layout.addWidget(self.steps_box)

        # ----- the chapter's experiments -------------------------------------------------------------
        box = QGroupBox("Experiments · 实验引导")
        cards = QVBoxLayout(box)
        cards.setSpacing(8)
        cards.addWidget(_label("The chapter's four guided experiments, on its demo 「猫 追 红色 激光点」. "
                               "<i>Set it up</i> brings its numbers back if you changed them — as one undo step, "
                               "so Ctrl+Z returns yours.", "en"))
        self.cards = [_Card(*texts) for texts in EXPERIMENTS]
        for i, card in enumerate(self.cards):
            card.setup_button.clicked.connect(lambda checked=False, n=i + 1: self.set_up(n))
            cards.addWidget(card)
        self.swap_button = QPushButton("Swap K rows of 猫 and 红色")
        self.swap_button.clicked.connect(self.toggle_swap)
        swap_row = QHBoxLayout()  # a row of its own, so the card stays narrow in a slim dock
        swap_row.addWidget(self.swap_button)
        swap_row.addStretch(1)
        self.cards[3].layout().insertLayout(self.cards[3].layout().count() - 1, swap_row)
        layout.addWidget(box)

        # ----- live checks ---------------------------------------------------------------------------
        checks = QGroupBox("Live checks")
        lay = QVBoxLayout(checks)
        self.sum_check = _label()
        self.hull_check = _label()
        self.hull_check.setToolTip(
            "Per output row i: every weight ≥ 0 and the row sums to 1 (a convex recipe, up to rounding), and "
            "O_i is within the shown distance of the point p_i = w⁺_i·V made with the recipe clipped at 0 "
            "and renormalised — p_i is a convex combination of V's rows, so it lies in their hull.")
        self.excluded_note = _label()
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
        return self.model.set_session(demo_session(), "Set up the chapter's demo")

    def _say_loaded(self, card, loaded, text="Loaded the demo's numbers (one undo step: Ctrl+Z brings yours back)."):
        """The note under a card after Set it up; it goes as soon as the undo stack moves (Ctrl+Z, an edit)."""
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
            self._say_loaded(self.cards[3], True, "Loaded the demo's numbers, then swapped the K rows (two undo "
                                                  "steps: Ctrl+Z twice brings yours back).")

    # ----- guesses and frozen verdicts ---------------------------------------------------------------
    def _guess(self, stage):
        """The reader's guess for stage 1 or 2 if it still names a cell of what that stage shows; else None.

        Stage ③ takes no darkest-cell guess: the reader predicts which values the row mixes instead.
        """
        if stage not in (1, 2) or self.model.results is None:
            return None
        guess = self.model.guesses.get(stage)
        matrix, _, labels = self._stage_view(stage)
        if not guess_fits(guess, matrix.shape) or not guess_fits(guess, (len(self.model.tokens), len(labels))):
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
                    self._verdicts[stage] = _Frozen(
                        guess=tuple(m.guesses[stage]), text=self._verdict_text(stage, guess),
                        matrix=np.array(matrix, copy=True), mask=None if mask is None else np.array(mask, copy=True))
        self._seen_revealed = rev

    def _fits(self, results):
        """The results are for the current tokens (a failed recompute leaves older ones behind)."""
        return results.heads.weights.shape[-1] == len(self.model.tokens)

    # ----- drawing -----------------------------------------------------------------------------------
    def _start_label(self):
        m = self.model
        return "Start again" if m.revealed < ALL_STAGES or m.guesses else "Start the lesson"

    def render(self, flags):
        m = self.model
        if flags & STRUCTURE or self.row_combo.count() != len(m.tokens):
            self.row_combo.blockSignals(True)
            self.row_combo.clear()
            self.row_combo.addItems(list(m.tokens))
            self.row_combo.blockSignals(False)
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

    def _render_steps(self):
        m = self.model
        tokens, row = m.tokens, m.settings.selected_row
        nxt = m.revealed + 1
        if nxt <= 2:
            panel = STEPS[nxt - 1][3]
            guess = self._guess(nxt)
            if guess:
                _, _, labels = self._stage_view(nxt)
                self.instruction.setText(
                    f"Your guess for {'①②③'[nxt - 1]}: <b>{escape(labels[guess[1]])}</b> in the row of "
                    f"<b>{escape(tokens[guess[0]])}</b>. Press <b>Reveal {'①②③'[nxt - 1]}</b> to check.")
            else:
                self.instruction.setText(
                    f"Click the cell you expect to be darkest in the row of <b>{escape(tokens[row])}</b> in the "
                    f"<b>{panel}</b> panel, then press <b>Reveal {'①②③'[nxt - 1]}</b>.")
        elif nxt == 3:
            self.instruction.setText(
                f"Which values will the row of <b>{escape(tokens[row])}</b> mix? Predict the rows of V with the "
                f"largest weights in ② — think, then press <b>Reveal ③</b>.")
        else:
            self.instruction.setText(f"All three stages are shown. <b>{self._start_label()}</b> hides them again, "
                                     f"so you can guess before each reveal.")
        for step in self.steps:
            shown = m.revealed >= step.stage
            step.reveal_button.setEnabled(m.revealed == step.stage - 1)
            step.reveal_button.setText(f"{'①②③'[step.stage - 1]} shown" if shown else
                                       f"Reveal {'①②③'[step.stage - 1]}")
            if step.property("current") != (step.stage == nxt):  # the next stage to reveal is outlined
                step.setProperty("current", step.stage == nxt)
                step.style().unpolish(step)
                step.style().polish(step)
            step.status.setText(self._step_status(step.stage))

    def _step_status(self, stage):
        m = self.model
        tokens = m.tokens
        if stage == 3:
            return self._mix_status()
        guess = self._guess(stage)
        panel = STEPS[stage - 1][3]
        matrix, mask, labels = self._stage_view(stage)
        if m.revealed < stage:
            if guess:
                return f"Your guess: {escape(tokens[guess[0]])} → <b>{escape(labels[guess[1]])}</b>"
            return f"<i>Hidden. Guess first: click a cell in the {panel} panel.</i>"
        if guess is None:
            row = m.settings.selected_row
            cols = darkest_cols_in_row(matrix, row, mask)
            if not cols:
                return f"Shown. The row of {escape(tokens[row])} is fully masked: no key to look at."
            each = " each" if len(cols) > 1 else ""
            value = self._values(stage, matrix[row], [matrix[row, cols[0]]])[0]
            return f"Shown. Darkest in the row of {escape(tokens[row])}: <b>{_names(labels, cols)}</b> ({value}{each})."
        frozen = self._verdicts.get(stage)
        if frozen is None or frozen.guess != tuple(m.guesses.get(stage, ())):
            return self._verdict_text(stage, guess)  # no reveal seen (the panel came later): judge now
        same = frozen.matrix.shape == matrix.shape and np.array_equal(frozen.matrix, matrix) and (
            (frozen.mask is None and mask is None) or (frozen.mask is not None and mask is not None
                                                       and np.array_equal(frozen.mask, mask)))
        if same:
            return frozen.text
        return (f"{frozen.text}<br><i style='color:#4a5360'>Judged on the numbers you revealed; they have changed "
                f"since. Start again to guess anew.</i>")

    def _values(self, stage, row_values, picked):
        """Texts for ``picked`` numbers of a row: weights with 2 decimals (more if the row needs them to tell
        different numbers apart), scores as the heatmap prints them."""
        if stage == 2:
            return weight_texts(picked, among=row_values)
        d = distinguishing_decimals(row_values)
        return [_fixed(x, d) for x in picked]

    def _verdict_text(self, stage, guess):
        """Judge the guess against what stage ``stage`` shows now (called when the stage is revealed)."""
        tokens = self.model.tokens
        matrix, mask, labels = self._stage_view(stage)
        v = judge_guess(matrix, guess, mask)
        who = escape(tokens[v.row])
        picked = escape(labels[v.guessed_col])
        if v.true_col is None:
            return f"{_mark(False)} the row of {who} is fully masked: no key to look at, every weight is 0."
        allowed = matrix[v.row] if mask is None else matrix[v.row][np.asarray(mask[v.row], dtype=bool)]
        mine, top = self._values(stage, allowed, [v.guessed_value, v.true_value])
        dark = _names(labels, v.tied_cols)
        each = " each" if len(v.tied_cols) > 1 else ""
        if v.correct:
            tie = f" — tied with {_names(labels, [c for c in v.tied_cols if c != v.guessed_col])}" \
                if len(v.tied_cols) > 1 else ""
            return f"{_mark(True)} right: <b>{picked}</b> ({mine}){tie}, in the row of {who}."
        verb = "are" if len(v.tied_cols) > 1 else "is"
        yours = "masked" if v.guessed_masked else mine
        return (f"{_mark(False)} the darkest in the row of {who} {verb} <b>{dark}</b> ({top}{each}), "
                f"you picked <b>{picked}</b> ({yours}).")

    def _mix_status(self):
        """Stage ③: before the reveal, the question (which values will the row mix?); after, the answer."""
        m = self.model
        r, h = m.results, self._head()
        row = m.settings.selected_row
        who = escape(m.tokens[row])
        if m.revealed < 3:
            return (f"<i>Hidden. Which rows of V will the row of {who} mix? The ones with the largest weights "
                    f"in ② — think, then reveal.</i>")
        _, mask, _ = self._stage_view(2)
        w = r.heads.weights[h]
        mix = top_contributors(w, row, mask)
        if mix.masked:
            return f"Shown. The row of {who} is fully masked: it mixes nothing, its output is 0."
        texts = weight_texts([x for _, x in mix.keys], among=w[row])
        parts = [f"<b>v({escape(m.tokens[j])})</b> {t}" for (j, _), t in zip(mix.keys, texts)]
        said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        rest = ""
        if mix.rest:
            rest = f"; the other {mix.rest} key{'s' if mix.rest > 1 else ''} hold {_weight(mix.rest_weight)}"
        head = ""
        if r.n_heads > 1:
            ro = row_readout(r.heads, r.v, row, h)
            head = f" Head {h + 1} of {r.n_heads}: its weights mix its slice V[:, {_cols(ro.columns)}]."
        most = "mostly " if mix.rest else ""
        return f"Shown. The row of {who} mixes {most}{said}{rest}.{head}"

    def _not_demo(self, state):
        """The warning of a card whose numbers or settings are not the chapter's demo ("" when they are)."""
        if state == "demo":
            return ""
        swapped = " (the K rows of 猫 and 红色 are swapped: experiment ④)" if state == "k_swapped" else ""
        return f"<span style='color:{WARN}'>⚠ {NOT_DEMO}{swapped}.</span><br>"

    def _render_cards(self):
        m = self.model
        r, h = m.results, self._head()
        state = self._demo_state()
        tokens = m.tokens
        demo_tokens = tokens == demo_session().tokens
        w = r.heads.weights[h]
        _, mask, _ = self._stage_view(2)

        def weights_of(row):
            return " · ".join(f"{escape(t)} {x}" for t, x in zip(tokens, weight_texts(w[row])))

        c1, c2, c3, c4 = self.cards
        shown = "".join(s for s, i in zip("①②③", range(1, 4)) if m.revealed >= i) or "none"
        sums = ""
        if m.revealed >= 2 and self._checks is not None:
            sums = (f" {_mark(self._checks.rows_sum_to_one)} every row of ② sums to 1 "
                    f"(max deviation {_tiny(self._checks.max_row_sum_deviation)}).")
        c1.live.setText(f"Stages shown: {shown}.{sums}")
        warn = self._not_demo(state)
        if not demo_tokens or m.revealed < ALL_STAGES:
            why = ("These tokens are not the demo's 「猫 追 红色 激光点」." if not demo_tokens else
                   "The numbers appear once ③ is revealed.")
            for card in (c2, c3, c4):
                card.live.setText(f"{warn if card is not c4 or state is None else ''}<i>{why}</i>")
        else:
            c2.live.setText(warn + self._chase_text(r, h))
            cols = darkest_cols_in_row(w, DOT, mask)
            red = weight_texts([w[DOT, RED]], among=w[DOT])[0]
            if not cols:
                verdict = f"{_mark(False)} the row of 激光点 is fully masked"
            elif RED in cols:
                others = [c for c in cols if c != RED]
                tie = f", tied with {_names(tokens, others)}" if others else ""
                verdict = f"{_mark(True)} the largest in its row{tie}"
            else:
                verb = "are" if len(cols) > 1 else "is"
                verdict = f"{_mark(False)} the largest {verb} now {_names(tokens, cols)}"
            c3.live.setText(f"{warn}激光点 → 红色 <b>{red}</b>: {verdict}.<br>Row of 激光点: {weights_of(DOT)}")
            k_now = {"demo": "K as in the demo", "k_swapped": "K rows of 猫 and 红色 <b>swapped</b>"}.get(
                state, "Not the demo's numbers or settings")
            hardest = _names(tokens, darkest_cols_in_row(w, CHASE, mask))
            head = f" (head {h + 1})" if r.n_heads > 1 else ""
            c4.live.setText(f"{k_now}: 追 looks hardest at <b>{hardest}</b>{head}.<br>"
                            f"Row of 追: {weights_of(CHASE)}")
        self.swap_button.setText("Swap them back" if state == "k_swapped" else "Swap K rows of 猫 and 红色")

    def _chase_text(self, r, h):
        """Card ②: the weights of 追 and O(追) as a mix of the value rows — with several heads, the selected
        head's weights times its own slice of V, giving that head's part of the output."""
        tokens = self.model.tokens
        ro = row_readout(r.heads, r.v, CHASE, h)
        texts = weight_texts(ro.weights)
        cat, dot = texts[CAT], texts[DOT]
        if r.n_heads == 1:
            mix = " + ".join(f"{t}·v({escape(tok)})" for tok, t in zip(tokens, texts))
            return (f"追 → 猫 <b>{cat}</b>, 激光点 <b>{dot}</b>.<br>"
                    f"O(追) = {mix} = {_vector(ro.output)}")
        n = h + 1
        mix = " + ".join(f"{t}·v<sub>{n}</sub>({escape(tok)})" for tok, t in zip(tokens, texts))
        cols = _cols(ro.columns)
        return (f"head {n} of {r.n_heads}: 追 → 猫 <b>{cat}</b>, 激光点 <b>{dot}</b>.<br>"
                f"head {n}: O<sub>{n}</sub>(追) = {mix} = {_vector(ro.output)}<br>"
                f"<span style='color:#4a5360'>v<sub>{n}</sub> = head {n}'s slice V[:, {cols}]; its output is "
                f"O[追, {cols}] (the heads are concatenated).</span>")

    def _render_checks(self):
        m, c = self.model, self._checks
        if c is None:
            return
        heads = m.results.n_heads
        where = f" in every head ({heads})" if heads > 1 else ""
        if m.revealed >= 2:
            self.sum_check.setText(f"{_mark(c.rows_sum_to_one)} every row of the weights sums to 1{where} "
                                   f"(max deviation {_tiny(c.max_row_sum_deviation)})")
        else:
            self.sum_check.setText("<i>Does every row of the weights sum to 1? Shown once ② is revealed — "
                                   "guess first.</i>")
        if m.revealed >= 3:
            of_v = "its head's slice of V" if heads > 1 else "V's rows"
            sample = f", {c.rows_checked} of {c.n_rows} rows sampled" if c.rows_checked < c.n_rows else ""
            self.hull_check.setText(f"{_mark(c.outputs_in_hull)} every output row lies in the convex hull of "
                                    f"{of_v} (worst distance {_tiny(c.worst_hull_distance)}{sample})")
        else:
            self.hull_check.setText("<i>Does every output row stay inside the convex hull of V? Shown once ③ is "
                                    "revealed.</i>")
        if c.excluded_rows:
            names = ", ".join(escape(m.tokens[i]) for i in c.excluded_rows[:8] if i < len(m.tokens))
            more = f" and {len(c.excluded_rows) - 8} more" if len(c.excluded_rows) > 8 else ""
            self.excluded_note.setText(f"Left out: {names}{more} — fully masked, no key to attend to "
                                       f"(weights 0, output 0).")
        else:
            self.excluded_note.setText("No row is fully masked: every row is checked.")
