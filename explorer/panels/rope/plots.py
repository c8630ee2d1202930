"""The RoPE panel's three plots: one pair's rotation plane, the spectrum θ_i, and the score against m − n."""
import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt

from explorer.core.plural import count
from explorer.i18n import translate
from explorer.core.rope import llama3_band, llama3_limits, rope_frequencies, scaling_of
from explorer.core.rope_lesson import (DEFAULT_STARTS, arc_points, curves_gap, degrees, direction, pair_view,
                                       score_vs_offset, wavelength)
from explorer.weak import weakly
from explorer.widgets.number_text import format_number
from explorer.widgets.palette import BLACK, BLUE, BLUISH_GREEN, ORANGE, REDDISH_PURPLE, SKY_BLUE, VERMILLION
from explorer.widgets.plots import set_title

from .plane_labels import place_plane_labels

POSITION_MAX = 63  # the m and n sliders: 0..63
OFFSET_SPAN = POSITION_MAX  # the score-vs-distance plot: m − n in −63..63, every pair of the sliders
Q_COLOR = BLUE  # the query
K_COLOR = VERMILLION  # the key
ANGLE_COLOR = BLUISH_GREEN  # the angle between them
MARK_COLOR = REDDISH_PURPLE  # the chosen pair / the current m − n
START_STYLES = (  # one per absolute start, widest first so that every curve shows on top of the one below
    (SKY_BLUE, 9.0, None), (ORANGE, 5.0, None), (BLUISH_GREEN, 2.0, None), (BLACK, 0.0, "o"))
SPECTRUM_CAPTION = QT_TRANSLATE_NOOP("RoPE", "fast-turning pairs see short distances, slow ones long")
BAND_WORDS = {"kept": QT_TRANSLATE_NOOP("RoPE", "kept: it turns faster than 2π·high_freq_factor / original context"),
              "blended": QT_TRANSLATE_NOOP("RoPE", "blended between θ_i and θ_i / factor: it lies between the two limits"),
              "slowed": QT_TRANSLATE_NOOP("RoPE", "divided by the factor: it turns slower than 2π·low_freq_factor / "
                                                  "original context")}


