"""The heatmap's axes: labels on one baseline, flagged (⚠) labels in red, and labels that stand up in a
band of a given height (CJK stacked top to bottom, other text turned a quarter left), cut with … beyond it."""
from __future__ import annotations

import unicodedata

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPicture

from explorer.widgets.lean_plot import LeanAxisItem
from explorer.widgets.palette import FLAG_RED

FLAG = "⚠"
FLAG_COLOR = QColor(FLAG_RED)
ELLIPSIS = "…"
STACK_SPREAD = 1.15  # a stacked character's square is this many times its width tall (they would touch)


def stacks(text: str) -> bool:
    """Whether ``text`` reads stacked top to bottom: every character a wide one (CJK, kana, hangul, full-width)."""
    return bool(text) and all(unicodedata.east_asian_width(ch) in "WF" for ch in text)


_INK_SEEN: dict = {}


def line_ink(fm: QFontMetricsF) -> QRectF:
    """Where the ink of a line of text lies about its baseline: of capitals, descenders and CJK together
    (measured apart: one text mixing a fallback font measures as its first font alone)."""
    key = (fm.ascent(), fm.descent(), fm.averageCharWidth(), fm.height())
    ink = _INK_SEEN.get(key)
    if ink is None:
        ink = _INK_SEEN[key] = fm.tightBoundingRect("Hg") | fm.tightBoundingRect("国")
    return ink


def standing_length(text: str, width: float) -> float:
    """How tall ``text``, ``width`` pixels wide lying, stands (stacked characters keep a little apart)."""
    return width * STACK_SPREAD if stacks(text) else width


class LabelAxis(LeanAxisItem):
    """An axis whose labels share one baseline (CJK fallback glyphs otherwise sit higher), whose labels
    starting with ⚠ are drawn in red (flagged rows), and whose labels stand up in a band when told
    (``set_upright``: a top axis too narrow per label for them lying). ``drawn`` holds the text and ink box
    (axis coordinates) of each label its last picture drew."""

    def __init__(self, orientation, *args, **kwargs):
        self.__dict__["_upright"] = None  # AxisItem.__init__ sizes the axis already
        self.drawn: list[tuple[str, QRectF]] = []
        super().__init__(orientation, *args, **kwargs)

    def upright(self) -> float | None:
        """The height of the band the labels stand in, or None while they lie."""
        return self._upright

    def set_upright(self, band: float | None) -> None:
        """Stand the labels up in a band ``band`` pixels tall (the axis grows to it), or lay them down (None)."""
        if band == self._upright:
            return
        self._upright = band
        if band is not None:
            self.textHeight = band
            self._updateHeight()
        else:  # measured lying now, not after a first paint at the band's height
            self.textHeight = 0
            self._updateHeight()
            self._measure_now()
        self.picture = None
        self.update()

    def _measure_now(self) -> None:
        picture = QPicture()
        painter = QPainter(picture)
        try:
            if self.style["tickFont"]:
                painter.setFont(self.style["tickFont"])
            self.generateDrawSpecs(painter)  # ends by fitting the text space to the labels
        finally:
            painter.end()

    def _updateMaxTextSize(self, x):
        super()._updateMaxTextSize(x if self._upright is None else self._upright)

    def generateDrawSpecs(self, p):
        specs = super().generateDrawSpecs(p)
        if specs is None or self._upright is None or not self._tickLevels or not self.style["showValues"]:
            return specs
        axis_spec, tick_specs, _ = specs
        bounds = self.mapRectFromParent(self.geometry())
        lo, hi = self.range
        scale = bounds.width() / (hi - lo) if hi != lo else 1.0
        bottom = bounds.bottom() - max(0, self.style["tickLength"]) - self.style["tickTextOffset"][1]
        thick = QFontMetricsF(p.font()).height()
        band = self._upright
        texts = [(bounds.left() + (v - lo) * scale, text) for v, text in self._tickLevels[0] if text and lo <= v <= hi]
        return axis_spec, tick_specs, [(QRectF(x - thick / 2, bottom - band, thick, band),
                                        Qt.AlignmentFlag.AlignBottom, text) for x, text in texts]

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs):
        super().drawPicture(p, axisSpec, tickSpecs, [])  # line and ticks; sets font, pen and clip
        fm = QFontMetricsF(p.font())
        text_pen = p.pen()
        drawn = []
        for rect, flags, text in textSpecs:
            p.setPen(FLAG_COLOR if text.startswith(FLAG) else text_pen)
            if self._upright is None:
                drawn.append(_lying(p, fm, rect, flags, text))
            elif stacks(text):
                drawn.append(_stacked(p, fm, rect, text))
            else:
                drawn.append(_turned(p, fm, rect, text))
        self.drawn = drawn


def _lying(p, fm, rect, flags, text):
    w = fm.horizontalAdvance(text)
    if flags & Qt.AlignmentFlag.AlignLeft:
        x = rect.left()
    elif flags & Qt.AlignmentFlag.AlignRight:
        x = rect.right() - w
    else:
        x = rect.center().x() - w / 2
    if flags & Qt.AlignmentFlag.AlignTop:
        y = rect.top() + fm.ascent()
    elif flags & Qt.AlignmentFlag.AlignBottom:
        y = rect.bottom() - fm.descent()
    else:
        y = rect.center().y() + (fm.ascent() - fm.descent()) / 2
    p.drawText(QPointF(x, y), text)
    return text, fm.tightBoundingRect(text).translated(x, y)


def _stacked(p, fm, rect, text):
    """Characters one under the other, each centred in a slot a little taller than its width, the last on the
    band's bottom; the first ones and … when they do not all fit."""
    advances = [fm.horizontalAdvance(ch) * STACK_SPREAD for ch in text]
    if sum(advances) > rect.height():
        room = rect.height() - fm.horizontalAdvance(ELLIPSIS) * STACK_SPREAD
        kept = 0
        while kept < len(text) and sum(advances[:kept + 1]) <= room:
            kept += 1
        text = text[:kept] + ELLIPSIS
        advances = advances[:kept] + [fm.horizontalAdvance(ELLIPSIS) * STACK_SPREAD]
    cx, top = rect.center().x(), rect.bottom() - sum(advances)
    y, box = top, QRectF()
    for ch, adv in zip(text, advances):
        ink = fm.tightBoundingRect(ch)
        at = QPointF(cx - (ink.left() + ink.right()) / 2, y + adv / 2 - (ink.top() + ink.bottom()) / 2)
        p.drawText(at, ch)
        box |= ink.translated(at)
        y += adv
    return text, box


def _turned(p, fm, rect, text):
    """The text turned a quarter left, reading upwards from the band's bottom; cut with … beyond the band."""
    shown = fm.elidedText(text, Qt.TextElideMode.ElideRight, rect.height())
    p.save()
    p.translate(rect.center().x(), rect.bottom())
    p.rotate(-90)
    ink = line_ink(fm)
    baseline = -(ink.top() + ink.bottom()) / 2  # a line's ink centred on the label's column
    p.drawText(QPointF(0, baseline), shown)
    box = p.transform().mapRect(fm.tightBoundingRect(shown).translated(0, baseline))
    p.restore()
    return shown, box
