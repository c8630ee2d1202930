"""F8 split and merge, drawn with the current numbers: (L, D) → (H, L, d_h) → attention per head → concat.

The chapter: "把 D 维切成 H 份 … 每份 d_h = D/H 维,各自独立跑一遍注意力 … 最后把 H 份输出拼回 D 维再过一个
投影 … (B, L, D) → (B, H, L, d_h)". The arrays come from ``model.results`` (the split is core's
``split_heads``); this file only lays them out and paints them with one QPainter pass.
"""
import math
from dataclasses import dataclass, field
from html import escape

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPalette, QPen, QPolygonF
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from explorer.core.heads import split_heads
from explorer.model import LESSON, SETTINGS, STRUCTURE, VALUES
from explorer.widgets.cell_text import format_value

from .base import Panel
from .head_style import head_colour, scale_text

MAX_NUMBERS_L = 8  # the numbers are printed while L ≤ 8 and every width ≤ 12
MAX_NUMBERS_D = 12
MAX_CARDS = 16  # a deck shows at most this many heads' cards
TEXT = QColor("#1f1f1f")
MUTED = QColor("#6b6b6b")
OUTPUT_FILL = QColor("#d9dde3")  # the projected output belongs to no single head: neutral grey
OUTPUT_EDGE = QColor("#7d8590")
TINT = 0.38  # how much of the head colour a numbered cell's background takes (the rest is white)
MARGIN = 10.0
GAP = 8.0  # between a stack's blocks
MIN_NUMBER_PX, MAX_NUMBER_PX = 8, 15
MIN_LABEL_PX = 9


def tint(colour, amount=TINT):
    """``colour`` mixed with white: a background that black numbers stay readable on."""
    c = QColor(colour)
    return QColor(round(255 + (c.red() - 255) * amount), round(255 + (c.green() - 255) * amount),
                  round(255 + (c.blue() - 255) * amount))


def _font(base, px, bold=False, mono=False):
    f = QFont(base)
    if mono:
        f.setFamilies(["DejaVu Sans Mono", "Noto Sans Mono", "Consolas", "Menlo", "monospace"] + base.families())
        f.setStyleHint(QFont.StyleHint.Monospace)
    f.setPixelSize(max(int(round(px)), 1))
    f.setBold(bold)
    return f


@dataclass
class Stage:
    """One thing drawn: a matrix (L, n), a stack of H blocks (H, L, n), or an arrow with a label."""

    kind: str  # "matrix", "stack" or "arrow"
    label: str = ""  # the name the tests and the caption use: "Q", "Q heads", "head outputs", "concat", "output"
    shape: tuple = ()
    values: np.ndarray | None = None
    col_heads: list = field(default_factory=list)  # matrix: the head of each column (None: no head)
    title: str = ""  # drawn under it, bold
    shape_text: str = ""  # drawn under the title
    note: str = ""  # a third, muted line ("concat = output (no W_o)")
    lines: tuple = ()  # arrow: (name, text, …); the name is set as code when ``code``
    code: bool = False
    hidden: bool = False  # values not revealed yet: "?" in the cells
    # geometry, filled by the layout (widget pixels)
    w: float = 0.0  # the width of its box (body, token labels, text under it) or of the arrow
    body_w: float = 0.0
    body_h: float = 0.0
    block_w: float = 0.0  # blocks mode: the width of the rectangle (or of one card)
    body: QRectF | None = None  # where the cells, block or deck are drawn
    under: QRectF | None = None  # where the title and shape are written
    label_w: float = 0.0  # arrow: the size of its label
    label_h: float = 0.0
    w_drawn: float = 0.0
    p0: QPointF | None = None  # arrow: from, to
    p1: QPointF | None = None
    direction: str = "right"


