"""Two columns of tokens and a line between each pair whose opacity and width are its weight; hover a token
to isolate its lines. Takes plain data (tokens, a weight matrix, the edges to draw) and paints it in one pass."""
import math

import numpy as np
from PySide6.QtCore import QEvent, QLineF, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPalette, QPen, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget

from explorer.core.lines import strongest_edges
from explorer.widgets.nice import nice_step
from explorer.widgets.number_text import format_weight
from explorer.widgets.palette import FAINT, FOCUS_BLUE, INK as INK_COLOR, MUTED, WEIGHT_BLUE

LINE_COLOR = QColor(WEIGHT_BLUE)
FOCUS_FILL = QColor(FOCUS_BLUE)  # behind the hovered / selected token
TEXT_COLOR = QColor(INK_COLOR)
MUTED_COLOR = QColor(FAINT)
HEADER_COLOR = QColor(MUTED)

MAX_LINES = 3000  # at most this many lines are painted, the strongest ones
AA_MAX_LINES = 2000  # more lines than this are drawn without antialiasing (all 40 × 40 still are)
FEW_FOCUSED = 40  # up to this many focused lines get FOCUS_FLOOR
ALPHA_FLOOR = 0.03  # a drawn line is never fully transparent
FOCUS_FLOOR = 0.15  # the lines of a hovered or selected token: weak ones still visible
FADED = 0.45  # the other queries' lines, while the selected row is emphasised
N_BINS = 32  # lines are grouped by weight into this many pens
MAX_ROW_H = 56.0
MIN_FONT_PX = 8.0
INK = 1.15  # a label's glyphs take about this many font pixel sizes of height
MARGIN, GAP = 8.0, 8.0

EMPTY = (np.empty(0, np.intp), np.empty(0, np.intp), np.empty(0, np.float64))


def _weight_text(w, masked):
    return "–" if masked else format_weight(w)


