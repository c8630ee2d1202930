"""F9 The RoPE visualizer: q and k of one head, pair by pair, turned by their positions.

The chapter: "旋转派(RoPE)——把 Q、K 向量按位置旋转不同角度 … 妙处是两个被旋转过的向量做点积,结果只依赖角度差,
即相对距离". Four views of that sentence: one pair of q_m and k_n as arrows in their plane (the angle
between them only moves with m − n), the spectrum of turning speeds θ_i, the score q_m·k_n against
m − n at several absolute positions (the curves coincide), and a proof on the real heatmap: the same
q and k at every position give scores that are constant along each diagonal.

The RoPE settings (on/off, base, convention, offset, Llama 3.1's scaling) are the model's; the pair and
m, n of the rotation plane are this panel's own view, m and n following the query and key chosen anywhere
(the model's selection). Every number comes from ``explorer.core.rope_lesson`` and ``explorer.core.rope``.
"""
from dataclasses import replace

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QSignalBlocker
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QCheckBox, QComboBox, QPushButton

from explorer.core.rope_lesson import (diagonal_deviation, head_slice, is_constant_along_diagonals, locked_positions,
                                       same_row_everywhere, value_range)
from explorer.core.presets import random_session
from explorer.i18n import current_language, translate
from explorer.model import SELECTION, SETTINGS, STRUCTURE, VALUES
from explorer.weak import weakly
from explorer.widgets.html_escape import escape
from explorer.widgets.labelled_slider import LabelledSlider
from explorer.widgets.number_text import format_number

from ..base import Panel
from ..setting_controls import SettingControl, allow_switch
from .plots import POSITION_MAX, RopePlots
from .tiles import RopeTiles

QUOTE_ZH = ("旋转派(RoPE)——把 Q、K 向量按位置旋转不同角度(第 10 章的旋转小轮子、第 15 章的复数辐角),妙处是两个"
            "被旋转过的向量做点积,结果只依赖角度差,即相对距离——「我离你几个词」被编码进了内积的几何里。")
QUOTE_EN = ("The rotation school (RoPE) turns the Q and K vectors by a different angle at each position "
            "(chapter 10's little rotating wheels, chapter 15's complex arguments). The beauty: the dot product "
            "of two rotated vectors depends only on the difference of their angles — the relative distance. "
            "“How many words apart we are” is written into the geometry of the inner product.")
PROJECTED_NOTE = QT_TRANSLATE_NOOP("RoPE", "In projected mode Q and K are computed from X. Switch to direct mode (Controls → Q, K, V) to "
                  "use this button, or make every row of X the same by hand: every q and k is then the same "
                  "vector at every position, and the diagonals are constant too.")


