"""The cost of decoding with and without the K/V cache, as curves over t, and the cache's size."""
import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from explorer.core.kv_cache import cache_bytes_per_token
from explorer.core.plural import count
from explorer.widgets.number_text import format_bytes, format_count
from explorer.widgets.palette import head_colour
from explorer.widgets.nice import nice_step
from explorer.widgets.plots import lesson_plot

MEASURES = (("multiply-adds per step", "macs"), ("multiply-adds so far", "total_macs"),
            ("bytes read per step", "bytes"), ("bytes read so far", "total_bytes"))


class CostView(QWidget):
    """A plot of one measure over t for both ways of decoding, the current t marked, and the size
    of the cache per token (float16 and float32) and at the session's length."""

    def __init__(self, parent=None):
        super().__init__(parent)
        fg, bg = (self.palette().color(r) for r in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Base))
        self.measure = QComboBox(self)
        for text, key in MEASURES:
            self.measure.addItem(text, key)
        self.measure.setCurrentIndex(1)
        self.measure.setToolTip("What the curves count, per step or added up to t")
        self.measure.currentIndexChanged.connect(lambda _: self._draw())
        self.plot = lesson_plot(self, fg, bg, "", "t (tokens decoded)", "", min_size=(240, 160))
        self.plot.getPlotItem().addLegend(offset=(10, 10))
        self.cached = self.plot.plot([], [], pen=pg.mkPen(head_colour(0), width=2), name="with the K/V cache")
        self.recomputed = self.plot.plot([], [], pen=pg.mkPen(head_colour(1), width=2),
                                         name="without: K, V and attention again every step")
        self.marker = pg.InfiniteLine(angle=90, pen=pg.mkPen(fg, width=1))
        self.plot.addItem(self.marker)
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(QLabel("Cost:", self))
        top.addWidget(self.measure)
        top.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.summary)
        self.curves = self.steps = None

    def set_curves(self, curves, steps, shape, length):
        """New curves (``kv_cache.cost_curves``) over the decode's steps, and the cache sizes."""
        self.curves, self.steps = curves, steps
        self._draw()
        kv_heads, d_head, dv_head = shape.kv_heads, shape.d_head, shape.dv_head
        sizes = {b: cache_bytes_per_token(1, kv_heads, d_head, b, dv_head) for b in (2, 4)}
        total = self.curves["cached"]["total_macs"][-1], self.curves["recomputed"]["total_macs"][-1]
        grouped = ""
        if kv_heads < shape.heads:
            full = cache_bytes_per_token(1, shape.heads, d_head, 2, dv_head)
            grouped = (f" With a K/V head per query head it would be {format_bytes(full)}: sharing "
                       f"{count(kv_heads, 'K/V head')} among {count(shape.heads, 'head')} saves "
                       f"{shape.heads // kv_heads}×.")
        tokens = "the one token" if length == 1 else f"all {length} tokens"
        if shape.cross_keys is None:
            cache = (f"K/V cache: {format_bytes(sizes[2])} per token in float16 ({format_bytes(sizes[4])} in "
                     f"float32), {format_bytes(sizes[2] * length)} at L = {length}")
        else:  # the encoder's cache: its L_k rows, made once
            cache = (f"The source's K/V cache is fixed: {shape.cross_keys} rows × {format_bytes(sizes[2])} = "
                     f"{format_bytes(sizes[2] * shape.cross_keys)} in float16, whatever the number of queries")
        self.summary.setText(
            f"{cache} (this session is one layer: a model multiplies by its layers).{grouped} Decoding {tokens}: "
            f"{format_count(total[0])} multiply-adds with the cache, {format_count(total[1])} without "
            f"({total[1] / max(total[0], 1):.1f}×). The curves count bytes read in float32.")

    def _draw(self):
        if self.curves is None:
            return
        key = self.measure.currentData()
        self.plot.getAxis("left").setLabel("multiply-adds" if "macs" in key else "bytes read (float32)")
        t = np.array([stop for _, stop in self.steps], dtype=float)
        self.plot.getAxis("bottom").setTickSpacing(major=max(1.0, nice_step(t[-1] / 8)), minor=1.0)
        for line, name in ((self.cached, "cached"), (self.recomputed, "recomputed")):
            line.setData(t, self.curves[name][key].astype(float))

    def mark(self, t):
        """Mark the step shown."""
        self.marker.setValue(t)