class SplitMergeCanvas(QWidget):
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

    def _zoomed(self, r):
        z = self.zoom
        return QRectF(r.x() * z, r.y() * z, r.width() * z, r.height() * z)

    # ----- layout --------------------------------------------------------------------------------
    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._geo = None
        self._layout()

    def _layout(self):
        if self._geo is not None or not self.stages or self.width() <= 0 or self.height() <= 0:
            return self._geo
        base_px = QFontMetricsF(self.font()).height() / 1.45  # the UI font's pixel size
        self._vw, self._vh, self.zoom = float(self.width()), float(self.height()), 1.0
        best = None
        if self.small:
            for arrangement, bonus in (("row", 2), ("u", 0)):
                for px in range(MAX_NUMBER_PX, MIN_NUMBER_PX - 1, -1):
                    if self._numbers_layout(px, max(MIN_LABEL_PX, min(base_px, px + 2)), arrangement):
                        if best is None or px + bonus > best[0]:
                            best = (px + bonus, px, arrangement)
                        break
        if best is not None:
            _, px, arrangement = best
            geo = self._numbers_layout(px, max(MIN_LABEL_PX, min(base_px, px + 2)), arrangement)
        else:
            geo = None
            for lpx in (base_px, base_px - 1.5, max(base_px - 3, MIN_LABEL_PX)):
                for arrangement in ("row", "u"):
                    geo = self._blocks_layout(max(lpx, MIN_LABEL_PX), arrangement)
                    if geo is not None:
                        break
                if geo is not None:
                    break
            while geo is None:  # too small for anything: lay out for a larger size and draw it scaled down
                self.zoom /= 1.15
                self._vw, self._vh = self.width() / self.zoom, self.height() / self.zoom
                geo = self._blocks_layout(max(base_px - 3, MIN_LABEL_PX), "row") if self.zoom > 0.05 else \
                    self._blocks_layout(MIN_LABEL_PX, "row", force=True)
        self.numbers_shown = geo["mode"] == "numbers"
        self.arrangement = geo["arrangement"]
        self._geo = geo
        return geo

    def _metrics(self, lpx):
        fonts = {"title": _font(self.font(), lpx, bold=True), "text": _font(self.font(), lpx),
                 "code": _font(self.font(), lpx, bold=True, mono=True)}
        return {"fonts": fonts, "fms": {k: QFontMetricsF(f) for k, f in fonts.items()}}

    @staticmethod
    def _under_lines(s):
        return [(t, k, c) for t, k, c in ((s.title, "title", TEXT), (s.shape_text, "text", TEXT),
                                          (s.note, "text", MUTED)) if t]

    def _under_width(self, s, g):
        return max((g["fms"][k].horizontalAdvance(t) for t, k, _ in self._under_lines(s)), default=0.0) + 8

    @staticmethod
    def _under_height(g):
        fms = g["fms"]
        return 4 + fms["title"].height() + fms["text"].height() * 2

    @staticmethod
    def _arrow_lines(s, g):
        first = "code" if s.code else "title"
        return [(t, g["fms"][first if i == 0 else "text"], first if i == 0 else "text") for i, t in enumerate(s.lines)]

    def _arrow_label_size(self, s, g):
        lines = self._arrow_lines(s, g)
        return max(fm.horizontalAdvance(t) for t, fm, _ in lines), sum(fm.height() for _, fm, _ in lines)

    def _lead(self, s, g):
        return g["token_w"] if s.label == "Q" else 0.0

    def _body_size(self, s, g):
        """(w, h) of what is drawn for a matrix or stack, without the token labels and the text under it."""
        L = len(self.tokens)
        if g["mode"] == "numbers":
            cw, ch = g["cw"], g["ch"]
            if s.kind == "matrix":
                return s.shape[1] * cw, L * ch + g["band"]
            cols, rows, tag_w, tag_h = g["cols"], g["rows"], *self._tag_size(g)
            return (cols * (tag_w + s.shape[2] * cw) + (cols - 1) * GAP,
                    rows * (tag_h + L * ch) + (rows - 1) * GAP)
        if s.kind == "matrix":
            return s.block_w, g["block_h"]
        return s.block_w + g["deck"], g["block_h"] + g["deck"]

    def _size_stages(self, g):
        """Width of every stage's box (body + token labels, or its text under it) and of every arrow."""
        for s in self.stages:
            if s.kind == "arrow":
                label_w, label_h = self._arrow_label_size(s, g)
                s.w = max(label_w + 16, 48.0)
                s.label_w, s.label_h = label_w, label_h
            else:
                bw, bh = self._body_size(s, g)
                s.body_w, s.body_h = bw, bh
                s.w = max(self._lead(s, g) + bw, self._under_width(s, g))

    def _tag_size(self, g):
        """The room a block's head tag takes: beside the block (``tag_top`` False) or above it."""
        if g.get("tag_top"):
            return 0.0, g["fms"]["text"].height() + 4
        return g["tag_w"], 0.0

    def _numbers_layout(self, px, lpx, arrangement):
        """Numbers at ``px`` in a "row" or a "u"; the stacks' blocks wrap to fit. None when nothing fits."""
        g = self._metrics(lpx)
        fms = g["fms"]
        nfont = _font(self.font(), px)
        nfm = QFontMetricsF(nfont)
        texts = ["?"]
        for s in self.stages:
            if s.kind != "arrow" and s.values is not None:
                mag = float(np.max(np.abs(s.values))) if s.values.size else 0.0
                texts += [format_value(float(v), mag) for v in np.ravel(s.values)]
        g.update(mode="numbers", arrangement=arrangement, nfont=nfont, px=px, lpx=lpx,
                 cw=max(nfm.horizontalAdvance(t) for t in texts) + max(8.0, 0.75 * px), ch=nfm.height() + 5,
                 band=6.0,
                 token_w=max(fms["text"].horizontalAdvance(t) for t in self.tokens) + 10,
                 tag_w=fms["text"].horizontalAdvance(str(self.n_heads)) + 12)
        H = self.n_heads
        order = range(1, H + 1) if arrangement == "row" else range(H, 0, -1)
        for cols in order:
            rows = math.ceil(H / cols)
            if cols > 1 and math.ceil(H / (cols - 1)) == rows:
                continue  # the same rows with fewer columns: that one was tried already
            place = self._place_row if arrangement == "row" else self._place_u
            for tag_top in (False, True) if rows == 1 and cols > 1 else (False,):
                g.update(cols=cols, rows=rows, tag_top=tag_top)
                self._size_stages(g)
                if place(g):
                    return g
        return None

    def _blocks_layout(self, lpx, arrangement, force=False):
        """Schematic blocks (no numbers): matrices as rectangles, stacks as decks of H cards."""
        g = self._metrics(lpx)
        fms = g["fms"]
        L = len(self.tokens)
        cards = min(self.n_heads, MAX_CARDS)
        step = min(7.0, 56.0 / (cards - 1)) if cards > 1 else 0.0
        avail_h = self._vh - 2 * MARGIN - self._under_height(g)
        if arrangement == "u":  # two rows and the drop of the attention arrow between them
            attention = next(s for s in self.stages if s.kind == "arrow" and s.label == "attention")
            avail_h = (avail_h - self._under_height(g) - max(self._arrow_label_size(attention, g)[1] + 8, 34.0)) / 2
        block_h = float(np.clip(avail_h - step * (cards - 1) - 8, 40.0, 200.0))
        g.update(mode="blocks", arrangement=arrangement, lpx=lpx, cards=cards, step=step, deck=step * (cards - 1),
                 block_h=block_h, token_w=fms["text"].horizontalAdvance(f"L = {L}") + 12)
        place = self._place_row if arrangement == "row" else self._place_u
        widest = max(s.shape[-1] for s in self.stages if s.kind != "arrow")
        unit = block_h / max(L, 1)  # px per column: rows and columns at the same size while it fits
        for _ in range(40):
            for s in self.stages:
                if s.kind != "arrow":
                    n = s.shape[-1]
                    s.block_w = float(np.clip(n * unit, 24.0, 2.5 * block_h) if s.kind == "matrix"
                                      else np.clip(n * unit, 12.0, 1.5 * block_h))
            self._size_stages(g)
            if place(g) or unit * widest <= 24.0:
                break
            unit *= 0.85
        if not (place(g, force=True) if force and arrangement == "row" else place(g)):
            return None
        return g

    def _place_row(self, g, force=False):
        """Everything left to right on one line; the spare width lengthens the arrows (up to 90 px each)."""
        avail_w, avail_h = self._vw - 2 * MARGIN, self._vh - 2 * MARGIN
        body_h = max(s.body_h for s in self.stages if s.kind != "arrow")
        height = body_h + self._under_height(g)
        total = sum(s.w for s in self.stages)
        if not force and (total > avail_w or height > avail_h):
            return False
        arrows = [s for s in self.stages if s.kind == "arrow"]
        extra = min(max(avail_w - total, 0.0) / max(len(arrows), 1), 90.0)
        total += extra * len(arrows)
        x = MARGIN + max((avail_w - total) / 2, 0.0)
        top = MARGIN + max((avail_h - height) / 2, 0.0)
        mid = top + body_h / 2
        for s in self.stages:
            if s.kind == "arrow":
                s.w_drawn = s.w + extra
                s.p0, s.p1, s.direction = QPointF(x + 6, mid), QPointF(x + s.w_drawn - 6, mid), "right"
                x += s.w_drawn
                continue
            self._put(s, g, x, mid, top + body_h + 4)
            x += s.w
        return True

    def _place_u(self, g, force=False):
        """Q → heads on top; down through attention; back leftwards: outputs → concat (→ W_oᵀ → output)."""
        avail_w, avail_h = self._vw - 2 * MARGIN, self._vh - 2 * MARGIN
        st = self.stages
        row_a, attention, row_b = st[:3], st[3], st[4:]  # Q, split, heads | attention | outputs, merge, concat, …
        under = self._under_height(g)
        body_a = max(s.body_h for s in row_a if s.kind != "arrow")
        body_b = max(s.body_h for s in row_b if s.kind != "arrow")
        drop = max(attention.label_h + 8, 34.0)
        height = body_a + under + drop + body_b + under
        heads_in, heads_out = row_a[2], row_b[0]
        half = max(heads_in.w, heads_out.w) / 2
        left = max(row_a[0].w + row_a[1].w + heads_in.w / 2, sum(s.w for s in row_b[1:]) + heads_out.w / 2)
        right = max(half, 10 + attention.label_w + 4)
        if left + right > avail_w or height > avail_h:
            return False
        x0 = MARGIN + (avail_w - left - right) / 2
        xs = x0 + left  # the centre of the heads column
        top = MARGIN + (avail_h - height) / 2
        mid_a, mid_b = top + body_a / 2, top + body_a + under + drop + body_b / 2
        x = xs - heads_in.w / 2 - row_a[1].w - row_a[0].w
        for s in row_a:
            if s.kind == "arrow":
                s.p0, s.p1, s.direction = QPointF(x + 6, mid_a), QPointF(x + s.w - 6, mid_a), "right"
            else:
                self._put(s, g, x, mid_a, top + body_a + 4)
            x += s.w
        y0 = top + body_a + under
        attention.p0, attention.p1 = QPointF(xs, y0 + 2), QPointF(xs, y0 + drop - 4)
        attention.direction = "down"
        x = xs + heads_out.w / 2
        for s in row_b:
            x -= s.w
            if s.kind == "arrow":
                s.p0, s.p1, s.direction = QPointF(x + s.w - 6, mid_b), QPointF(x + 6, mid_b), "left"
            else:
                self._put(s, g, x, mid_b, mid_b + body_b / 2 + 4)
        return True

    def _put(self, s, g, x, mid, under_y):
        """Place a matrix or stack whose box starts at ``x``: body centred on ``mid``, text from ``under_y``."""
        lead = self._lead(s, g)
        bx = x + lead + (s.w - lead - s.body_w) / 2
        s.body = QRectF(bx, mid - s.body_h / 2, s.body_w, s.body_h)
        # the text under it centred under the body, as far as the box allows
        text_w = self._under_width(s, g)
        tx = float(np.clip(s.body.center().x() - text_w / 2, x, x + s.w - text_w))
        s.under = QRectF(tx, under_y, text_w, self._under_height(g))

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
        for text, key, colour in self._under_lines(s):
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
        # a stack: H blocks (L, n) — down the first column of blocks, then the next — each with its head's tag
        n, rows = s.shape[2], g["rows"]
        tag_w, tag_h = self._tag_size(g)
        block_w = tag_w + n * cw
        th = fms["text"].height() + 2
        tw = g["tag_w"] - 5
        for h in range(self.n_heads):
            c, r = divmod(h, rows)
            bx, by = body.left() + c * (block_w + GAP), body.top() + r * (tag_h + L * ch + GAP)
            cx, cy = bx + tag_w, by + tag_h  # the block's cells
            colour = head_colour(h)
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
        cards, step, bh = g["cards"], g["step"], g["block_h"]
        for h in reversed(range(cards)):  # head 1 in front, later heads behind it, up and to the right
            rect = QRectF(body.left() + h * step, body.top() + g["deck"] - h * step, s.block_w, bh)
            colour = head_colour(h)
            p.setBrush(colour)
            p.setPen(QPen(colour.darker(160), 1.0))
            p.drawRect(rect)
        if self.n_heads > cards:
            fm = g["fms"]["text"]
            p.setFont(g["fonts"]["text"])
            p.setPen(MUTED)
            p.drawText(QPointF(body.left() + g["deck"] + s.block_w + 4, body.top() + fm.ascent()),
                       f"+{self.n_heads - cards}")


