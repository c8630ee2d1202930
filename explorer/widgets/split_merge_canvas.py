"""The split and merge drawn with numbers: a matrix cut into coloured column blocks, a stack of blocks, arrows
between them. Takes plain data (``Stage`` records with their arrays and texts) and paints it in one pass."""
import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QWidget

from explorer.widgets.cell_text import format_value
from explorer.widgets.palette import head_colour

from .split_merge_layout import GAP, MAX_CARDS, MUTED, TEXT, SplitMergeLayout, Stage

OUTPUT_FILL = QColor("#d9dde3")  # the projected output belongs to no single head: neutral grey
OUTPUT_EDGE = QColor("#7d8590")
TINT = 0.38  # how much of the head colour a numbered cell's background takes (the rest is white)

__all__ = ["SplitMergeCanvas", "Stage", "tint"]


def tint(colour, amount=TINT):
    """``colour`` mixed with white: a background that black numbers stay readable on."""
    c = QColor(colour)
    return QColor(round(255 + (c.red() - 255) * amount), round(255 + (c.green() - 255) * amount),
                  round(255 + (c.blue() - 255) * amount))


class SplitMergeCanvas(SplitMergeLayout, QWidget):
    """The drawing. ``set_data`` takes arrays already computed; the layout follows the widget's size.

    With small matrices the numbers are printed, laid out in one row (Q → heads → outputs → concat)
    or, when that would make them too small, in a U: Q → heads on top, down through attention,
    then back leftwards to the concat. Larger matrices are drawn as coloured blocks and decks of
    cards (one card per head) with their shapes written under them.
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(320, 180)
        self.stages = []
        self.tokens = ()
        self.n_heads = 1
        self.small = False  # the matrices are small enough to print (L ≤ 8, widths ≤ 12)
        self.numbers_shown = False  # the numbers are printed now (small, and legible at this size)
        self.arrangement = "row"  # "row" or "u" (numbers only)
        self.has_wo = False
        self.zoom = 1.0  # < 1 when even the smallest layout is larger than the widget: it is drawn scaled down
        self._vw = self._vh = 0.0  # the size the layout is made for (the widget's, divided by the zoom)
        self._geo = None

    # ----- data ----------------------------------------------------------------------------------
    def set_data(self, tokens, n_heads, stages, small, has_wo):
        self.tokens = tuple(tokens)
        self.n_heads = int(n_heads)
        self.stages = stages
        self.small = bool(small)
        self.has_wo = bool(has_wo)
        self._geo = None
        self._layout()
        self.update()

    # ----- what is drawn (for tests) -------------------------------------------------------------
    def blocks(self):
        """(label, shape) of every matrix and stack, in the order of the computation."""
        return [(s.label, tuple(int(n) for n in s.shape)) for s in self.stages if s.kind != "arrow"]

    def arrows(self):
        """The label lines of each arrow, in the order of the computation."""
        return [tuple(s.lines) for s in self.stages if s.kind == "arrow"]

    def stage(self, label):
        return next(s for s in self.stages if s.label == label)

    def values(self, label):
        """The numbers of a matrix or stack as given to the drawing (printed when ``numbers_shown``)."""
        return self.stage(label).values

    def head_colours(self):
        """The colour of each head (hex), the same as the heads grid's."""
        return [head_colour(h).name() for h in range(self.n_heads)]

    def block_colours(self, label):
        """The colour of each block of a stack ("Q heads", "K/V heads", "head outputs"), hex."""
        return [head_colour(h).name() for h in self._block_colours(self.stage(label))]

    @staticmethod
    def _block_colours(s):
        return list(s.colours) if s.colours else list(range(s.shape[0]))

    def column_colours(self, label):
        """The colour of each column of a matrix ("Q", "concat", "output"): its head's, or grey for none."""
        return [head_colour(h).name() if h is not None else OUTPUT_FILL.name()
                for h in self.stage(label).col_heads]

    def body_rect(self, label):
        """Where a matrix's cells (or a stack's blocks) are drawn, in widget pixels."""
        self._layout()
        return self._zoomed(self.stage(label).body)

    def under_rect(self, label):
        """Where a matrix's or stack's name and shape are written, in widget pixels."""
        self._layout()
        return self._zoomed(self.stage(label).under)

    def text_px(self):
        """The pixel size of the smallest text drawn (the labels', or the numbers' when they are printed), as it
        is on screen (scaled by the zoom), and how much is written (split_merge_layout.DETAILS)."""
        geo = self._layout()
        if geo is None:
            return None, None
        smallest = min(geo["lpx"], geo["px"]) if geo["mode"] == "numbers" else geo["lpx"]
        return smallest * self.zoom, geo["detail"]

    def _zoomed(self, r):
        z = self.zoom
        return QRectF(r.x() * z, r.y() * z, r.width() * z, r.height() * z)

    # ----- layout --------------------------------------------------------------------------------
    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._geo = None
        self._layout()


    # ----- painting ------------------------------------------------------------------------------
    def paintEvent(self, event):
        p = QPainter(self)
        p.fillRect(self.rect(), self.palette().color(QPalette.ColorRole.Base))
        geo = self._layout()
        if geo is None:
            p.end()
            return
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        if self.zoom != 1.0:
            p.scale(self.zoom, self.zoom)
        for s in self.stages:
            if s.kind == "arrow":
                self._paint_arrow(p, s, geo)
                continue
            if geo["mode"] == "numbers":
                self._paint_numbers(p, s, geo)
            else:
                self._paint_blocks(p, s, geo)
            self._paint_under(p, s, geo)
        p.end()

    def _paint_under(self, p, s, g):
        y = s.under.top()
        for text, key, colour in self._under_lines(s, g):
            p.setFont(g["fonts"][key])
            p.setPen(colour)
            h = g["fms"][key].height()
            p.drawText(QRectF(s.under.left(), y, s.under.width(), h), Qt.AlignmentFlag.AlignCenter, text)
            y += h

    def _paint_arrow(self, p, s, g):
        a, b = s.p0, s.p1
        p.setPen(QPen(TEXT, 1.6))
        p.setBrush(TEXT)
        d = b - a
        length = math.hypot(d.x(), d.y()) or 1.0
        ux, uy = d.x() / length, d.y() / length
        base = QPointF(b.x() - 9 * ux, b.y() - 9 * uy)
        p.drawLine(a, base)
        p.drawPolygon(QPolygonF([b, QPointF(base.x() - 4.5 * uy, base.y() + 4.5 * ux),
                                 QPointF(base.x() + 4.5 * uy, base.y() - 4.5 * ux)]))
        lines = self._arrow_lines(s, g)
        total = sum(fm.height() for _, fm, _ in lines)
        if s.direction == "down":
            x, y, w, align = a.x() + 10, (a.y() + b.y()) / 2 - total / 2, s.label_w + 4, Qt.AlignmentFlag.AlignLeft
        else:
            x, y, w, align = min(a.x(), b.x()) - 6, a.y() - 5 - total, abs(d.x()) + 12, Qt.AlignmentFlag.AlignHCenter
        for i, (text, fm, key) in enumerate(lines):
            p.setFont(g["fonts"][key])
            p.setPen(TEXT if i == 0 else MUTED)
            p.drawText(QRectF(x, y, w, fm.height()), align | Qt.AlignmentFlag.AlignVCenter, text)
            y += fm.height()

    # numbers ------------------------------------------------------------------------------------
    def _cells(self, p, x, y, values, colours, g, hidden):
        """A grid of numbered cells at (x, y); ``colours``: the colour of each column (drawn tinted)."""
        cw, ch = g["cw"], g["ch"]
        rows, cols = values.shape
        mag = float(np.max(np.abs(values))) if values.size else 0.0
        p.setPen(Qt.PenStyle.NoPen)
        for j in range(cols):
            p.setBrush(tint(colours[j]))
            p.drawRect(QRectF(x + j * cw, y, cw, rows * ch))
        p.setPen(QPen(QColor(255, 255, 255), 1.0))
        for j in range(1, cols):
            p.drawLine(QPointF(x + j * cw, y), QPointF(x + j * cw, y + rows * ch))
        for i in range(1, rows):
            p.drawLine(QPointF(x, y + i * ch), QPointF(x + cols * cw, y + i * ch))
        p.setFont(g["nfont"])
        p.setPen(MUTED if hidden else TEXT)
        for i in range(rows):
            for j in range(cols):
                text = "?" if hidden else format_value(float(values[i, j]), mag)
                p.drawText(QRectF(x + j * cw, y + i * ch, cw, ch), Qt.AlignmentFlag.AlignCenter, text)

    def _paint_numbers(self, p, s, g):
        cw, ch, fonts, fms = g["cw"], g["ch"], g["fonts"], g["fms"]
        L = len(self.tokens)
        body = s.body
        if s.kind == "matrix":
            n = s.shape[1]
            x, y = body.left(), body.top() + g["band"]
            colours = [head_colour(h) if h is not None else OUTPUT_FILL for h in s.col_heads]
            self._cells(p, x, y, s.values, colours, g, s.hidden)
            self._column_bands(p, s, x, body.top(), cw, 4.0)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.setPen(QPen(OUTPUT_EDGE, 1.2))
            p.drawRect(QRectF(x, y, n * cw, L * ch))
            if s.label == "Q":
                p.setFont(fonts["text"])
                p.setPen(TEXT)
                for i, t in enumerate(self.tokens):
                    p.drawText(QRectF(x - g["token_w"], y + i * ch, g["token_w"] - 6, ch),
                               Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, t)
            return
        # a stack: blocks (L, n) — down the first column of blocks, then the next — each with its head's tag
        n, (_, rows) = s.shape[2], self.stack_grid(s, g)
        tag_w, tag_h = self._tag_size(g)
        block_w = tag_w + n * cw
        th = fms["text"].height() + 2
        tw = g["tag_w"] - 5
        colours = self._block_colours(s)
        for h in range(s.shape[0]):
            c, r = divmod(h, rows)
            bx, by = body.left() + c * (block_w + GAP), body.top() + r * (tag_h + L * ch + GAP)
            cx, cy = bx + tag_w, by + tag_h  # the block's cells
            colour = head_colour(colours[h])
            self._cells(p, cx, cy, s.values[h], [colour] * n, g, s.hidden)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.setPen(QPen(colour.darker(135), 1.4))
            p.drawRect(QRectF(cx, cy, n * cw, L * ch))
            if tag_h:  # a tab on top of the block
                tag = QRectF(cx + n * cw / 2 - tw / 2, by, tw, th)
            else:  # a tab at the block's left
                tag = QRectF(bx + 1, cy + L * ch / 2 - th / 2, tw, th)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(colour)
            p.drawRoundedRect(tag, 3, 3)
            p.setFont(fonts["text"])
            p.setPen(TEXT)
            p.drawText(tag, Qt.AlignmentFlag.AlignCenter, str(h + 1))

    @staticmethod
    def _runs(col_heads):
        """[head, first column, end column] for each run of columns of the same head."""
        runs = []
        for j, h in enumerate(col_heads):
            if runs and runs[-1][0] == h:
                runs[-1][2] = j + 1
            else:
                runs.append([h, j, j + 1])
        return runs

    def _column_bands(self, p, s, x, y, cw, height):
        """A strip above a matrix's columns in their heads' colours (one piece per head)."""
        p.setPen(Qt.PenStyle.NoPen)
        for h, a, b in self._runs(s.col_heads):
            if h is not None:
                p.setBrush(head_colour(h))
                p.drawRect(QRectF(x + a * cw + 1, y, (b - a) * cw - 2, height))

    # blocks -------------------------------------------------------------------------------------
    def _paint_blocks(self, p, s, g):
        body = s.body
        if s.kind == "matrix":
            col_w = body.width() / s.shape[1]
            p.setPen(Qt.PenStyle.NoPen)
            for h, a, b in self._runs(s.col_heads):
                p.setBrush(head_colour(h) if h is not None else OUTPUT_FILL)
                p.drawRect(QRectF(body.left() + a * col_w, body.top(), (b - a) * col_w, body.height()))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.setPen(QPen(OUTPUT_EDGE, 1.2))
            p.drawRect(body)
            if s.label == "Q":  # the number of rows, along the left edge
                p.setFont(g["fonts"]["text"])
                p.setPen(TEXT)
                p.drawText(QRectF(body.left() - g["token_w"], body.top(), g["token_w"] - 6, body.height()),
                           Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, f"L = {s.shape[0]}")
            return
        blocks, step, bh, deck = s.shape[0], g["step"], g["block_h"], self.deck(s, g)
        cards, colours = min(blocks, MAX_CARDS), self._block_colours(s)
        for h in reversed(range(cards)):  # head 1 in front, later heads behind it, up and to the right
            rect = QRectF(body.left() + h * step, body.top() + deck - h * step, s.block_w, bh)
            colour = head_colour(colours[h])
            p.setBrush(colour)
            p.setPen(QPen(colour.darker(160), 1.0))
            p.drawRect(rect)
        if blocks > cards:
            fm = g["fms"]["text"]
            p.setFont(g["fonts"]["text"])
            p.setPen(MUTED)
            p.drawText(QPointF(body.left() + deck + s.block_w + 4, body.top() + fm.ascent()), f"+{blocks - cards}")

