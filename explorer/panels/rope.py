"""F9 The RoPE visualizer: q and k of one head, pair by pair, turned by their positions.

The chapter: "旋转派(RoPE)——把 Q、K 向量按位置旋转不同角度 … 妙处是两个被旋转过的向量做点积,结果只依赖角度差,
即相对距离". Four views of that sentence: one pair of q_m and k_n as arrows in their plane (the angle
between them only moves with m − n), the spectrum of turning speeds θ_i, the score q_m·k_n against
m − n at several absolute positions (the curves coincide), and a proof on the real heatmap: the same
q and k at every position give scores that are constant along each diagonal.

The RoPE settings (on/off, base, convention, offset) are the model's; the pair, m, n and the key row of
the rotation plane are this panel's own view. Every number comes from ``explorer.core.rope_lesson``.
"""
from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (QCheckBox, QComboBox, QGridLayout, QHBoxLayout, QLabel, QPushButton, QSlider,
                               QSpinBox, QVBoxLayout, QWidget)

from explorer.core.rope import rope_frequencies
from explorer.core.rope_lesson import (DEFAULT_STARTS, arc_points, curves_gap, degrees, diagonal_deviation,
                                       direction, head_slice, is_constant_along_diagonals, locked_positions,
                                       pair_view, same_row_everywhere, score_vs_offset, value_range, wavelength)
from explorer.core.session import ROPE_BASE_MAX, ROPE_BASE_MIN, ROPE_OFFSET_MAX
from explorer.model import SELECTION, SETTINGS, STRUCTURE, VALUES
from explorer.widgets.labelled_slider import LabelledSlider
from explorer.widgets.plots import lesson_plot, set_title

from .base import Panel

POSITION_MAX = 63  # the m and n sliders: 0..63
OFFSET_SPAN = POSITION_MAX  # the score-vs-distance plot: m − n in −63..63, every pair of the sliders
STYLES = (("half", "half — GPT-NeoX / Llama"), ("interleaved", "interleaved — GPT-J / RoFormer"))
Q_COLOR = "#0072B2"  # Okabe & Ito blue: the query
K_COLOR = "#D55E00"  # Okabe & Ito vermillion: the key
ANGLE_COLOR = "#009E73"  # Okabe & Ito bluish green: the angle between them
MARK_COLOR = "#CC79A7"  # Okabe & Ito reddish purple: the chosen pair / the current m − n
START_STYLES = (  # one per absolute start, widest first so that every curve shows on top of the one below
    ("#56B4E9", 9.0, None), ("#E69F00", 5.0, None), ("#009E73", 2.0, None), ("#000000", 0.0, "o"))
NARROW = 760  # px: below this width the tiles stack in one column

QUOTE_ZH = ("旋转派(RoPE)——把 Q、K 向量按位置旋转不同角度(第 10 章的旋转小轮子、第 15 章的复数辐角),妙处是两个"
            "被旋转过的向量做点积,结果只依赖角度差,即相对距离——「我离你几个词」被编码进了内积的几何里。")
QUOTE_EN = ("The rotation school (RoPE) turns the Q and K vectors by a different angle at each position "
            "(chapter 10's little rotating wheels, chapter 15's complex arguments). The beauty: the dot product "
            "of two rotated vectors depends only on the difference of their angles — the relative distance. "
            "“How many words apart we are” is written into the geometry of the inner product.")
PROJECTED_NOTE = ("In projected mode Q and K are computed from X. Switch to direct mode (Controls → Q, K, V) to "
                  "use this button, or make every row of X the same by hand: every q and k is then the same "
                  "vector at every position, and the diagonals are constant too.")
SPECTRUM_CAPTION = "fast-turning pairs see short distances, slow ones long"


def _pen(color, width=2.0, style=Qt.PenStyle.SolidLine):
    return pg.mkPen(color, width=width, style=style)


def _num(x, digits=3):
    """A compact number: 3 significant digits, no "-0"."""
    text = f"{x:.{digits}g}"
    return "0" if text in ("-0", "0") else text


