"""③ read by rows: O_i = Σ_j w_ij · v_j — a convex combination of the rows of V, so it never leaves their hull.

The chapter: "O 的第 i 行 = 权重行 · V 矩阵 = 各词 value 的凸组合 … 输出不会跑出各 V 围成的凸包".
Here are the pieces to show that: each key's share of an output row, the convex hull of 2-D points
(Andrew's monotone chain) and a point-in-hull test that also works for degenerate hulls.
"""
from dataclasses import dataclass

import numpy as np

from .checks import as_matrix
from .errors import ShapeError
from .plural import count


def contributions(weights_row, v):
    """Each key's share of one output row: (L,) weights and (L, d_v) values → (L, d_v) rows w_j·v_j.

    Their sum over keys (axis 0) is the output row ``weights_row @ v``.
    """
    w = np.asarray(weights_row, dtype=np.float64)
    v = as_matrix(v, "v")
    if w.ndim != 1 or w.shape[0] != v.shape[0]:
        raise ShapeError(f"contributions needs one weight per row of v: weights {w.shape}, v {v.shape}")
    return w[:, None] * v


def stack_bases(parts):
    """Where each share's bar starts when shares are stacked per column, positives up and negatives down.

    ``parts`` (L, d) → (L, d) bottoms: part j of column d is drawn from ``bottom[j, d]`` to
    ``bottom[j, d] + parts[j, d]``; positive parts pile up from 0, negative ones pile down from 0, so
    the bars cover exactly [Σ negatives, Σ positives] of each column and their signed total is the sum.
    """
    p = np.asarray(parts, dtype=np.float64)
    pos = np.where(p > 0, p, 0.0)
    neg = np.where(p < 0, p, 0.0)
    pos_below = np.cumsum(pos, axis=0) - pos
    neg_below = np.cumsum(neg, axis=0) - neg
    return np.where(p < 0, neg_below, pos_below)


def shares_for_bars(parts, keys):
    """The rows of a stacked bar chart that draws ``keys`` one by one and groups every other key.

    ``parts`` (L, d), ``keys`` a list of row indices → (rows, bases): the listed keys' rows in order,
    then — if some keys are left out — two rows for them: the sum of their positive shares and the sum
    of their negative shares (kept apart so no cancellation hides them), and ``stack_bases`` of it all.
    The signed sum of the rows is still the output row.
    """
    p = np.asarray(parts, dtype=np.float64)
    keys = [int(k) for k in keys]
    rest = np.ones(len(p), dtype=bool)
    rest[keys] = False
    rows = [p[keys]]
    if rest.any():
        others = p[rest]
        rows.append(np.stack([np.where(others > 0, others, 0.0).sum(axis=0),
                              np.where(others < 0, others, 0.0).sum(axis=0)]))
    stacked = np.concatenate(rows, axis=0)
    return stacked, stack_bases(stacked)


def _cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


_EXTREME_DIRECTIONS = np.array([(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)], dtype=np.float64)


def _clearly_inside(pts):
    """Points that cannot be on the hull (Akl–Toussaint): clearly inside the polygon of the extreme points
    in eight directions (counter-clockwise). A margin far above rounding keeps near-edge points in."""
    poly = pts[np.argmax(pts @ _EXTREME_DIRECTIONS.T, axis=0)]
    poly = poly[np.any(poly != np.roll(poly, 1, axis=0), axis=1)]  # a point extreme twice counts once
    if len(poly) < 3:
        return np.zeros(len(pts), dtype=bool)
    span = float(np.max(np.ptp(pts, axis=0)))
    margin = 1e-9 * span * (span + float(np.max(np.abs(pts))))
    a, b = poly, np.roll(poly, -1, axis=0)
    inside = np.ones(len(pts), dtype=bool)
    for (ax, ay), (bx, by) in zip(a, b):  # left of every edge, by more than the margin
        inside &= (bx - ax) * (pts[:, 1] - ay) - (by - ay) * (pts[:, 0] - ax) > margin
    return inside


