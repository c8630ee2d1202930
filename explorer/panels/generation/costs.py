"""The cost of decoding with and without the K/V cache, as curves over t, and the cache's size."""
import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from explorer.core.kv_cache import cache_bytes_per_token
from explorer.core.plural import count
from explorer.i18n import in_language, translate
from explorer.widgets.number_text import format_bytes as said_bytes, format_count
from explorer.widgets.palette import head_colour
from explorer.widgets.nice import nice_step
from explorer.widgets.plots import lesson_plot

MEASURES = ((QT_TRANSLATE_NOOP("Generation", "multiply-adds per step"), "macs"),
            (QT_TRANSLATE_NOOP("Generation", "multiply-adds so far"), "total_macs"),
            (QT_TRANSLATE_NOOP("Generation", "bytes read per step"), "bytes"),
            (QT_TRANSLATE_NOOP("Generation", "bytes read so far"), "total_bytes"))
CURVES = ((QT_TRANSLATE_NOOP("Generation", "with the K/V cache"), 0),
          (QT_TRANSLATE_NOOP("Generation", "without: K, V and attention again every step"), 1))


def format_bytes(n):
    """A size in bytes in the interface's language."""
    return in_language(said_bytes(n))


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
        self.measure.currentIndexChanged.connect(lambda _: self._draw())
        self.plot = lesson_plot(self, fg, bg, "", translate("Generation", "t (tokens decoded)"), "", min_size=(240, 160))
        self.legend = self.plot.getPlotItem().addLegend(offset=(10, 10))
        self.cached, self.recomputed = (self.plot.plot([], [], pen=pg.mkPen(head_colour(i), width=2))
                                        for _, i in CURVES)
        self.marker = pg.InfiniteLine(angle=90, pen=pg.mkPen(fg, width=1))
        self.plot.addItem(self.marker)
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        top = QHBoxLayout()
        self.cost_label = QLabel(self)
        top.addWidget(self.cost_label)
        top.addWidget(self.measure)
        top.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.summary)
        self.curves = self.steps = None
        self.retranslate()

    def changeEvent(self, event):
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and hasattr(self, "legend"):
            self.retranslate()

    def retranslate(self):
        """The texts set once in the interface's language (the summary and the left axis follow each drawing)."""
        for i, (text, _) in enumerate(MEASURES):
            self.measure.setItemText(i, translate("Generation", text))
        self.measure.setToolTip(translate("Generation", "What the curves count, per step or added up to t"))
        self.cost_label.setText(translate("Generation", "Cost:"))
        self.plot.getPlotItem().getAxis("bottom").setLabel(translate("Generation", "t (tokens decoded)"))
        self.legend.clear()
        for curve, (text, _) in zip((self.cached, self.recomputed), CURVES):
            self.legend.addItem(curve, translate("Generation", text))

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
            grouped = translate("Generation", " With a K/V head per query head it would be {full}: sharing {kv_heads} "
                                "among {heads} saves {times}×.").format(
                full=format_bytes(full), kv_heads=count(kv_heads, "K/V head"), n_kv_heads=kv_heads,
                heads=count(shape.heads, "head"), n_heads=shape.heads, times=shape.heads // kv_heads)
        tokens = (translate("Generation", "the one token") if length == 1
                  else translate("Generation", "all {length} tokens").format(length=length))
        if shape.cross_keys is None:
            cache = translate("Generation", "K/V cache: {per_token} per token in float16 ({single_per_token} in float32), "
                              "{at_length} at L = {length}").format(
                per_token=format_bytes(sizes[2]), single_per_token=format_bytes(sizes[4]),
                at_length=format_bytes(sizes[2] * length), length=length)
        else:  # the encoder's cache: its L_k rows, made once
            cache = translate("Generation", "The source's K/V cache is fixed: {rows} rows × {per_row} = {total} in "
                              "float16, whatever the number of queries").format(
                rows=shape.cross_keys, per_row=format_bytes(sizes[2]), total=format_bytes(sizes[2] * shape.cross_keys))
        self.summary.setText(translate(
            "Generation", "{cache} (this session is one layer: a model multiplies by its layers).{grouped} Decoding "
            "{tokens}: {with_cache} multiply-adds with the cache, {without_cache} without ({ratio}×).").format(cache=cache, grouped=grouped, tokens=tokens,
                                             with_cache=format_count(total[0]), without_cache=format_count(total[1]),
                                             ratio=f"{total[1] / max(total[0], 1):.1f}"))

    def _draw(self):
        if self.curves is None:
            return
        key = self.measure.currentData()
        self.plot.getAxis("left").setLabel(translate("Generation", "multiply-adds") if "macs" in key
                                           else translate("Generation", "bytes read (float32)"))
        t = np.array([stop for _, stop in self.steps], dtype=float)
        self.plot.getAxis("bottom").setTickSpacing(major=max(1.0, nice_step(t[-1] / 8)), minor=1.0)
        for line, name in ((self.cached, "cached"), (self.recomputed, "recomputed")):
            line.setData(t, self.curves[name][key].astype(float))

    def mark(self, t):
        """Mark the step shown."""
        self.marker.setValue(t)
