"""Where the split-and-merge drawing puts its matrices, stacks and arrows: in one row, in a U, or as blocks,
at the largest text size that fits the widget; in a small widget with fewer words (the shapes and names only,
then the names only: DETAILS) rather than smaller ones, and scaled down only when even that does not fit."""
import math
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFont, QFontMetricsF

from explorer.widgets.cell_text import format_value
from explorer.widgets.palette import INK, MUTED as MUTED_GREY

MAX_CARDS = 16  # a deck shows at most this many heads' cards
TEXT = QColor(INK)
MUTED = QColor(MUTED_GREY)
MARGIN = 10.0
GAP = 8.0  # between a stack's blocks
MIN_NUMBER_PX, MAX_NUMBER_PX = 8, 15
MIN_LABEL_PX = 9
# what is written, most first: 2 every line (names, shapes, notes, the arrows' details); 1 the names and shapes
# under the blocks and each arrow's name; 0 the names alone (the caption, the drawing's tooltip, says the rest)
DETAILS = (2, 1, 0)


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
    """One thing drawn: a matrix (L, n), a stack of blocks (B, L, n) — one per head, or per K/V head —,
    or an arrow with a label."""

    kind: str  # "matrix", "stack" or "arrow"
    label: str = ""  # the name the tests and the caption use: "Q", "Q heads", "head outputs", "concat", "output"
    shape: tuple = ()
    values: np.ndarray | None = None
    col_heads: list = field(default_factory=list)  # matrix: the colour (head) of each column (None: no head)
    title: str = ""  # drawn under it, bold
    shape_text: str = ""  # drawn under the title
    note: str = ""  # a third, muted line ("concat = output (no W_o)")
    lines: tuple = ()  # arrow: (name, text, …); the name is set as code when ``code``
    code: bool = False
    hidden: bool = False  # values not revealed yet: "?" in the cells
    colours: list = field(default_factory=list)  # stack: the colour (head) of each block; default 0, 1, …
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