def convex_hull_2d(points):
    """Indices of the convex hull's vertices of (n, 2) points, counter-clockwise (Andrew's monotone chain).

    Starts at the lowest-x (then lowest-y) point. Collinear points on an edge are left out;
    duplicates count once (the first index is kept). Degenerate inputs give short answers:
    no points → [], all points equal → [i], all points on a line → its two end points.
    """
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[1] != 2:
        raise ShapeError(f"convex_hull_2d expects points of shape (n, 2), got {pts.shape}")
    if not np.all(np.isfinite(pts)):
        raise ShapeError("convex_hull_2d: every coordinate must be a finite number")
    if len(pts) == 0:
        return np.zeros(0, dtype=np.intp)
    # only points that may lie on the hull enter the (Python) chain: many points → few candidates
    cand = np.flatnonzero(~_clearly_inside(pts)) if len(pts) > 64 else np.arange(len(pts))
    # sort by (x, y); a stable sort keeps the first of equal points first, then drop the repeats
    order = cand[np.lexsort((pts[cand, 1], pts[cand, 0]))]
    keep = np.ones(len(order), dtype=bool)
    keep[1:] = np.any(pts[order[1:]] != pts[order[:-1]], axis=1)
    order = order[keep]
    if len(order) <= 2:
        return order.astype(np.intp)
    p = pts[order].tolist()  # the chain runs on positions in ``order``

    def half(seq):
        chain = []
        for i in seq:
            while len(chain) >= 2 and _cross(p[chain[-2]], p[chain[-1]], p[i]) <= 0:
                chain.pop()
            chain.append(i)
        return chain

    lower, upper = half(range(len(order))), half(reversed(range(len(order))))
    return order[lower[:-1] + upper[:-1]].astype(np.intp)


def _distance_to_segment(p, a, b):
    ab = b - a
    length2 = float(ab @ ab)
    t = 0.0 if length2 == 0.0 else float(np.clip((p - a) @ ab / length2, 0.0, 1.0))
    return float(np.hypot(*(p - (a + t * ab))))


def in_convex_hull(point, points, tol=1e-9):
    """True if the 2-D ``point`` lies in the convex hull of ``points`` (n, 2), boundary included.

    Works when the hull is degenerate: a single point (distance ≤ tolerance) or a segment (distance
    to the segment ≤ tolerance). The tolerance is ``tol`` times the size of the picture
    (max(1, largest |coordinate|)), so rounding in a weighted sum never reads as "outside".
    """
    q = np.asarray(point, dtype=np.float64).reshape(-1)
    pts = np.asarray(points, dtype=np.float64)
    if q.shape != (2,):
        raise ShapeError(f"in_convex_hull expects a 2-D point, got shape {np.shape(point)}")
    if pts.ndim != 2 or pts.shape[1] != 2:
        raise ShapeError(f"in_convex_hull expects points of shape (n, 2), got {pts.shape}")
    if len(pts) == 0 or not np.all(np.isfinite(q)):
        return False
    eps = tol * max(1.0, float(np.max(np.abs(pts))), float(np.max(np.abs(q))))
    hull = pts[convex_hull_2d(pts)]
    if len(hull) >= 3 and all(_cross(a, b, q) >= 0 for a, b in zip(hull, np.roll(hull, -1, axis=0))):
        return True  # left of every counter-clockwise edge: inside or on the boundary
    # otherwise inside only if it is within the tolerance of the boundary (or of the point / segment).
    # Distances to the edges as segments, not to their lines: a sliver of a triangle is thin, not long.
    if len(hull) == 1:
        return float(np.hypot(*(q - hull[0]))) <= eps
    ends = np.roll(hull, -1, axis=0) if len(hull) >= 3 else hull[1:]
    return min(_distance_to_segment(q, a, b) for a, b in zip(hull, ends)) <= eps