def log_ticks(lo, hi, most=5):
    """Ticks for a log10 axis from 10^lo to 10^hi: the powers of ten, every k-th when there are more than
    ``most`` (one a decade is as close as a short plot labels them apart); (log10 value, text) pairs."""
    powers = list(range(int(np.ceil(lo - 1e-9)), int(np.floor(hi + 1e-9)) + 1))
    return [(float(k), format_number(10.0 ** k, 3)) for k in powers[::-(-len(powers) // most)]]


def _pen(color, width=2.0, style=Qt.PenStyle.SolidLine):
    return pg.mkPen(color, width=width, style=style)


# llama3 scaling's two limits, as their lines say
LIMIT_TEXTS = (QT_TRANSLATE_NOOP("RoPE", "kept above"), QT_TRANSLATE_NOOP("RoPE", "÷ factor below"))


class RopePlots:
    """Part of RopePanel: builds the three plots and draws them for the selected head's q and k."""

    def _build_plots(self):
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
        self.q_text = pg.TextItem("", color=Q_COLOR, anchor=(0.5, 0.5))  # (each label anchored at its centre:
        self.k_text = pg.TextItem("", color=K_COLOR, anchor=(0.5, 0.5))  # plane_labels places the centres)
        for item in (self.q_circle, self.k_circle, self.q_ghost, self.k_ghost, self.arc, self.q_line, self.k_line,
                     self.q_head, self.k_head, self.angle_text, self.q_text, self.k_text):
            self.plane.addItem(item)
        for plot, side, text in ((self.plane, "bottom", QT_TRANSLATE_NOOP("RoPE", "first dimension of the pair")),
                                 (self.plane, "left", QT_TRANSLATE_NOOP("RoPE", "second"))):
            self.keep_text(lambda said, axis=plot.getPlotItem().getAxis(side), fg=self._fg.name(): axis.setLabel(said, color=fg),
                           "RoPE", text)
        self.plane.setMinimumSize(240, 220)
        self._around = None  # what the plane's labels keep clear of (place_plane_labels' arguments)
        self.plane.getPlotItem().getViewBox().sigResized.connect(weakly(self._place_labels))
        self.plane_readout = self._label()
        self.lock_note = self._label()
        self.lock_note.hide()

        # ---- (b) the spectrum θ_i
        self.spectrum = self._plot("", "pair i", "θ_i (rad per position)")
        for side, text in (("bottom", QT_TRANSLATE_NOOP("RoPE", "pair i")),
                           ("left", QT_TRANSLATE_NOOP("RoPE", "θ_i (rad per position)"))):
            self.keep_text(lambda said, axis=self.spectrum.getPlotItem().getAxis(side), fg=self._fg.name(): axis.setLabel(
                said, color=fg), "RoPE", text)
        self.spectrum.getPlotItem().setLogMode(x=False, y=True)
        self.theta_curve = pg.PlotDataItem([], [], pen=_pen(self._fg.name(), 1.5), symbol="o", symbolSize=6,
                                           symbolBrush=pg.mkBrush(self._fg.name()), symbolPen=None)
        self.theta_marker = pg.PlotDataItem([], [], pen=None, symbol="o", symbolSize=14,
                                            symbolBrush=pg.mkBrush(MARK_COLOR), symbolPen=_pen("#000000", 1.2))
        # llama3 scaling: θ_i before it (dashed), and the two limits of its bands
        self.plain_curve = pg.PlotDataItem([], [], pen=_pen("#8a929c", 1.2, Qt.PenStyle.DashLine))
        self.limit_lines = [pg.InfiniteLine(angle=0, pen=_pen(color, 1.2, Qt.PenStyle.DotLine), label=text,
                                            labelOpts={"position": 0.98, "color": color, "anchors": [anchor, anchor]})
                            for color, text, anchor in ((BLUISH_GREEN, LIMIT_TEXTS[0], (1, 1)),
                                                        (ORANGE, LIMIT_TEXTS[1], (1, 0)))]
        for line, text in zip(self.limit_lines, LIMIT_TEXTS):
            self.keep_text(lambda said, label=line.label: label.setFormat(said), "RoPE", text)
        self.spectrum.addItem(self.plain_curve)
        for line in self.limit_lines:
            self.spectrum.addItem(line, ignoreBounds=True)
        self.spectrum.addItem(self.theta_curve)
        self.spectrum.addItem(self.theta_marker)

        # ---- (c) q_m·k_n against m − n at several absolute starts
        self.offsets = np.arange(-OFFSET_SPAN, OFFSET_SPAN + 1)
        self.score_plot = self._plot("", "m − n  (query position − key position)", "q_m·k_n")
        self.keep_text(lambda said, axis=self.score_plot.getPlotItem().getAxis("bottom"), fg=self._fg.name(): axis.setLabel(
            said, color=fg), "RoPE", "m − n  (query position − key position)")
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
        v = self.view = pair_view(q, k, pair, m, n, base=s.rope_base, style=s.rope_style, scaling=scaling_of(s))
        self._draw_plane(v)
        self._draw_spectrum(v, len(q), s)
        self._draw_scores(v, q, k, s)

    def _draw_plane(self, v):
        fg = self._fg.name()
        token_q, token_k = self.model.query_tokens[self.model.settings.selected_row], self.model.tokens[self.key_row]
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
        self.angle_text.setPos(text_r * np.cos(mid), text_r * np.sin(mid))  # (until placed in pixels, below)
        self.angle_text.setVisible(rq > 0 and rk > 0)
        for text, length, name in ((self.q_text, rq, f"q_{v.m} ({token_q})"), (self.k_text, rk, f"k_{v.n} ({token_k})")):
            text.setText(name)  # (placed beyond its tip in pixels, with the angle, by _place_labels)
            text.setVisible(length > 0)
        lim = 1.3 * reach
        self.plane.getPlotItem().getViewBox().setRange(xRange=(-lim, lim), yRange=(-lim, lim), padding=0)
        self._around = ((v.q_rot, v.k_rot), (self.q_text, self.k_text), points, (v.q, v.k), (rq * circle, rk * circle))
        self._place_labels()
        dims = f"d{v.dims[0]}, d{v.dims[1]}"
        set_title(self.plane, translate("RoPE", "pair {pair} ({dims}) of head {head}: {q} turned by m·θ, {k} by n·θ")
                  .format(pair=v.pair, dims=dims, head=self.model.settings.selected_head + 1,
                          q=f"<span style='color:{Q_COLOR}'>q</span>", k=f"<span style='color:{K_COLOR}'>k</span>"), fg)
        turn = degrees(v.turn)
        off = ("" if self.model.settings.rope else
               translate("RoPE", " RoPE is off in the pipeline: the heatmaps do not turn q and k yet."))
        pairs = self.d_head() // 2
        self.plane_readout.setText(translate(
            "RoPE", "θ<sub>{pair}</sub> = {theta} rad per position (one turn every {wavelength} positions){scaled}. "
                    "Angle from {k} to {q}: {angle} = {before}° before rotation + (m − n)·θ<sub>{pair}</sub> = "
                    "{offset}·θ<sub>{pair}</sub> ≡ {turn}° (angles mod 360°).<br>This pair's score q·k = "
                    "<b>{pair_score}</b>; the whole head's q<sub>{m}</sub>·k<sub>{n}</sub> = <b>{score}</b> (sum over "
                    "{its_or_all_en} {pairs}). {dashed}").format(
            pair=v.pair, theta=format_number(v.theta, 3), wavelength=format_number(float(wavelength(v.theta)), 3),
            scaled=self._scaled_words(v), k=f"<span style='color:{K_COLOR}'>k<sub>{v.n}</sub></span>",
            q=f"<span style='color:{Q_COLOR}'>q<sub>{v.m}</sub></span>",
            angle=f"<b style='color:{ANGLE_COLOR}'>{degrees(v.angle):.1f}°</b>", before=f"{degrees(v.angle_before):.1f}",
            offset=v.offset, turn=f"{turn:.1f}", pair_score=format_number(v.pair_score, 4), m=v.m, n=v.n,
            score=format_number(v.score, 4), its_or_all_en="its" if pairs == 1 else "all",
            pairs=count(pairs, 'pair'), n_pairs=pairs,
            dashed="<span style='color:#6b7480'>" + translate("RoPE", "Dashed: before rotation (position 0).") + off
                   + "</span>"))
        if self.distance is not None:
            self.lock_note.show()
            self.lock_note.setText(translate(
                "RoPE", "Distance locked at m − n = {distance}: both arrows turn, but the angle between them "
                        "({angle}°) and this pair's score stay fixed — and so does q<sub>m</sub>·k<sub>n</sub>.").format(
                distance=self.distance, angle=f"{degrees(v.angle):.1f}"))
        else:
            self.lock_note.hide()

    def _place_labels(self, *_):
        """q's and k's names and the angle placed clear of the arrows and of each other (in pixels: again on a
        resize)."""
        if self._around is not None:
            tips, names, arc, ghosts, circles = self._around
            place_plane_labels(self.plane.getPlotItem().getViewBox(), self.angle_text, tips, names, arc, ghosts, circles)

    def _scaled_words(self, v):
        """", scaled by llama3: …" for the drawn pair when the scaling is on, else nothing."""
        s = self.model.settings
        scaling = scaling_of(s)
        if scaling is None:
            return ""
        plain = float(rope_frequencies(self.d_head(), s.rope_base)[v.pair])
        return translate("RoPE", "; llama3 scaling: base<sup>−2i/d_h</sup> = {plain}, {band}").format(
            plain=format_number(plain, 3), band=translate("RoPE", BAND_WORDS[llama3_band(plain, scaling)]))

    def _draw_spectrum(self, v, d_h, s):
        base, scaling = s.rope_base, scaling_of(s)
        theta = rope_frequencies(d_h, base, scaling)
        plain = rope_frequencies(d_h, base)
        i = np.arange(theta.shape[0], dtype=np.float64)
        self.theta_curve.setData(i, theta)
        self.theta_marker.setData([float(v.pair)], [v.theta])
        self.plain_curve.setData(i, plain if scaling is not None else [])
        limits = llama3_limits(scaling) if scaling is not None else ()
        for line, limit in zip(self.limit_lines, limits):
            line.setPos(float(np.log10(limit)))    # the axis is logarithmic: lines sit at log10 θ
        for line in self.limit_lines:
            line.setVisible(scaling is not None)
        vb = self.spectrum.getPlotItem().getViewBox()
        lo, hi = np.log10(min([theta.min(), *limits])), np.log10(max([plain.max(), *limits]))
        room = 0.35 if scaling is None else 0.8       # the labels of the limits need a line's height
        if hi - lo < 2:  # one pair, or a few close ones (d_h = 2): two decades, so three powers of ten are labelled
            lo, hi = (lo + hi) / 2 - 1, (lo + hi) / 2 + 1
        vb.setRange(xRange=(-0.5, max(len(theta) - 0.5, 0.5)), yRange=(lo - room, hi + room), padding=0)
        self.spectrum.getPlotItem().getAxis("left").setTicks([log_ticks(lo - room, hi + room), []])
        axis = self.spectrum.getPlotItem().getAxis("bottom")
        step = max(1, int(np.ceil(len(theta) / 12)))
        axis.setTicks([[(float(j), str(j)) for j in range(0, len(theta), step)], []])
        scaled = ("" if scaling is None else
                  translate("RoPE", ", llama3-scaled: slow pairs ÷ {factor}").format(factor=format_number(scaling.factor))
                  + " <span style='color:#8a929c'>" + translate("RoPE", "(dashed: before)") + "</span>")
        set_title(self.spectrum, f"θ_i = base<sup>−2i/d_h</sup>  (d_h = {d_h}, base = {base:,.0f}){scaled}<br>"
                                 f"{translate('RoPE', SPECTRUM_CAPTION)}", self._fg.name())

    def _draw_scores(self, v, q, k, s):
        curves = self.curves = score_vs_offset(q, k, self.offsets, DEFAULT_STARTS, base=s.rope_base,
                                               style=s.rope_style, scaling=scaling_of(s))
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
        set_title(self.score_plot, translate("RoPE", "equal offsets give equal scores: q_m·k_n against m − n<br>"
                                                     "starting at min(m, n) = {legend}").format(legend=legend),
                  self._fg.name())
        where = (f"<span style='color:{MARK_COLOR}'>●</span> m − n = {v.offset}: {format_number(v.score, 4)}" if inside
                 else translate("RoPE", "m − n = {offset} lies outside ±{span}").format(offset=v.offset, span=OFFSET_SPAN))
        self.score_readout.setText(translate(
            "RoPE", "The {count} curves lie on top of each other: they differ by at most {gap}. {where}. {note}").format(
            count=len(DEFAULT_STARTS), gap=f"{curves_gap(curves):.1e}", where=where,
            note="<span style='color:#6b7480'>" + translate("RoPE", "(The score heatmap shows q·k × scale.)") + "</span>"))