class IntSlider(QWidget):
    """``label  [====o====]  [ 12 ]``: a whole number on a slider and a spin box that follow each other."""

    valueChanged = Signal(int)

    def __init__(self, label, minimum, maximum, value, parent=None):
        super().__init__(parent)
        self.label = QLabel(label, self)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.box = QSpinBox(self)
        self.box.setKeyboardTracking(False)
        self.label.setBuddy(self.box)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.label)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.box)
        self.setRange(minimum, maximum)
        self.set_quietly(value)
        self.slider.valueChanged.connect(self._moved)
        self.box.valueChanged.connect(self._moved)

    def value(self):
        return self.box.value()

    def setValue(self, value):
        """Set the value (clamped into range); emits ``valueChanged`` on a change, as a user's move would."""
        old = self.box.value()
        self.set_quietly(value)
        if self.box.value() != old:
            self.valueChanged.emit(self.box.value())

    def set_quietly(self, value):
        """Set without a signal (the owner draws after setting one or more values)."""
        with QSignalBlocker(self.slider), QSignalBlocker(self.box):
            self.box.setValue(int(value))
            self.slider.setValue(self.box.value())

    def setRange(self, minimum, maximum):
        with QSignalBlocker(self.slider), QSignalBlocker(self.box):
            self.slider.setRange(int(minimum), int(maximum))
            self.box.setRange(int(minimum), int(maximum))
        self.setEnabled(maximum > minimum)

    def maximum(self):
        return self.box.maximum()

    def _moved(self, value):
        self.set_quietly(value)
        self.valueChanged.emit(int(value))