@dataclass(frozen=True)
class RowReadout:
    """One query row of ③, for one head: its weights, the value rows they mix, each key's share, the result."""

    row: int
    head: int
    columns: np.ndarray  # (d,) the columns of V and O this head covers (all of them when H = 1)
    weights: np.ndarray  # (L,) row ``row`` of the head's weights
    values: np.ndarray  # (L, d) the head's slice of V
    parts: np.ndarray  # (L, d) contributions(weights, values)
    output: np.ndarray  # (d,) the head's output row = columns ``columns`` of O's row
    masked: bool  # the row had no key to attend to: zero weights, zero output
    allowed: np.ndarray | None = None  # (L,) the keys the row may attend (None: every key)

    def attended(self):
        """Indices of the keys the row may attend (a causal row: itself and those before it); every
        key for a row that may attend none (``masked``: all its weights are 0, shown as such)."""
        if self.allowed is None or not self.allowed.any():
            return np.arange(len(self.weights))
        return np.flatnonzero(self.allowed)


def row_readout(heads, v, row, head=0):
    """Read row ``row`` of a ``MultiHeadResult`` for one head: with H heads, head h mixes its own slice of V
    (with grouped K/V heads, the slice of the K/V head it reads)."""
    v = as_matrix(v, "v")
    n_heads, length, _ = heads.weights.shape
    if not 0 <= row < length:
        raise ShapeError(f"query row {row} is out of range: there are {count(length, 'row')}")
    if not 0 <= head < n_heads:
        raise ShapeError(f"head {head} is out of range: there are {count(n_heads, 'head')}")
    d_head = heads.head_outputs.shape[2]  # V width / H_kv: with grouped K/V heads, head h mixes the slice
    g = head // (n_heads // max(1, v.shape[1] // d_head))  # of its K/V head ⌊h / (H / H_kv)⌋
    columns = np.arange(g * d_head, (g + 1) * d_head)
    weights = np.asarray(heads.weights[head, row], dtype=np.float64)
    values = v[:, columns]
    return RowReadout(row=int(row), head=int(head), columns=columns, weights=weights, values=values,
                      parts=contributions(weights, values), output=np.asarray(heads.head_outputs[head, row]),
                      masked=bool(heads.masked_rows[row]),
                      allowed=None if heads.mask is None else  # (L, L), or per head (H or 1, L, L)
                      np.broadcast_to(heads.mask, heads.weights.shape)[head, row].astype(bool))


SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def distinct_names(tokens):
    """The tokens as a list that names each once: a token that occurs more than once gets its position as a
    subscript ("the₃", "the₇"), so a list of keys ranked by weight (the Readout's legend) tells them apart."""
    seen = {}
    for token in tokens:
        seen[token] = seen.get(token, 0) + 1
    return [f"{t}{str(j).translate(SUBSCRIPTS)}" if seen[t] > 1 else t for j, t in enumerate(tokens)]


def keys_by_weight(weights):
    """Key indices heaviest first; equal weights keep token order (a stable sort)."""
    return np.argsort(-np.asarray(weights, dtype=np.float64), kind="stable")


def drawn_keys(weights, max_keys, keys=None):
    """The keys a chart draws one by one, in token order, among ``keys`` (default all; a masked key
    has nothing to show): all of them when there are at most ``max_keys``, else the ``max_keys − 1``
    heaviest (the last slot is for the rest, grouped)."""
    keys = np.arange(len(weights)) if keys is None else np.asarray(keys, dtype=np.intp)
    if len(keys) <= max_keys:
        return keys.tolist()
    heaviest = keys[keys_by_weight(np.asarray(weights)[keys])[:max(max_keys - 1, 0)]]
    return sorted(heaviest.tolist())