class SplitMergeLayout:
    """Part of SplitMergeCanvas: the geometry of every stage for the widget's size (cached until it changes)."""

    def _layout(self):
        if self._geo is not None or not self.stages or self.width() <= 0 or self.height() <= 0:
            return self._geo
        base_px = QFontMetricsF(self.font()).height() / 1.45  # the UI font's pixel size
        self._vw, self._vh, self.zoom = float(self.width()), float(self.height()), 1.0
        best = None
        if self.small:  # (the numbers with every word: the arrows' shapes say what the split does)
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
            for detail in DETAILS:  # fewer words before smaller ones: every label stays readable
                for lpx in (base_px, base_px - 1.5, max(base_px - 3, MIN_LABEL_PX)):
                    for arrangement in ("row", "u"):
                        geo = self._blocks_layout(max(lpx, MIN_LABEL_PX), arrangement, detail=detail)
                        if geo is not None:
                            break
                    if geo is not None:
                        break
                if geo is not None:
                    break
            lpx = max(base_px - 3, MIN_LABEL_PX)
            while geo is None:  # too small for anything: lay out for a larger size and draw it scaled down
                self.zoom /= 1.15
                self._vw, self._vh = self.width() / self.zoom, self.height() / self.zoom
                geo = self._blocks_layout(lpx, "u", detail=0) or self._blocks_layout(lpx, "row", detail=0) \
                    if self.zoom > 0.05 else self._blocks_layout(MIN_LABEL_PX, "row", force=True, detail=0)
        self.numbers_shown = geo["mode"] == "numbers"
        self.arrangement = geo["arrangement"]
        self._geo = geo
        return geo

    def _metrics(self, lpx, detail=2):
        fonts = {"title": _font(self.font(), lpx, bold=True), "text": _font(self.font(), lpx),
                 "code": _font(self.font(), lpx, bold=True, mono=True)}
        return {"fonts": fonts, "fms": {k: QFontMetricsF(f) for k, f in fonts.items()}, "detail": detail}

    @staticmethod
    def _under_lines(s, g):
        """The lines written under a matrix or stack at the layout's detail: name, shape, note."""
        lines = ((s.title, "title", TEXT), (s.shape_text, "text", TEXT), (s.note, "text", MUTED))[:g["detail"] + 1]
        return [(t, k, c) for t, k, c in lines if t]

    def _under_width(self, s, g):
        return max((g["fms"][k].horizontalAdvance(t) for t, k, _ in self._under_lines(s, g)), default=0.0) + 8

    @staticmethod
    def _under_height(g):
        fms = g["fms"]
        return 4 + fms["title"].height() + fms["text"].height() * g["detail"]

    @staticmethod
    def _arrow_lines(s, g):
        """An arrow's lines at the layout's detail (its name alone below the full detail)."""
        first = "code" if s.code else "title"
        lines = s.lines if g["detail"] == 2 else s.lines[:1]
        return [(t, g["fms"][first if i == 0 else "text"], first if i == 0 else "text") for i, t in enumerate(lines)]

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
            (cols, rows), (tag_w, tag_h) = self.stack_grid(s, g), self._tag_size(g)
            return (cols * (tag_w + s.shape[2] * cw) + (cols - 1) * GAP,
                    rows * (tag_h + L * ch) + (rows - 1) * GAP)
        if s.kind == "matrix":
            return s.block_w, g["block_h"]
        deck = self.deck(s, g)
        return s.block_w + deck, g["block_h"] + deck

    def _most_blocks(self):
        return max((s.shape[0] for s in self.stages if s.kind == "stack"), default=1)

    @staticmethod
    def stack_grid(s, g):
        """(columns, rows) of a stack's blocks with numbers: the rows of the largest stack, fewer if
        this one has fewer blocks (the K/V heads' stack under grouped-query attention)."""
        rows = min(g["rows"], s.shape[0])
        return math.ceil(s.shape[0] / rows), rows

    @staticmethod
    def deck(s, g):
        """How far a stack's deck of cards reaches up and right beyond its front card."""
        return g["step"] * (min(s.shape[0], MAX_CARDS) - 1)

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

    def _numbers_layout(self, px, lpx, arrangement, detail=2):
        """Numbers at ``px`` in a "row" or a "u"; the stacks' blocks wrap to fit. None when nothing fits."""
        g = self._metrics(lpx, detail)
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
                 tag_w=fms["text"].horizontalAdvance(str(self._most_blocks())) + 12)
        H = self._most_blocks()
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

    def _blocks_layout(self, lpx, arrangement, force=False, detail=2):
        """Schematic blocks (no numbers): matrices as rectangles, stacks as decks of H cards."""
        g = self._metrics(lpx, detail)
        fms = g["fms"]
        L = len(self.tokens)
        cards = min(self._most_blocks(), MAX_CARDS)
        reach = 56.0 if detail == 2 else 28.0  # how far a deck of cards reaches (closer in a small drawing)
        step = min(reach / 8, reach / (cards - 1)) if cards > 1 else 0.0
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
        over = _overhang(self.stages, body_h)
        height = over + body_h + self._under_height(g)
        total = sum(s.w for s in self.stages)
        if not force and (total > avail_w or height > avail_h):
            return False
        arrows = [s for s in self.stages if s.kind == "arrow"]
        extra = min(max(avail_w - total, 0.0) / max(len(arrows), 1), 90.0)
        total += extra * len(arrows)
        x = MARGIN + max((avail_w - total) / 2, 0.0)
        top = MARGIN + max((avail_h - height) / 2, 0.0) + over
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
        """Q → heads (→ the K/V heads, under grouped-query attention) on top; down through attention from
        the query heads; back leftwards: outputs → concat (→ W_oᵀ → output)."""
        avail_w, avail_h = self._vw - 2 * MARGIN, self._vh - 2 * MARGIN
        st = self.stages
        at = next(i for i, s in enumerate(st) if s.kind == "arrow" and s.label == "attention")
        row_a, attention, row_b = st[:at], st[at], st[at + 1:]  # Q, split, heads (, K/V heads) | … | outputs, …
        under = self._under_height(g)
        body_a = max(s.body_h for s in row_a if s.kind != "arrow")
        body_b = max(s.body_h for s in row_b if s.kind != "arrow")
        drop = max(attention.label_h + 8, 34.0)
        over = _overhang(row_a, body_a)
        height = over + body_a + under + drop + body_b + under
        heads_in, heads_out = row_a[2], row_b[0]
        half = max(heads_in.w / 2 + sum(s.w for s in row_a[3:]), heads_out.w / 2)
        left = max(row_a[0].w + row_a[1].w + heads_in.w / 2, sum(s.w for s in row_b[1:]) + heads_out.w / 2)
        right = max(half, 10 + attention.label_w + 4)
        if left + right > avail_w or height > avail_h:
            return False
        x0 = MARGIN + (avail_w - left - right) / 2
        xs = x0 + left  # the centre of the heads column
        top = MARGIN + (avail_h - height) / 2 + over
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


def _overhang(stages, body_h):
    """How far the labels of a row's arrows (drawn above the arrow, 5 px over it, the arrow at the bodies'
    middle) reach above the row's bodies: room the layout keeps above them, so no label is cut at the top."""
    heights = [s.label_h for s in stages if s.kind == "arrow"]
    return max(0.0, max(heights, default=0.0) + 5.0 - body_h / 2)