class RopePanel(Panel):
    """F9: RoPE settings bound to the model; one pair's rotation plane; θ_i spectrum; score vs m − n; diagonals."""

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self._fg = self.palette().color(QPalette.ColorRole.WindowText)
        self._bg = self.palette().color(QPalette.ColorRole.Base)
        self.key_row = 0  # the key token of the rotation plane (this panel's own choice)
        self.distance = None  # m − n while "lock distance" is on
        self.view = None  # the PairView drawn, or None when there is nothing to draw
        self.curves = None  # score_vs_offset of the drawn head vectors
        self.deviation = None  # diagonal_deviation of the selected head's scores
        self._listed = None  # (tokens, heads) the combos list

        # ---- the model's RoPE settings
        self.rope_box = QCheckBox("RoPE on in the pipeline", self)
        self.rope_box.toggled.connect(self._rope_toggled)
        self.base_slider = LabelledSlider("base", ROPE_BASE_MIN, ROPE_BASE_MAX, 10000.0, log=True, parent=self)
        self.base_slider.setToolTip("θ_i = base^(−2i/d_h): a larger base turns the slow pairs even more slowly "
                                    "(Llama 2: 10 000; Llama 3: 500 000)")
        self.base_slider.valueChanged.connect(lambda v: self.model.set_param("rope_base", v))
        self.base_slider.sliderPressed.connect(self.model.begin_gesture)
        self.base_slider.sliderReleased.connect(self.model.end_gesture)
        self.style_combo = QComboBox(self)
        for key, label in STYLES:
            self.style_combo.addItem(label, key)
        self.style_combo.setToolTip("Which dimensions form a pair: half pairs i with i + d_h/2 (rotate_half), "
                                    "interleaved pairs 2i with 2i + 1. The same rotation, a different order of "
                                    "dimensions.")
        self.style_combo.activated.connect(
            lambda i: self.model.set_param("rope_style", self.style_combo.itemData(i)))
        self.offset_box = QSpinBox(self)
        self.offset_box.setRange(0, ROPE_OFFSET_MAX)
        self.offset_box.setKeyboardTracking(False)
        self.offset_box.setToolTip("The pipeline rotates token t by offset + t. Shifting every position by "
                                   "the same amount changes no score: only distances count.")
        self.offset_box.valueChanged.connect(lambda v: self.model.set_param("rope_offset", v))
        offset_label = QLabel("offset", self)
        offset_label.setBuddy(self.offset_box)
        style_label = QLabel("pairs", self)
        style_label.setBuddy(self.style_combo)

        # ---- what the rotation plane looks at
        self.head_combo = QComboBox(self)
        self.head_combo.setToolTip("The head whose q and k are shown (the selected head of every panel)")
        self.head_combo.activated.connect(lambda i: self.model.set_selection(head=i))
        self.query_combo = QComboBox(self)
        self.query_combo.setToolTip("The query token: its row of Q before RoPE (the selected query row)")
        self.query_combo.activated.connect(lambda i: self.model.set_selection(row=i))
        self.key_combo = QComboBox(self)
        self.key_combo.setToolTip("The key token: its row of K before RoPE")
        self.key_combo.activated.connect(self._key_chosen)
        self.pair_slider = IntSlider("pair i", 0, 0, 0, self)
        self.pair_slider.setToolTip("Which 2-D pair of the head's dimensions the plane shows")
        self.pair_slider.valueChanged.connect(lambda _v: self._draw_view())

        self.m_slider = IntSlider("m (query position)", 0, POSITION_MAX, 5, self)
        self.n_slider = IntSlider("n (key position)", 0, POSITION_MAX, 2, self)
        self.m_slider.setToolTip("The position the query is turned for: by m·θ_i")
        self.n_slider.setToolTip("The position the key is turned for: by n·θ_i")
        self.m_slider.valueChanged.connect(lambda v: self._position_moved("m", v))
        self.n_slider.valueChanged.connect(lambda v: self._position_moved("n", v))
        self.lock_box = QCheckBox("lock distance m − n", self)
        self.lock_box.setToolTip("Move n with m (and m with n): both arrows turn, the angle between them stays")
        self.lock_box.toggled.connect(self._lock_toggled)

        # ---- (a) the rotation plane
        self.plane = self._plot("", "", "")
        self.plane.getPlotItem().getViewBox().setAspectLocked(True)
        self.q_circle = pg.PlotDataItem([], [], pen=_pen(Q_COLOR, 1.0, Qt.PenStyle.DotLine))
        self.k_circle = pg.PlotDataItem([], [], pen=_pen(K_COLOR, 1.0, Qt.PenStyle.DotLine))
        self.q_ghost = pg.PlotDataItem([], [], pen=_pen(Q_COLOR, 1.5, Qt.PenStyle.DashLine))
        self.k_ghost = pg.PlotDataItem([], [], pen=_pen(K_COLOR, 1.5, Qt.PenStyle.DashLine))
        self.arc = pg.PlotDataItem([], [], pen=_pen(ANGLE_COLOR, 2.5))
        self.q_line = pg.PlotDataItem([], [], pen=_pen(Q_COLOR, 3.0))
        self.k_line = pg.PlotDataItem([], [], pen=_pen(K_COLOR, 3.0))
        self.q_head = pg.ArrowItem(headLen=16, tipAngle=32, tailLen=0, brush=pg.mkBrush(Q_COLOR), pen=None)
        self.k_head = pg.ArrowItem(headLen=16, tipAngle=32, tailLen=0, brush=pg.mkBrush(K_COLOR), pen=None)
        self.angle_text = pg.TextItem("", color=ANGLE_COLOR, anchor=(0.5, 0.5), fill=pg.mkBrush(255, 255, 255, 210))
        self.q_text = pg.TextItem("", color=Q_COLOR, anchor=(0.5, 0.5))
        self.k_text = pg.TextItem("", color=K_COLOR, anchor=(0.5, 0.5))
        for item in (self.q_circle, self.k_circle, self.q_ghost, self.k_ghost, self.arc, self.q_line, self.k_line,
                     self.q_head, self.k_head, self.angle_text, self.q_text, self.k_text):
            self.plane.addItem(item)
        self.plane.getPlotItem().getAxis("bottom").setLabel("first dimension of the pair", color=self._fg.name())
        self.plane.getPlotItem().getAxis("left").setLabel("second", color=self._fg.name())
        self.plane.setMinimumSize(240, 220)
        self.plane_readout = self._label()
        self.lock_note = self._label()
        self.lock_note.hide()

        # ---- (b) the spectrum θ_i
        self.spectrum = self._plot("", "pair i", "θ_i (rad per position)")
        self.spectrum.getPlotItem().setLogMode(x=False, y=True)
        self.theta_curve = pg.PlotDataItem([], [], pen=_pen(self._fg.name(), 1.5), symbol="o", symbolSize=6,
                                           symbolBrush=pg.mkBrush(self._fg.name()), symbolPen=None)
        self.theta_marker = pg.PlotDataItem([], [], pen=None, symbol="o", symbolSize=14,
                                            symbolBrush=pg.mkBrush(MARK_COLOR), symbolPen=_pen("#000000", 1.2))
        self.spectrum.addItem(self.theta_curve)
        self.spectrum.addItem(self.theta_marker)

        # ---- (c) q_m·k_n against m − n at several absolute starts
        self.offsets = np.arange(-OFFSET_SPAN, OFFSET_SPAN + 1)
        self.score_plot = self._plot("", "m − n  (query position − key position)", "q_m·k_n")
        self.start_curves = []
        for color, width, symbol in START_STYLES:
            if symbol:
                item = pg.PlotDataItem([], [], pen=None, symbol=symbol, symbolSize=4, symbolBrush=pg.mkBrush(color),
                                       symbolPen=None)
            else:
                item = pg.PlotDataItem([], [], pen=_pen(color, width))
            self.start_curves.append(item)
            self.score_plot.addItem(item)
        self.offset_line = pg.InfiniteLine(pos=0, angle=90, pen=_pen(MARK_COLOR, 1.5, Qt.PenStyle.DashLine))
        self.score_plot.addItem(self.offset_line, ignoreBounds=True)
        self.score_marker = pg.PlotDataItem([], [], pen=None, symbol="o", symbolSize=13,
                                            symbolBrush=pg.mkBrush(MARK_COLOR), symbolPen=_pen("#000000", 1.2))
        self.score_plot.addItem(self.score_marker)
        self.score_plot.getPlotItem().getViewBox().setXRange(-OFFSET_SPAN - 1, OFFSET_SPAN + 1, padding=0)
        self.score_readout = self._label()

        # ---- (d) the Toeplitz proof on the real scores, and the chapter
        self.toeplitz_button = QPushButton("Same q and k at every position", self)
        self.toeplitz_button.setToolTip("Set every row of Q to the query's row and every row of K to the key's row, "
                                        "and turn RoPE on (one undo step): the scores then depend on i − j only")
        self.toeplitz_button.clicked.connect(self.same_q_and_k_everywhere)
        self.toeplitz_label = self._label()
        self.quote_zh = self._label(f"「{escape(QUOTE_ZH)}」", "color: #1d232b;")
        self.quote_en = self._label(escape(QUOTE_EN), "color: #4a5360;")
        self.problem_label = self._label("", "color: #b3261e;")
        self.problem_label.hide()

        # ---- layout
        # the controls come in small groups that flow onto two rows (wide) or four (narrow)
        self.groups = {"rope": self._group(self.rope_box), "base": self._group(self.base_slider),
                       "style": self._group(style_label, self.style_combo),
                       "offset": self._group(offset_label, self.offset_box), "pair": self._group(self.pair_slider)}
        for name, text, widget in (("head", "head", self.head_combo), ("query", "query", self.query_combo),
                                   ("key", "key", self.key_combo)):
            label = QLabel(text, self)
            label.setBuddy(widget)
            self.groups[name] = self._group(label, widget)
        self.bar_rows = [QHBoxLayout() for _ in range(4)]
        self.bar = QVBoxLayout()
        self.bar.setContentsMargins(0, 0, 0, 0)
        self.bar.setSpacing(4)
        for row in self.bar_rows:
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(12)
            self.bar.addLayout(row)

        self.plane_tile = QWidget(self)
        plane_layout = QVBoxLayout(self.plane_tile)
        plane_layout.setContentsMargins(0, 0, 0, 0)
        plane_layout.setSpacing(2)
        plane_layout.addWidget(self.plane, 1)
        plane_layout.addWidget(self.m_slider)
        n_row = QHBoxLayout()
        n_row.addWidget(self.n_slider, 1)
        n_row.addSpacing(8)
        n_row.addWidget(self.lock_box)
        plane_layout.addLayout(n_row)
        plane_layout.addWidget(self.lock_note)
        plane_layout.addWidget(self.plane_readout)

        self.score_tile = QWidget(self)
        score_layout = QVBoxLayout(self.score_tile)
        score_layout.setContentsMargins(0, 0, 0, 0)
        score_layout.setSpacing(2)
        score_layout.addWidget(self.score_plot, 1)
        score_layout.addWidget(self.score_readout)

        self.proof_tile = QWidget(self)
        proof_layout = QVBoxLayout(self.proof_tile)
        proof_layout.setContentsMargins(4, 2, 4, 2)
        proof_layout.setSpacing(4)
        proof_row = QHBoxLayout()
        proof_row.addWidget(self.toeplitz_button)
        proof_row.addWidget(self.toeplitz_label, 1)
        proof_layout.addLayout(proof_row)
        proof_layout.addWidget(self.quote_zh)
        proof_layout.addWidget(self.quote_en)

        self.tiles = QGridLayout()
        self.tiles.setContentsMargins(0, 0, 0, 0)
        self.tiles.setSpacing(8)
        self._columns = 0
        self._arrange(2)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        layout.addLayout(self.bar)
        layout.addWidget(self.problem_label)
        layout.addLayout(self.tiles, 1)
        layout.addWidget(self.proof_tile)

    # ----- building -----------------------------------------------------------------------------
    def _plot(self, title, bottom, left):
        return lesson_plot(self, self._fg, self._bg, title, bottom, left)

    def _label(self, text="", style="color: #1d232b;"):
        label = QLabel(text, self)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setStyleSheet(style)
        label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        return label

    def _group(self, *widgets):
        group = QWidget(self)
        row = QHBoxLayout(group)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        for w in widgets:
            row.addWidget(w, 1 if isinstance(w, (LabelledSlider, IntSlider)) else 0)
        return group

    def _arrange_bar(self, columns):
        g = self.groups
        if columns == 2:
            rows = [["rope", "base*", "style", "offset"], ["head", "query", "key", "pair*"], [], []]
        else:
            rows = [["rope", "base*"], ["style", "offset", ""], ["head", "query", "key", ""], ["pair*"]]
        for layout, names in zip(self.bar_rows, rows):
            while layout.count():
                layout.takeAt(0)
            for name in names:
                if not name:
                    layout.addStretch(1)
                else:
                    layout.addWidget(g[name.rstrip("*")], 1 if name.endswith("*") else 0)

    def _arrange(self, columns):
        """The plane on the left; the spectrum over score-vs-distance on the right (one column when narrow)."""
        if columns == self._columns:
            return
        self._columns = columns
        self._arrange_bar(columns)
        for w in (self.plane_tile, self.spectrum, self.score_tile):
            self.tiles.removeWidget(w)
        if columns == 2:
            self.tiles.addWidget(self.plane_tile, 0, 0, 2, 1)
            self.tiles.addWidget(self.spectrum, 0, 1)
            self.tiles.addWidget(self.score_tile, 1, 1)
            stretches = (2, 3, 0)
            self.tiles.setColumnStretch(0, 1)
            self.tiles.setColumnStretch(1, 1)
        else:
            for r, w in enumerate((self.plane_tile, self.spectrum, self.score_tile)):
                self.tiles.addWidget(w, r, 0)
            stretches = (3, 2, 3)
            self.tiles.setColumnStretch(1, 0)
        for r, s in enumerate(stretches):
            self.tiles.setRowStretch(r, s)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._arrange(2 if self.width() >= NARROW else 1)

    # ----- user actions ---------------------------------------------------------------------------
    def _rope_toggled(self, on):
        if not self.model.set_param("rope", on):
            self._sync_controls()  # refused (odd d_h): show the model's value again

    def _key_chosen(self, index):
        self.key_row = int(index)
        self._draw_view()

    def _lock_toggled(self, on):
        self.distance = self.m_slider.value() - self.n_slider.value() if on else None
        self._draw_view()

    def _position_moved(self, which, value):
        if self.distance is not None:
            m = value if which == "m" else value + self.distance
            m, n = locked_positions(m, self.distance, 0, POSITION_MAX)
            self.m_slider.set_quietly(m)
            self.n_slider.set_quietly(n)
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
        with m.transaction(f"Same q ({m.tokens[row]}) and k ({m.tokens[key]}) at every position, RoPE on") as done:
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
        if r is None or r.q_in is None or r.q_in.shape[0] != len(self.model.tokens):
            return None
        if r.q_in.shape[1] % s.heads or (r.q_in.shape[1] // s.heads) % 2:
            return None
        key = min(self.key_row, r.k_in.shape[0] - 1)
        return (head_slice(r.q_in[s.selected_row], s.selected_head, s.heads),
                head_slice(r.k_in[key], s.selected_head, s.heads))

    # ----- drawing --------------------------------------------------------------------------------
    def render(self, flags):
        self._sync_controls()
        self._draw_view()
        if flags & (STRUCTURE | VALUES | SETTINGS | SELECTION):
            self._draw_diagonals()

    def _sync_controls(self):
        m, s = self.model, self.model.settings
        widgets = (self.rope_box, self.base_slider, self.style_combo, self.offset_box, self.head_combo,
                   self.query_combo, self.key_combo)
        blockers = [QSignalBlocker(w) for w in widgets]
        problem = m.rope_problem()
        self.rope_box.setChecked(s.rope)
        self.rope_box.setEnabled(s.rope or problem is None)
        self.rope_box.setToolTip(problem if problem and not s.rope else
                                 "Rotate q and k of every head by position before the scores (the heatmaps change)")
        self.base_slider.setValue(s.rope_base)
        self.style_combo.setCurrentIndex(self.style_combo.findData(s.rope_style))
        self.offset_box.setValue(s.rope_offset)
        listed = (m.tokens, s.heads)
        if listed != self._listed:  # rebuilt only when tokens or heads change (not on every base step)
            self._listed = listed
            self.head_combo.clear()
            self.head_combo.addItems([f"head {h + 1}" for h in range(s.heads)])
            self.query_combo.clear()
            self.query_combo.addItems([f"{i}: {t}" for i, t in enumerate(m.tokens)])
            self.key_combo.clear()
            self.key_combo.addItems([f"{i}: {t}" for i, t in enumerate(m.tokens)])
        self.key_row = min(self.key_row, len(m.tokens) - 1)
        self.head_combo.setCurrentIndex(s.selected_head)
        self.head_combo.setEnabled(s.heads > 1)
        self.query_combo.setCurrentIndex(s.selected_row)
        self.key_combo.setCurrentIndex(self.key_row)
        d_h = self.d_head()
        self.pair_slider.setRange(0, max(d_h // 2 - 1, 0))
        self.problem_label.setVisible(problem is not None)
        self.problem_label.setText(escape(problem or "") + (
            "<br>The rotation plane, the θ spectrum and the score plots need an even d_h too. Add a dimension to "
            "Q and K in the matrix editor, or try File → New from preset → Random." if problem else ""))
        if m.projected:
            self.toeplitz_button.setEnabled(False)
            self.toeplitz_button.setToolTip(PROJECTED_NOTE)
        else:
            self.toeplitz_button.setEnabled(problem is None)
            self.toeplitz_button.setToolTip(problem or "Set every row of Q to the query's row and every row of K "
                                            "to the key's row, and turn RoPE on (one undo step): the scores then "
                                            "depend on i − j only")
        del blockers

    def _show_views(self, shown):
        """The plane, spectrum and score plots need an even d_h: without one they step aside."""
        for w in (self.plane_tile, self.spectrum, self.score_tile):
            w.setVisible(shown)

    def _draw_view(self):
        vectors = self.head_vectors()
        self._show_views(vectors is not None)
        if vectors is None:
            self.view = self.curves = None
            return
        s = self.model.settings
        q, k = vectors
        pair, m, n = self.pair_slider.value(), self.m_slider.value(), self.n_slider.value()
        v = self.view = pair_view(q, k, pair, m, n, base=s.rope_base, style=s.rope_style)
        self._draw_plane(v)
        self._draw_spectrum(v, len(q), s.rope_base)
        self._draw_scores(v, q, k, s)

    def _draw_plane(self, v):
        fg = self._fg.name()
        token_q, token_k = self.model.tokens[self.model.settings.selected_row], self.model.tokens[self.key_row]
        rq, rk = float(np.hypot(*v.q)), float(np.hypot(*v.k))
        reach = max(rq, rk)
        reach = reach if reach > 0 else 1.0
        circle = arc_points(0.0, 2 * np.pi, 1.0, 97)
        self.q_circle.setData(rq * circle[:, 0], rq * circle[:, 1])
        self.k_circle.setData(rk * circle[:, 0], rk * circle[:, 1])
        self.q_ghost.setData([0.0, v.q[0]], [0.0, v.q[1]])
        self.k_ghost.setData([0.0, v.k[0]], [0.0, v.k[1]])
        self.q_line.setData([0.0, v.q_rot[0]], [0.0, v.q_rot[1]])
        self.k_line.setData([0.0, v.k_rot[0]], [0.0, v.k_rot[1]])
        for head, tip, length in ((self.q_head, v.q_rot, rq), (self.k_head, v.k_rot, rk)):
            head.setVisible(length > 0)
            head.setPos(float(tip[0]), float(tip[1]))
            head.setStyle(angle=180.0 - degrees(direction(tip)))
        radius = 0.38 * (min(rq, rk) if min(rq, rk) > 0.15 * reach else reach)
        start = direction(v.k_rot)
        points = arc_points(start, v.angle, radius)
        self.arc.setData(points[:, 0], points[:, 1])
        mid = start + v.angle / 2
        text_r = radius + 0.2 * reach
        self.angle_text.setText(f"{degrees(v.angle):.1f}°")
        self.angle_text.setPos(text_r * np.cos(mid), text_r * np.sin(mid))
        self.angle_text.setVisible(rq > 0 and rk > 0)
        for text, tip, length, name in ((self.q_text, v.q_rot, rq, f"q_{v.m} ({token_q})"),
                                        (self.k_text, v.k_rot, rk, f"k_{v.n} ({token_k})")):
            # beyond the tip, the text growing away from the origin (never over its own arrow)
            phi = direction(tip)
            text.setText(name)
            text.setAnchor((0.5 - 0.5 * np.cos(phi), 0.5 + 0.5 * np.sin(phi)))
            scale = (length + 0.07 * reach) / length if length > 0 else 0.0
            text.setPos(float(tip[0]) * scale, float(tip[1]) * scale)
            text.setVisible(length > 0)
        lim = 1.3 * reach
        self.plane.getPlotItem().getViewBox().setRange(xRange=(-lim, lim), yRange=(-lim, lim), padding=0)
        dims = f"d{v.dims[0]}, d{v.dims[1]}"
        set_title(self.plane, f"pair {v.pair} ({dims}) of head {self.model.settings.selected_head + 1}: "
                              f"<span style='color:{Q_COLOR}'>q</span> turned by m·θ, "
                              f"<span style='color:{K_COLOR}'>k</span> by n·θ", fg)
        turn = degrees(v.turn)
        off = ("" if self.model.settings.rope else
               " RoPE is off in the pipeline: the heatmaps do not turn q and k yet.")
        self.plane_readout.setText(
            f"θ<sub>{v.pair}</sub> = {_num(v.theta)} rad per position (one turn every "
            f"{_num(float(wavelength(v.theta)))} positions). Angle from "
            f"<span style='color:{K_COLOR}'>k<sub>{v.n}</sub></span> to "
            f"<span style='color:{Q_COLOR}'>q<sub>{v.m}</sub></span>: "
            f"<b style='color:{ANGLE_COLOR}'>{degrees(v.angle):.1f}°</b> = {degrees(v.angle_before):.1f}° before "
            f"rotation + (m − n)·θ<sub>{v.pair}</sub> = {v.offset}·θ<sub>{v.pair}</sub> ≡ {turn:.1f}° "
            f"(angles mod 360°).<br>"
            f"This pair's score q·k = <b>{_num(v.pair_score, 4)}</b>; the whole head's "
            f"q<sub>{v.m}</sub>·k<sub>{v.n}</sub> = <b>{_num(v.score, 4)}</b> (sum over all {self.d_head() // 2} pairs). "
            f"<span style='color:#6b7480'>Dashed: before rotation (position 0).{off}</span>")
        if self.distance is not None:
            self.lock_note.show()
            self.lock_note.setText(f"Distance locked at m − n = {self.distance}: both arrows turn, but the angle "
                                   f"between them ({degrees(v.angle):.1f}°) and this pair's score stay fixed — "
                                   f"and so does q<sub>m</sub>·k<sub>n</sub>.")
        else:
            self.lock_note.hide()

    def _draw_spectrum(self, v, d_h, base):
        theta = rope_frequencies(d_h, base)
        i = np.arange(theta.shape[0], dtype=np.float64)
        self.theta_curve.setData(i, theta)
        self.theta_marker.setData([float(v.pair)], [v.theta])
        vb = self.spectrum.getPlotItem().getViewBox()
        lo, hi = np.log10(theta.min()), np.log10(theta.max())
        vb.setRange(xRange=(-0.5, max(len(theta) - 0.5, 0.5)), yRange=(lo - 0.35, hi + 0.35), padding=0)
        axis = self.spectrum.getPlotItem().getAxis("bottom")
        step = max(1, int(np.ceil(len(theta) / 12)))
        axis.setTicks([[(float(j), str(j)) for j in range(0, len(theta), step)], []])
        set_title(self.spectrum, f"θ_i = base<sup>−2i/d_h</sup>  (d_h = {d_h}, base = {base:,.0f})<br>"
                                 f"{SPECTRUM_CAPTION}", self._fg.name())

    def _draw_scores(self, v, q, k, s):
        curves = self.curves = score_vs_offset(q, k, self.offsets, DEFAULT_STARTS, base=s.rope_base,
                                               style=s.rope_style)
        x = self.offsets.astype(np.float64)
        for item, row in zip(self.start_curves, curves):
            item.setData(x, row)
        inside = abs(v.offset) <= OFFSET_SPAN
        self.offset_line.setVisible(inside)
        self.offset_line.setPos(v.offset)
        self.score_marker.setData([float(v.offset)] if inside else [], [v.score] if inside else [])
        lo, hi = float(curves.min()), float(curves.max())
        if inside:
            lo, hi = min(lo, v.score), max(hi, v.score)
        pad = 0.08 * (hi - lo) if hi > lo else 1.0
        self.score_plot.getPlotItem().getViewBox().setRange(
            xRange=(-OFFSET_SPAN - 1, OFFSET_SPAN + 1), yRange=(lo - pad, hi + pad), padding=0)
        legend = " ".join(f"<span style='color:{c}'>{'●' if sym else '━'}</span>&nbsp;{start}"
                          for (c, _w, sym), start in zip(START_STYLES, DEFAULT_STARTS))
        set_title(self.score_plot, f"equal offsets give equal scores: q_m·k_n against m − n<br>"
                                   f"starting at min(m, n) = {legend}", self._fg.name())
        where = (f"<span style='color:{MARK_COLOR}'>●</span> m − n = {v.offset}: {_num(v.score, 4)}" if inside
                 else f"m − n = {v.offset} lies outside ±{OFFSET_SPAN}")
        self.score_readout.setText(f"The {len(DEFAULT_STARTS)} curves lie on top of each other: they differ by at "
                                   f"most {curves_gap(curves):.1e}. {where}. <span style='color:#6b7480'>"
                                   f"(The score heatmap shows q·k × scale.)</span>")

    def _draw_diagonals(self):
        r, s = self.model.results, self.model.settings
        if r is None or s.selected_head >= r.heads.scores.shape[0]:
            self.deviation = None
            self.toeplitz_label.setText("")
            return
        scores = r.heads.scores[s.selected_head]
        dev = self.deviation = diagonal_deviation(scores)
        spread = value_range(scores)
        head = f"head {s.selected_head + 1}" if s.heads > 1 else "the scores"
        if is_constant_along_diagonals(scores):
            if spread <= 1e-9 * max(1.0, float(np.abs(scores).max())):
                extra = " — and equal everywhere: without RoPE the same q and k give the same score at any distance"
            else:
                extra = (f"; they change from one diagonal to the next (by up to {_num(spread)}): "
                         f"only the distance i − j matters")
            text = f"<b>Scores constant along each diagonal: max deviation {dev:.1e}</b> ({head}){extra}."
        else:
            text = (f"Along a diagonal (i − j fixed) {head} differ by up to {_num(dev)}: q and k change from token "
                    f"to token, so more than the distance moves them.")
            if self.toeplitz_button.isEnabled():
                text += " Press the button to keep only the distance."
        self.toeplitz_label.setText(text)