class LinesCanvas(QWidget):
    """Two columns of tokens and the lines between them; hover a token to isolate its lines."""

    queryClicked = Signal(int)
    hoverChanged = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(220, 160)
        self.hovered = None  # ("query" | "key", index) or None
        self._tokens = self._keys = ()
        self._weights = None  # (Lq, Lk) weights of the shown head, or None while hidden
        self._masked = None  # (Lq, Lk) True where masked, or None
        self._edges = EMPTY  # every candidate edge (top-k per query), row-major
        self._selected = None
        self._message = ""
        self.headers = ("query", "key")  # the columns' titles (the panel gives them in the interface's language)
        self._visible = None  # cache of what is drawn in the current hover state
        self._geo = None  # cache of the layout
        self._layer = None  # cache of the lines drawn while nothing is hovered

    # ----- data ----------------------------------------------------------------------------------
    def set_data(self, tokens, weights, edges=EMPTY, masked=None, selected=None, message="", keys=None):
        """The queries' tokens (left; also the keys' when ``keys`` is None), the head's weights (None: draw
        no lines, show ``message``), the edges; ``keys``: the keys' own tokens (right), as in
        cross-attention, where the two columns may differ in length."""
        self._tokens = tuple(tokens)
        self._keys = self._tokens if keys is None else tuple(keys)
        self._weights = weights
        self._masked = masked
        self._edges = edges if weights is not None else EMPTY
        self._selected = selected
        self._message = message
        self._geo = self._layer = None
        if self.hovered is not None and self.hovered[1] >= len(self._names(self.hovered[0])):
            self.hovered = None
        self._visible = None
        self.update()

    def set_hovered(self, hovered):
        """Hover a token programmatically: ("query", i), ("key", j) or None."""
        hovered = tuple(hovered) if hovered is not None else None
        if hovered != self.hovered:
            self.hovered = hovered
            self._visible = None
            self.hoverChanged.emit(hovered)
            self.update()

    def edges(self):
        """The (query, key, weight) lines drawn now, after the hover filter (weakest first)."""
        q, k, w, _ = self._visible_edges()
        return [(int(a), int(b), float(c)) for a, b, c in zip(q, k, w)]

    def _visible_edges(self):
        """(query, key, weight, emphasised) arrays, in painting order."""
        if self._visible is not None:
            return self._visible
        q, k, w = self._edges
        if self.hovered is not None:
            side, i = self.hovered
            pick = (q if side == "query" else k) == i
            q, k, w = strongest_edges(q[pick], k[pick], w[pick], MAX_LINES)
            emph = np.ones(w.size, bool)
        elif self._selected is not None:
            pick = q == self._selected
            eq, ek, ew = strongest_edges(q[pick], k[pick], w[pick], MAX_LINES)
            rq, rk, rw = strongest_edges(q[~pick], k[~pick], w[~pick], MAX_LINES - ew.size)
            ro, eo = np.argsort(rw, kind="stable"), np.argsort(ew, kind="stable")  # strong lines on top
            q, k, w = (np.concatenate([a[ro], b[eo]]) for a, b in ((rq, eq), (rk, ek), (rw, ew)))
            emph = np.arange(w.size) >= rw.size
            self._visible = (q, k, w, emph)
            return self._visible
        else:
            q, k, w = strongest_edges(q, k, w, MAX_LINES)
            emph = np.zeros(w.size, bool)
        order = np.argsort(w, kind="stable")  # strong lines on top
        self._visible = (q[order], k[order], w[order], emph[order])
        return self._visible

    def focus(self):
        """The token whose weights are printed: the hovered one, else the selected query."""
        if self.hovered is not None:
            return self.hovered
        if self._selected is not None and self._selected < len(self._tokens):
            return ("query", self._selected)
        return None

    def _names(self, side):
        return self._tokens if side == "query" else self._keys

    # ----- geometry ------------------------------------------------------------------------------
    def _geometry(self):
        """Where everything goes, for the current size, font and tokens (cached until one changes)."""
        if self._geo is not None:
            return self._geo
        n = max(len(self._tokens), len(self._keys), 1)
        base = QFont(self.font())
        header_h = QFontMetricsF(base).height() + 4
        top = MARGIN + header_h
        avail = max(self.height() - top - MARGIN, 1.0)
        row_h = min(MAX_ROW_H, avail / n)
        font = QFont(base)
        px = float(np.clip(row_h * 0.8, MIN_FONT_PX, QFontMetricsF(base).ascent() + 2))
        font.setPixelSize(max(int(round(px)), 1))
        fm = QFontMetricsF(font)
        # thin rows: the first and last labels reach beyond their rows; keep them clear of the edges
        over = max(0.0, (fm.height() - row_h) / 2 + 1)
        if over:
            top += over
            avail = max(avail - 2 * over, 1.0)
            row_h = min(MAX_ROW_H, avail / n)
        y0 = top + (avail - row_h * n) / 2
        ink = font.pixelSize() * INK
        step = nice_step(math.ceil(ink / row_h)) if row_h < ink else 1
        small = QFont(font)
        small.setPixelSize(max(int(round(px * 0.9)), 1))
        header_font = self._header_font(base)
        # the printed weights, and above them whose they are ("→ 猫" needs a little more room)
        num_w = max(QFontMetricsF(small).horizontalAdvance(format_weight(0.001)),
                    QFontMetricsF(header_font).horizontalAdvance("→ 猫")) + 6
        widest = max((fm.horizontalAdvance(t) for t in self._tokens + self._keys), default=0.0) + 10
        header_w = max(QFontMetricsF(header_font).horizontalAdvance(text) for text in self.headers) + 4
        label_w = max(min(widest, max(self.width() * 0.24, 40.0)), header_w)
        x_label_q = MARGIN + num_w
        x0 = x_label_q + label_w + GAP
        x1 = self.width() - MARGIN - num_w - label_w - GAP
        # a shorter column is centred beside the longer one
        starts = {side: y0 + (n - len(self._names(side))) * row_h / 2 for side in ("query", "key")}
        self._geo = dict(n=n, header_h=header_h, y0=y0, starts=starts, row_h=row_h, font=font, small=small, fm=fm, ink=ink,
                         step=step, num_w=num_w, label_w=label_w, x_label_q=x_label_q, x0=x0, x1=x1, base=base,
                         header_font=header_font)
        return self._geo

    def token_rect(self, side, i):
        """Where the label of token ``i`` sits (its row band in the query or key column)."""
        g = self._geometry()
        x = g["x_label_q"] if side == "query" else g["x1"] + GAP
        return QRectF(x, g["starts"][side] + i * g["row_h"], g["label_w"], g["row_h"])

    def token_at(self, pos):
        """("query" | "key", index) under a point, or None."""
        if not self._tokens:
            return None
        g = self._geometry()
        side = "query" if pos.x() < g["x0"] - GAP / 2 else "key" if pos.x() > g["x1"] + GAP / 2 else None
        if side is None:
            return None
        row = math.floor((pos.y() - g["starts"][side]) / g["row_h"])
        return (side, row) if 0 <= row < len(self._names(side)) else None

    # ----- events --------------------------------------------------------------------------------
    def mouseMoveEvent(self, event):
        self.set_hovered(self.token_at(event.position()))
        super().mouseMoveEvent(event)

    def leaveEvent(self, event):
        self.set_hovered(None)
        super().leaveEvent(event)

    def mousePressEvent(self, event):
        hit = self.token_at(event.position())
        if event.button() == Qt.MouseButton.LeftButton and hit is not None and hit[0] == "query":
            self.queryClicked.emit(hit[1])
            event.accept()
            return
        super().mousePressEvent(event)

    def set_headers(self, query, key):
        self.headers = (query, key)
        self._geo = self._layer = None
        self.update()

    def resizeEvent(self, event):
        self._geo = self._layer = None
        super().resizeEvent(event)

    def changeEvent(self, event):
        if event.type() == QEvent.Type.FontChange:
            self._geo = self._layer = None
        super().changeEvent(event)

    def sizeHint(self):
        return QSize(420, 420)

    # ----- painting ------------------------------------------------------------------------------
    def paintEvent(self, event):
        p = QPainter(self)
        p.fillRect(self.rect(), self.palette().color(QPalette.ColorRole.Base))
        if not self._tokens:
            p.end()
            return
        g = self._geometry()
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        self._paint_headers(p, g)
        if self._weights is None:
            self._paint_message(p, g)
        else:
            self._paint_lines(p, g)
        self._paint_labels(p, g)
        p.end()

    def _y(self, g, i, side="query"):
        return g["starts"][side] + (i + 0.5) * g["row_h"]

    @staticmethod
    def _header_font(base):
        font = QFont(base)
        if font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * 0.9)
        return font

    def _paint_headers(self, p, g):
        font = g["header_font"]
        p.setFont(font)
        p.setPen(HEADER_COLOR)
        h = g["header_h"]
        y = min(g["starts"].values()) + g["row_h"] / 2 - g["fm"].height() / 2 - h - 2  # above the first token
        p.drawText(QRectF(g["x_label_q"], y, g["label_w"], h),
                   Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom, self.headers[0])
        p.drawText(QRectF(g["x1"] + GAP, y, g["label_w"], h),
                   Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom, self.headers[1])
        focus = self.focus()
        if focus is None or self._weights is None:
            return
        # over the printed weights: whose weights they are ("追 →" = from query 追 to each key)
        # it takes the room beside the column's own header, up to the panel's edge
        side, i = focus
        fm = QFontMetricsF(font)
        room = g["num_w"] + MARGIN - 2 + g["label_w"] - fm.horizontalAdvance("query") - 8
        name = fm.elidedText(self._names(side)[i], Qt.TextElideMode.ElideRight, room - fm.horizontalAdvance("→ "))
        if side == "query":
            text, align = f"{name} →", Qt.AlignmentFlag.AlignRight
            rect = QRectF(self.width() - 2 - room, y, room, h)
        else:
            text, align = f"→ {name}", Qt.AlignmentFlag.AlignLeft
            rect = QRectF(2, y, room, h)
        p.setPen(LINE_COLOR.darker(130))
        p.drawText(rect, align | Qt.AlignmentFlag.AlignBottom, text)

    def _paint_message(self, p, g):
        font = QFont(g["base"])
        font.setItalic(True)
        p.setFont(font)
        p.setPen(HEADER_COLOR)
        rect = QRectF(g["x0"], g["y0"], max(g["x1"] - g["x0"], 10.0), g["row_h"] * g["n"])
        p.drawText(rect, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self._message)

    def _paint_lines(self, p, g):
        """The lines; when nothing is hovered they come from a cached layer (a hover only redraws a few)."""
        if self.hovered is not None:
            self._draw_lines(p, g)
            return
        if self._layer is None:
            dpr = self.devicePixelRatioF()
            layer = QPixmap(self.size() * dpr)
            layer.setDevicePixelRatio(dpr)
            layer.fill(Qt.GlobalColor.transparent)
            lp = QPainter(layer)
            self._draw_lines(lp, g)
            lp.end()
            self._layer = layer
        p.drawPixmap(0, 0, self._layer)

    def _draw_lines(self, p, g):
        q, k, w, emph = self._visible_edges()
        if not w.size:
            return
        # antialiased wide translucent lines cost ~0.1 ms each; in a dense mass nobody sees the jaggies
        p.setRenderHint(QPainter.RenderHint.Antialiasing, w.size <= AA_MAX_LINES)
        fade = self.hovered is None and emph.any()
        # a few focused lines get a visible floor; hundreds of them (a long row of "all") do not
        focus_floor = FOCUS_FLOOR if np.count_nonzero(emph) <= FEW_FOCUSED else ALPHA_FLOOR
        x0, x1 = g["x0"], g["x1"]
        yq = self._y(g, q.astype(np.float64), "query")
        yk = self._y(g, k.astype(np.float64), "key")
        level = np.clip(np.ceil(w * N_BINS), 1, N_BINS).astype(int)
        for strong in (False, True):
            part = emph == strong
            if not part.any():
                continue
            for b in np.unique(level[part]):
                sel = np.flatnonzero(part & (level == b))
                v = b / N_BINS
                floor = focus_floor if strong else ALPHA_FLOOR
                alpha = floor + (1 - floor) * v
                if fade and not strong:
                    alpha *= FADED
                color = QColor(LINE_COLOR)
                color.setAlphaF(float(min(alpha, 1.0)))
                pen = QPen(color, 1.0 + 5.0 * v)
                pen.setCapStyle(Qt.PenCapStyle.FlatCap)
                p.setPen(pen)
                p.drawLines([QLineF(x0, a, x1, c) for a, c in zip(yq[sel].tolist(), yk[sel].tolist())])
        # the line ends: small dots, so a line is read as leaving a token
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(LINE_COLOR)
        r = min(2.5, g["row_h"] / 3)
        if r >= 1:
            for x, ys in ((x0, np.unique(yq)), (x1, np.unique(yk))):
                for y in ys.tolist():
                    p.drawEllipse(QPointF(x, y), r, r)

    def _label_rows(self, g, side, priority):
        """Which rows of one column get a label: ``priority`` first, then every ``step``-th, none overlapping."""
        n, fh = len(self._names(side)), g["ink"]
        if g["step"] == 1:
            return list(range(n))
        taken = []  # (top, bottom) of placed labels
        rows, seen = [], set()
        for i in list(priority) + list(range(0, n, g["step"])):
            if i in seen:
                continue
            seen.add(i)
            yc = self._y(g, i, side)
            lo, hi = yc - fh / 2 - 0.5, yc + fh / 2 + 0.5
            if any(lo < b and a < hi for a, b in taken):
                continue
            taken.append((lo, hi))
            rows.append(i)
        return rows

    def _paint_labels(self, p, g):
        focus = self.focus()
        q, k, w, emph = self._visible_edges()
        # the other side's labels that matter most: the ends of the focus token's lines, strongest first
        ends = {"query": [], "key": []}
        if focus is not None and w.size:
            other = "key" if focus[0] == "query" else "query"
            idx = (k if other == "key" else q)[emph] if emph.any() else np.empty(0, int)
            ends[other] = [int(i) for i in idx[np.argsort(-w[emph], kind="stable")]] if idx.size else []
        for side in ("query", "key"):
            priority = ([focus[1]] if focus is not None and focus[0] == side else []) + ends[side]
            for i in self._label_rows(g, side, priority):
                self._paint_label(p, g, side, i, focus)

    def _paint_label(self, p, g, side, i, focus):
        rect = self.token_rect(side, i)
        fh = g["fm"].height()
        band = QRectF(rect.x(), self._y(g, i, side) - fh / 2, rect.width(), fh)
        is_focus = focus == (side, i)
        if is_focus:
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(FOCUS_FILL)
            p.drawRoundedRect(band.adjusted(-3, -1, 3, 1), 3, 3)
        font = QFont(g["font"])
        font.setBold(is_focus)
        p.setFont(font)
        weight, masked = None, False
        if focus is not None and focus[0] != side and self._weights is not None:
            qi, kj = (focus[1], i) if side == "key" else (i, focus[1])
            weight = float(self._weights[qi, kj])
            masked = self._masked is not None and bool(self._masked[qi, kj])
        p.setPen(MUTED_COLOR if masked else TEXT_COLOR)
        text = QFontMetricsF(font).elidedText(self._names(side)[i], Qt.TextElideMode.ElideRight, rect.width() - 4)
        align = (Qt.AlignmentFlag.AlignRight if side == "query" else Qt.AlignmentFlag.AlignLeft)
        p.drawText(band.adjusted(2, -2, -2, 2), align | Qt.AlignmentFlag.AlignVCenter, text)
        if weight is None:
            return
        p.setFont(g["small"])
        p.setPen(MUTED_COLOR if masked or weight == 0 else LINE_COLOR.darker(130))
        num_w = g["num_w"]
        if side == "key":
            num = QRectF(rect.right() + 2, band.y() - 2, num_w, band.height() + 4)
            align = Qt.AlignmentFlag.AlignLeft
        else:
            num = QRectF(rect.left() - num_w - 2, band.y() - 2, num_w, band.height() + 4)
            align = Qt.AlignmentFlag.AlignRight
        p.drawText(num, align | Qt.AlignmentFlag.AlignVCenter, _weight_text(weight, masked))