class RopePanel(RopePlots, RopeTiles, Panel):
    """F9: RoPE settings bound to the model; one pair's rotation plane; θ_i spectrum; score vs m − n; diagonals."""

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self._fg = self.palette().color(QPalette.ColorRole.WindowText)
        self._bg = self.palette().color(QPalette.ColorRole.Base)
        self.distance = None  # m − n while "lock distance" is on
        self._followed = None  # (query row, key, offset, load) the m and n sliders were last set from
        self.view = None  # the PairView drawn, or None when there is nothing to draw
        self.curves = None  # score_vs_offset of the drawn head vectors
        self.deviation = None  # diagonal_deviation of the selected head's scores
        self._listed = None  # (tokens, heads) the combos list

        # ---- the model's RoPE settings
        self.rope_box = QCheckBox(self)
        self.keep_text(self.rope_box.setText, "RoPE", "RoPE on in the pipeline")
        self.rope_box.toggled.connect(self._rope_toggled)
        bound = {name: SettingControl(model, name, self, text) for name, text in
                 (("rope_base", "base"), ("rope_style", ""), ("rope_offset", ""), ("rope_scaling", ""),
                  ("rope_factor", "factor"), ("rope_low_freq_factor", ""), ("rope_high_freq_factor", ""),
                  ("rope_original_max_position_embeddings", ""))}
        self.base_slider, self.style_combo = bound["rope_base"].widget, bound["rope_style"].widget
        self.offset_box = bound["rope_offset"].widget
        self.scaling_combo, self.factor_slider = bound["rope_scaling"].widget, bound["rope_factor"].widget
        self.low_box, self.high_box = bound["rope_low_freq_factor"].widget, bound["rope_high_freq_factor"].widget
        self.context_box = bound["rope_original_max_position_embeddings"].widget
        self.bound = list(bound.values())
        self.keep_text(self.base_slider.setText, "RoPE", "base")
        self.keep_text(self.factor_slider.setText, "RoPE", "factor")
        labels = {name: self._buddy(text, bound[name].widget) for name, text in
                  (("rope_style", QT_TRANSLATE_NOOP("RoPE", "pairs")), ("rope_offset", QT_TRANSLATE_NOOP("RoPE", "offset")),
                   ("rope_scaling", QT_TRANSLATE_NOOP("RoPE", "scaling")),
                   ("rope_low_freq_factor", "low_freq_factor"), ("rope_high_freq_factor", "high_freq_factor"),
                   ("rope_original_max_position_embeddings", QT_TRANSLATE_NOOP("RoPE", "original context")))}

        # ---- what the rotation plane looks at
        self.head_combo = QComboBox(self)
        self.keep_text(self.head_combo.setToolTip, "RoPE", "The head whose q and k are shown (the selected head of every panel)")
        self.head_combo.activated.connect(lambda i: model.set_selection(head=i))
        self.query_combo = QComboBox(self)
        self.keep_text(self.query_combo.setToolTip, "RoPE", "The query token: its row of Q before RoPE (the selected query row)")
        self.query_combo.activated.connect(lambda i: model.set_selection(row=i))
        self.key_combo = QComboBox(self)
        self.keep_text(self.key_combo.setToolTip, "RoPE", "The key token: its row of K before RoPE")
        self.key_combo.activated.connect(lambda i: model.set_selection(key=i))
        draw_view, position_moved = weakly(self._draw_view), weakly(self._position_moved)  # (no cycle)
        self.pair_slider = LabelledSlider("pair i", 0, 0, 0, integer=True, parent=self)
        self.keep_text(self.pair_slider.setText, "RoPE", "pair i")
        self.keep_text(self.pair_slider.setToolTip, "RoPE", "Which 2-D pair of the head's dimensions the plane shows")
        self.pair_slider.valueChanged.connect(lambda _v: draw_view())

        self.m_slider = LabelledSlider("m (query position)", 0, POSITION_MAX, 5, integer=True, parent=self)
        self.n_slider = LabelledSlider("n (key position)", 0, POSITION_MAX, 2, integer=True, parent=self)
        self.keep_text(self.m_slider.setText, "RoPE", "m (query position)")
        self.keep_text(self.n_slider.setText, "RoPE", "n (key position)")
        self.keep_text(self.m_slider.setToolTip, "RoPE", "The position the query is turned for: by m·θ_i. Choosing a "
                       "query (a heatmap's row) sets it to that query's position, offset + row")
        self.keep_text(self.n_slider.setToolTip, "RoPE", "The position the key is turned for: by n·θ_i. Choosing a "
                       "key (a heatmap's column) sets it to that key's position, offset + column")
        self.m_slider.valueChanged.connect(lambda v: position_moved("m", int(v)))
        self.n_slider.valueChanged.connect(lambda v: position_moved("n", int(v)))
        self.lock_box = QCheckBox(self)
        self.keep_text(self.lock_box.setText, "RoPE", "lock distance m − n")
        self.keep_text(self.lock_box.setToolTip, "RoPE",
                       "Move n with m (and m with n): both arrows turn, the angle between them stays")
        self.lock_box.toggled.connect(self._lock_toggled)

        self._build_plots()

        # ---- (d) the Toeplitz proof on the real scores, and the chapter
        self.toeplitz_button = QPushButton(self)
        self.keep_text(self.toeplitz_button.setText, "RoPE", "Same q and k at every position")
        self.toeplitz_button.clicked.connect(self.same_q_and_k_everywhere)
        self.toeplitz_label = self._label()
        self.quote_zh = self._label(f"「{escape(QUOTE_ZH)}」", "color: #1d232b;")
        self.quote_en = self._label(escape(QUOTE_EN), "color: #4a5360;")
        self.quote_en.setVisible(current_language() != "zh")  # (in 中文 the chapter's own sentence says it)
        self.problem_label = self._label("", "color: #b3261e;")
        self.problem_label.hide()
        self.example_button = QPushButton(self)
        self.keep_text(self.example_button.setText, "RoPE", "Open a RoPE-ready example (d = 4, RoPE on)")
        self.keep_text(self.example_button.setToolTip, "RoPE", "Random Q, K, V with an even width, RoPE on — one "
                       "undo step: Ctrl+Z brings yours back")
        self.example_button.clicked.connect(self.open_example)
        self.example_button.hide()

        self._build_layout(labels)

    def language_changed(self):
        self.quote_en.setVisible(current_language() != "zh")
        self._listed = None  # the heads' names in the new language
        super().language_changed()

    # ----- user actions ---------------------------------------------------------------------------
    def _rope_toggled(self, on):
        if not self.model.set_param("rope", on):
            self._sync_controls()  # refused (odd d_h): show the model's value again

    def open_example(self):
        """The reader's first step here works: the Random preset (d = 4, an even head width) with RoPE on,
        as one undo step; True when it changed anything."""
        example = random_session()
        example = replace(example, settings=replace(example.settings, rope=True),
                          title=f"{example.title}, RoPE on")
        return self.model.set_session(example, translate("RoPE", "Open a RoPE-ready example"))

    @property
    def key_row(self):
        """The key token of the rotation plane: the one chosen last in a heatmap or the key list."""
        return self.model.selection.key

    def _lock_toggled(self, on):
        self.distance = self.m_slider.value() - self.n_slider.value() if on else None
        self._draw_view()

    def _position_moved(self, which, value):
        if self.distance is not None:
            m = value if which == "m" else value + self.distance
            m, n = locked_positions(m, self.distance, 0, self.m_slider.maximum())
            with QSignalBlocker(self.m_slider), QSignalBlocker(self.n_slider):
                self.m_slider.setValue(m)
                self.n_slider.setValue(n)
        self._draw_view()

    def same_q_and_k_everywhere(self):
        """Every row of Q ← the query's row, every row of K ← the key's row, RoPE on: ONE undo step.

        The three edits go into one transaction: one undo step, and none of them if one is refused.
        """
        m = self.model
        if m.projected:
            m.notify(PROJECTED_NOTE)
            return False
        if m.rope_problem() is not None:
            m.notify(m.rope_problem())
            return False
        row, key = m.settings.selected_row, min(self.key_row, len(m.tokens) - 1)
        q_block = same_row_everywhere(m.matrix("Q"), row)
        k_block = same_row_everywhere(m.matrix("K"), key)
        changes = (not np.array_equal(q_block, m.matrix("Q")) or not np.array_equal(k_block, m.matrix("K"))
                   or not m.settings.rope)
        if not changes:
            return True
        with m.transaction(translate("RoPE", "Same q ({query}) and k ({key}) at every position, RoPE on").format(
                query=m.query_tokens[row], key=m.tokens[key])) as done:
            m.set_block("Q", 0, 0, q_block)
            m.set_block("K", 0, 0, k_block)
            m.set_param("rope", True)
        return done.ok  # a refused part (it says why) took back the parts that went in

    # ----- reading the model ----------------------------------------------------------------------
    def d_head(self):
        return self.model.widths()[0] // self.model.settings.heads

    def head_vectors(self):
        """The selected head's q (query row) and k (key row) before RoPE, or None when there are none."""
        r = self.model.results
        s = self.model.settings
        if r is None or r.q_in is None or r.q_in.shape[0] != len(self.model.query_tokens):
            return None
        if r.q_in.shape[1] % s.heads or (r.q_in.shape[1] // s.heads) % 2:
            return None
        key = min(self.key_row, r.k_in.shape[0] - 1)
        kv = r.kv_heads  # the key of query head h is in its K/V head's columns
        return (head_slice(r.q_in[s.selected_row], s.selected_head, s.heads),
                head_slice(r.k_in[key], r.kv_head(s.selected_head), kv))

    # ----- drawing --------------------------------------------------------------------------------
    def render(self, flags):
        self._sync_controls()
        self._follow_selection()
        self._draw_view()
        if flags & (STRUCTURE | VALUES | SETTINGS | SELECTION):
            self._draw_diagonals()

    def _sync_controls(self):
        m, s = self.model, self.model.settings
        widgets = (self.rope_box, self.base_slider, self.style_combo, self.offset_box, self.head_combo,
                   self.query_combo, self.key_combo, self.pair_slider)
        blockers = [QSignalBlocker(w) for w in widgets]
        problem = m.rope_problem()  # (with RoPE on: turning it off is always allowed)
        self.rope_box.setChecked(s.rope)
        allow_switch(self.rope_box, None if s.rope else problem, translate(
            "RoPE", "Rotate q and k of every head by position before the scores (the heatmaps change)"))
        for control in self.bound:
            control.show(s)
        listed = (m.query_tokens, m.tokens, s.heads)
        listed += (translate("RoPE", "head {number}"),)  # (and the language the heads are named in)
        if listed != self._listed:  # rebuilt only when tokens or heads change (not on every base step)
            self._listed = listed
            self.head_combo.clear()
            self.head_combo.addItems([listed[-1].format(number=h + 1) for h in range(s.heads)])
            self.query_combo.clear()
            self.query_combo.addItems([f"{i}: {t}" for i, t in enumerate(m.query_tokens)])
            self.key_combo.clear()
            self.key_combo.addItems([f"{i}: {t}" for i, t in enumerate(m.tokens)])
        self.head_combo.setCurrentIndex(s.selected_head)
        self.head_combo.setEnabled(s.heads > 1)
        self.query_combo.setCurrentIndex(s.selected_row)
        self.key_combo.setCurrentIndex(self.key_row)
        d_h = self.d_head()
        self.pair_slider.setRange(0, max(d_h // 2 - 1, 0))
        for group in ("factor", "low", "high", "context"):
            self.groups[group].setVisible(s.rope_scaling == "llama3")
        self._arrange_bar(self.tiles.columns)  # a narrow panel packs the groups now shown
        self.problem_label.setVisible(problem is not None)
        self.example_button.setVisible(problem is not None)
        self.problem_label.setText(escape(problem or "") + (
            "<br>" + translate("RoPE", "The rotation plane, the θ spectrum and the score plots need an even d_h too. "
                                       "Add a dimension to Q and K in the matrix editor, or open an example with an "
                                       "even width:") if problem else ""))
        if m.projected:
            self.toeplitz_button.setEnabled(False)
            self.toeplitz_button.setToolTip(translate("RoPE", PROJECTED_NOTE))
        else:
            self.toeplitz_button.setEnabled(problem is None)
            self.toeplitz_button.setToolTip(problem or translate(
                "RoPE", "Set every row of Q to the query's row and every row of K to the key's row, and turn RoPE on "
                        "(one undo step): the scores then depend on i − j only"))
        del blockers

    def _follow_selection(self):
        """m and n follow the query and key chosen anywhere: their positions offset + row and offset + key, so the
        plane turns the pair the heatmaps score (moved by hand, they stay until the next choice)."""
        m, s = self.model, self.model.settings
        top = max(POSITION_MAX, s.rope_offset + max(len(m.query_tokens), len(m.tokens)) - 1)
        chosen = (s.selected_row, self.key_row, s.rope_offset, m.loads)
        if chosen == self._followed and self.m_slider.maximum() == top:
            return
        self._followed = chosen
        query, key = s.rope_offset + s.selected_row, s.rope_offset + self.key_row
        with QSignalBlocker(self.m_slider), QSignalBlocker(self.n_slider):
            for slider, value in ((self.m_slider, query), (self.n_slider, key)):
                slider.setRange(0, top)
                slider.setValue(value)
        if self.distance is not None:
            self.distance = query - key

    def _draw_diagonals(self):
        r, s = self.model.results, self.model.settings
        if r is None or s.selected_head >= r.heads.scores.shape[0]:
            self.deviation = None
            self.toeplitz_label.setText("")
            return
        scores = r.heads.scores[s.selected_head]
        dev = self.deviation = diagonal_deviation(scores)
        spread = value_range(scores)
        head = (translate("RoPE", "head {number}").format(number=s.selected_head + 1) if s.heads > 1
                else translate("RoPE", "the scores"))
        if is_constant_along_diagonals(scores):
            if spread <= 1e-9 * max(1.0, float(np.abs(scores).max())):
                extra = translate("RoPE", " — and equal everywhere: without RoPE the same q and k give the same score "
                                          "at any distance")
            else:
                extra = translate("RoPE", "; they change from one diagonal to the next (by up to {spread}): only the "
                                          "distance i − j matters").format(spread=format_number(spread, 3))
            text = translate("RoPE", "<b>Scores constant along each diagonal: max deviation {deviation}</b> "
                                     "({head}){extra}.").format(deviation=f"{dev:.1e}", head=head, extra=extra)
        else:
            text = translate("RoPE", "Along a diagonal (i − j fixed) {head} differ by up to {deviation}: q and k "
                                     "change from token to token, so more than the distance moves them.").format(
                head=head, deviation=format_number(dev, 3))
            if self.toeplitz_button.isEnabled():
                text += translate("RoPE", " Press the button to keep only the distance.")
        self.toeplitz_label.setText(text)