class SplitMergePanel(Panel):
    """F8: how Q is cut into heads, attended per head, and put back together (concat, then W_o if any)."""

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.canvas = SplitMergeCanvas(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.caption)
        layout.addWidget(self.canvas, 1)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        short = self.height() < 330  # a low dock: the drawing gets the room, the caption becomes its tooltip
        if self.caption.isVisibleTo(self) == short:
            self.caption.setVisible(not short)

    # ----- for tests -----------------------------------------------------------------------------
    def blocks(self):
        return self.canvas.blocks()

    def arrows(self):
        return self.canvas.arrows()

    def head_colours(self):
        return self.canvas.head_colours()

    def column_colours(self, label):
        return self.canvas.column_colours(label)

    def values(self, label):
        return self.canvas.values(label)

    @property
    def numbers_shown(self):
        return self.canvas.numbers_shown

    @property
    def has_wo(self):
        return self.canvas.has_wo

    # ----- model → drawing -----------------------------------------------------------------------
    def render(self, flags):
        r = self.model.results
        if r is None or not flags & (STRUCTURE | VALUES | SETTINGS | LESSON):
            return  # nothing drawn here depends on the selected row or head
        heads = r.heads
        H, dh = r.n_heads, r.d_head
        (L, D), dv = r.q.shape, heads.concat.shape[1]
        dvh = dv // H
        out = heads.output
        has_wo = self.model.results.wo is not None
        widths = [D, dv] + ([out.shape[1]] if has_wo else [])
        small = L <= MAX_NUMBERS_L and max(widths) <= MAX_NUMBERS_D
        hidden = self.model.revealed < 3  # the outputs are stage ③ of the lesson
        scale = scale_text(self.model.settings, r)
        stages = [
            Stage("matrix", "Q", (L, D), r.q, [c // dh for c in range(D)], "Q", f"(L={L}, D={D})"),
            Stage("arrow", "split_heads", lines=("split_heads", "(L, D) → (H, L, d_h)"), code=True),
            Stage("stack", "Q heads", (H, L, dh), split_heads(r.q, H), title="Q per head",
                  shape_text=f"(H={H}, L={L}, d_h={dh})"),
            Stage("arrow", "attention", lines=("attention", "in each head", f"scale {scale}")),
            Stage("stack", "head outputs", (H, L, dvh), heads.head_outputs, title="head outputs",
                  shape_text=f"(H={H}, L={L}, d_v/H={dvh})", hidden=hidden),
            Stage("arrow", "merge_heads", lines=("merge_heads", "(concat)"), code=True),
            Stage("matrix", "concat", (L, dv), heads.concat, [c // dvh for c in range(dv)], "concat",
                  f"(L={L}, d_v={dv})", note="" if has_wo else "concat = output (no W_o)", hidden=hidden),
        ]
        if has_wo:
            d_out = out.shape[1]
            stages += [Stage("arrow", "W_o", lines=("· W_oᵀ", f"W_o: ({d_out}, {dv})")),
                       Stage("matrix", "output", out.shape, out, [None] * d_out, "output",
                             f"(L={L}, D={d_out})", hidden=hidden)]
        self.canvas.set_data(self.model.tokens, H, stages, small, has_wo)

        merge = "concatenated back to (L, d_v)" + (", then projected by W_o" if has_wo else "")
        hide = " — outputs hidden until ③ is revealed" if hidden else ""
        text = (f"<b>Split and merge</b>: (L, D) → (H, L, d_h) — Q's D = {D} columns are cut into H = {H} heads of "
                f"d_h = {dh} (K and V the same way); each head attends on its own with scale {escape(scale)}; the "
                f"heads' outputs are {merge}.{hide}")
        self.caption.setText(text)
        self.canvas.setToolTip(text)