# ----- room for the labels of the plane (pixel geometry, y pointing down as on screen) --------------------
def padded_range(lo, hi, pixels, pad_low, pad_high, floor=1.0):
    """(lo', hi') that show [lo, hi] with ``pad_low`` / ``pad_high`` pixels of room at its two ends.

    On an axis of ``pixels`` pixels the data keep the pixels the padding leaves, so a label next to the
    outermost point fits whatever the size of the plot; the padding takes at most 60 % of the axis
    (a tiny plot shrinks it). A zero span first widens to ±floor/2 around its value.
    """
    lo, hi = float(lo), float(hi)
    if not hi - lo > 0:
        lo, hi = lo - floor / 2, hi + floor / 2
    pixels = max(float(pixels), 1.0)
    pad_low, pad_high = max(float(pad_low), 0.0), max(float(pad_high), 0.0)
    if pad_low + pad_high > 0.6 * pixels:
        shrink = 0.6 * pixels / (pad_low + pad_high)
        pad_low, pad_high = pad_low * shrink, pad_high * shrink
    per_pixel = (hi - lo) / (pixels - pad_low - pad_high)
    return lo - pad_low * per_pixel, hi + pad_high * per_pixel


def box_overlap(a, b):
    """Area shared by two boxes (x0, y0, x1, y1)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(w, 0.0) * max(h, 0.0)


def segment_in_box(segment, box):
    """Length of the segment (x0, y0, x1, y1) that runs inside ``box`` (Liang–Barsky clipping)."""
    x0, y0, x1, y1 = (float(c) for c in segment)
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, x0 - box[0]), (dx, box[2] - x0), (-dy, y0 - box[1]), (dy, box[3] - y0)):
        if p == 0:
            if q < 0:
                return 0.0
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return 0.0
    return (t1 - t0) * float(np.hypot(dx, dy))


def outside_area(box, bounds):
    """Area of ``box`` that lies outside ``bounds`` (both (x0, y0, x1, y1))."""
    area = (box[2] - box[0]) * (box[3] - box[1])
    return area - box_overlap(box, bounds)


LINE_COST = 4.0  # a pixel of line under a label counts as this many pixels of covered area
OUTSIDE_COST = 3.0  # a pixel of label outside the plot: worse than covering something


def boxes_around(points, half):
    """Square boxes (n, 4) of half-size ``half`` centred on (n, 2) points: the obstacles a dot makes."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    return np.concatenate([pts - half, pts + half], axis=1)


def _as_rows(items, width):
    """A list of tuples, or an array, as a float (n, width) array (an empty one for no items)."""
    a = np.asarray(items, dtype=np.float64)
    return a.reshape(-1, width) if a.size else np.zeros((0, width))


def overlap_areas(boxes, others):
    """``box_overlap`` of every pair: boxes (k, 4) × others (n, 4) → (n, k) areas."""
    b, o = np.asarray(boxes, dtype=np.float64), np.asarray(others, dtype=np.float64)
    w = np.minimum(o[:, None, 2], b[None, :, 2]) - np.maximum(o[:, None, 0], b[None, :, 0])
    h = np.minimum(o[:, None, 3], b[None, :, 3]) - np.maximum(o[:, None, 1], b[None, :, 1])
    return np.maximum(w, 0.0) * np.maximum(h, 0.0)


def segment_lengths_in_boxes(segments, boxes):
    """``segment_in_box`` of every pair, by vectorised Liang–Barsky: segments (n, 4) × boxes (k, 4) → (n, k)."""
    s, b = np.asarray(segments, dtype=np.float64), np.asarray(boxes, dtype=np.float64)
    x0, y0 = s[:, 0, None], s[:, 1, None]
    dx, dy = s[:, 2, None] - x0, s[:, 3, None] - y0
    # the four (p, q) of segment_in_box, edge by edge: p (n, 4, 1), q (n, 4, k)
    p = np.stack([-dx, dx, -dy, dy], axis=1)
    q = np.stack([x0 - b[None, :, 0], b[None, :, 2] - x0, y0 - b[None, :, 1], b[None, :, 3] - y0], axis=1)
    t = q / np.where(p == 0, 1.0, p)
    t0 = np.maximum(np.where(p < 0, t, -np.inf).max(axis=1), 0.0)  # entering: the last edge crossed inwards
    t1 = np.minimum(np.where(p > 0, t, np.inf).min(axis=1), 1.0)  # leaving: the first edge crossed outwards
    parallel_outside = ((p == 0) & (q < 0)).any(axis=1)  # parallel to an edge and beyond it
    return np.where(~parallel_outside & (t0 <= t1), (t1 - t0) * np.hypot(dx, dy), 0.0)


def place_label(anchor, size, offsets, boxes=(), segments=(), bounds=None, line_cost=LINE_COST, penalties=None):
    """Where a label of ``size`` (w, h) goes next to ``anchor`` (x, y): the box (x0, y0, x1, y1) at one of
    ``offsets`` (the box's top-left relative to the anchor) that hides least.

    The cost of a box is the area it shares with ``boxes`` (points, other labels), ``line_cost`` per
    pixel of ``segments`` (x0, y0, x1, y1) running under it — times a segment's fifth number if it has
    one (how visible it is: a faint line costs little) — and OUTSIDE_COST per pixel of it outside ``bounds``.
    ``penalties`` (one per offset) add a fixed cost, e.g. for being further away. The first of the
    cheapest offsets wins, so ``offsets`` are listed in order of preference.
    ``boxes`` and ``segments`` may be sequences of tuples or (n, 4) / (n, 4 or 5) arrays. All offsets
    are scored at once with NumPy, against only the obstacles that reach the candidate boxes.
    Returns (index of the offset, box).
    """
    off = _as_rows(offsets, 2)
    if not len(off):
        raise ValueError("place_label needs at least one offset")
    w, h = float(size[0]), float(size[1])
    x = float(anchor[0]) + off[:, 0]
    y = float(anchor[1]) + off[:, 1]
    cand = np.stack([x, y, x + w, y + h], axis=1)  # (k, 4), as the scalar formula builds each box
    reach = (cand[:, 0].min(), cand[:, 1].min(), cand[:, 2].max(), cand[:, 3].max())
    cost = np.zeros(len(cand)) if penalties is None else np.asarray(penalties, dtype=np.float64)[:len(cand)].copy()

    b = _as_rows(boxes, 4)
    b = b[(b[:, 0] <= reach[2]) & (b[:, 2] >= reach[0]) & (b[:, 1] <= reach[3]) & (b[:, 3] >= reach[1])]
    if len(b):
        # a cumulative sum adds in list order, as Python's sum() does: the same costs to the last bit
        cost += np.cumsum(overlap_areas(cand, b), axis=0)[-1]
    segs = _segment_rows(segments)
    if len(segs):
        lo, hi = np.minimum(segs[:, 0:2], segs[:, 2:4]), np.maximum(segs[:, 0:2], segs[:, 2:4])
        segs = segs[(lo[:, 0] <= reach[2]) & (hi[:, 0] >= reach[0]) & (lo[:, 1] <= reach[3]) & (hi[:, 1] >= reach[1])]
    if len(segs):
        cost += line_cost * np.cumsum(segment_lengths_in_boxes(segs[:, :4], cand) * segs[:, 4:5], axis=0)[-1]
    if bounds is not None:
        area = (cand[:, 2] - cand[:, 0]) * (cand[:, 3] - cand[:, 1])
        cost += OUTSIDE_COST * (area - overlap_areas(cand, np.asarray(bounds, dtype=np.float64).reshape(1, 4))[0])
    costs, best = cost.tolist(), 0
    for k in range(1, len(costs)):  # a later offset wins only if clearly cheaper than the best before it
        if costs[k] < costs[best] - 1e-9:
            best = k
    return best, tuple(float(c) for c in cand[best])


def _segment_rows(segments):
    """Segments (x0, y0, x1, y1[, visibility]) → an (n, 5) array, visibility 1 where it is left out."""
    if isinstance(segments, np.ndarray):
        if not segments.size:
            return np.zeros((0, 5))
        s = np.asarray(segments, dtype=np.float64).reshape(len(segments), -1)
        return s[:, :5] if s.shape[1] >= 5 else np.column_stack([s[:, :4], np.ones(len(s))])
    rows = [tuple(float(c) for c in seg[:5]) + (() if len(seg) > 4 else (1.0,)) for seg in segments]
    return np.array(rows, dtype=np.float64).reshape(-1, 5)
