"""Where the Readout plane's labels go: its range fitted with room for them, each placed where it hides least."""
import numpy as np
from PySide6.QtCore import QRectF

from explorer.core.readout import boxes_around, overlap_areas, padded_range, place_label

# Room (pixels) around the plane's points, so a label next to the outermost point still fits.
PAD_PX = {"left": 18.0, "right": 18.0, "bottom": 16.0, "top": 26.0}
DOT_PX = 6.0  # half the size of a key's dot on the plane
STAR_PX = 12.0  # half the size of the star O_i
LABEL_GAP = 3.0  # pixels between a dot and its label's box
STAR_RING_COST = 0.12  # of the O label's area: the cost of each step further from the star
STAR_LINE_COST = 8.0  # the O label hides lines more readily than a token label does: it may move away
HULL_EDGE_VISIBILITY = 0.6  # the pale hull edge counts less than a full weight line
HIDDEN_AT = 0.1  # a token label covering more than this share of itself with labels already placed stays off


def box_at(left, top, size):
    """A QRectF of ``size`` (w, h) with its top-left corner at (left, top)."""
    return QRectF(float(left), float(top), float(size[0]), float(size[1]))


class PlaneLabels:
    """Part of ReadoutPanel: the plane's range and its labels, in pixels (redone whenever the plot is resized)."""

    def _layout_plane(self):
        """Fit the range to the points with room for labels at the edges, then place every label."""
        ro = self._readout
        if ro is None or not self.plane.labels:
            return
        pts, _ = self.plane_points()
        one_d = ro.values.shape[1] == 1
        for _ in range(2):  # the range's tick texts set the left margin, and so the width the range pads
            rect = self.plane.data_rect()
            width, height = max(rect.width(), 40.0), max(rect.height(), 40.0)
            x_range = padded_range(pts[:, 0].min(), pts[:, 0].max(), width, PAD_PX["left"], PAD_PX["right"])
            y_range = (-1, 1) if one_d else padded_range(pts[:, 1].min(), pts[:, 1].max(), height,
                                                         PAD_PX["bottom"], PAD_PX["top"])
            self.plane.set_view(x_range, y_range)
        self._place_labels()

    def _place_labels(self):
        """Put the token labels and the O_i label where they hide the least.

        In 2-D each token label goes beside its point — outward from the points' centre first — where it
        covers neither the star, other points nor other labels, and stays inside the plot; then O_i's
        label (on a white backing) goes beside the star where it covers the fewest token labels, points,
        weight lines (a faint line counts little) and hull edges — close to the star unless that hides
        much more. On a line (d_v = 1) the labels sit below it, each on the first tier where it overlaps
        no earlier label, and O_i's label above the star.
        """
        plane = self.plane
        if not plane.labels or self._readout is None:
            return
        plane.leader = None
        if self._readout.values.shape[1] == 1:
            self._place_labels_on_a_line()
            return
        metrics = plane.metrics()
        rect = plane.data_rect()
        bounds = (rect.left(), rect.top(), rect.right(), rect.bottom())
        pts, o = self.plane_points()
        pts_px = plane.to_px(pts)
        dots = boxes_around(pts_px, DOT_PX)  # (L, 4): place_label scores only those near a label
        star_on = plane.star is not None
        star = plane.to_px(o)
        lines = np.zeros((0, 5))
        if star_on:
            keys = self.shown_keys()
            weights = np.clip(self._readout.weights[keys], 0.0, 1.0)  # a line is as visible as its weight
            lines = np.column_stack([np.tile(star, (len(keys), 1)), pts_px[keys], np.maximum(weights, 0.1)])
        taken = [(star[0] - STAR_PX, star[1] - STAR_PX, star[0] + STAR_PX, star[1] + STAR_PX)] if star_on else []
        centre = pts_px.mean(axis=0)
        placed = []  # (token label, its box)
        for label, point in self._by_weight():
            anchor = plane.to_px(point)
            w, h = label.size(metrics)
            g = DOT_PX + LABEL_GAP
            offsets = [(g - 2, -h + 2), (g - 2, -2), (-w - g + 2, -h + 2), (-w - g + 2, -2), (g, -h / 2),
                       (-w - g, -h / 2), (-w / 2, -h - g + 4), (-w / 2, g - 4)]
            out = anchor - centre
            if np.hypot(*out) > 1e-6:  # outward first: away from the hull, where O_i and the lines are not
                offsets.sort(key=lambda d: -float(np.dot(np.array([d[0] + w / 2, d[1] + h / 2]), out)))
            others = dots[np.hypot(*(pts_px - anchor).T) > 0.5]  # every dot but its own (and any on top of it)
            _, box = place_label(anchor, (w, h), offsets, boxes=np.concatenate([others, np.reshape(taken, (-1, 4))]),
                                 segments=lines, bounds=bounds, line_cost=1.0)
            # label only what can be read: one that would lie on a label placed before it (a heavier key's)
            # or on the star stays off
            readable = overlap_areas(np.reshape(box, (1, 4)), np.reshape(taken, (-1, 4))).sum() <= HIDDEN_AT * w * h
            label.box = box_at(box[0], box[1], (w, h)) if readable else None
            if readable:
                taken.append(box)
                placed.append((label, box))
        if not star_on:
            plane.star_label.box = None
            return
        hull = pts_px[self._hull(pts)]
        edges = np.column_stack([hull, np.roll(hull, -1, axis=0), np.full(len(hull), HULL_EDGE_VISIBILITY)]) \
            if len(hull) > 1 else np.zeros((0, 5))
        w, h = plane.star_label.size(metrics)
        offsets, penalties = [], []
        for ring, g in enumerate((STAR_PX + 1, STAR_PX + 14, STAR_PX + 30)):  # beside the star, then further
            offsets += [(g, -h / 2), (g, -h - 2), (g, 2), (-w - g, -h / 2), (-w - g, -h - 2), (-w - g, 2),
                        (-w / 2, g - 4), (-w / 2, -h - g + 4)]
            penalties += [ring * STAR_RING_COST * w * h] * 8  # far from the star it names the star less
        _, box = place_label(star, (w, h), offsets, boxes=np.concatenate([dots, np.reshape(taken[1:], (-1, 4))]),
                             segments=np.concatenate([lines, edges]), bounds=bounds, line_cost=STAR_LINE_COST,
                             penalties=penalties)
        plane.star_label.box = box_at(box[0], box[1], (w, h))
        for label, where in placed:  # O_i's label wins over a token label it would cover
            lw, lh = where[2] - where[0], where[3] - where[1]
            if overlap_areas(np.reshape(where, (1, 4)), np.reshape(box, (1, 4))).sum() > HIDDEN_AT * lw * lh:
                label.box = None
        near = np.clip(star, box[:2], box[2:])  # the label's closest point to the star
        gap = near - star
        if np.hypot(*gap) > STAR_PX + 5:  # set apart: a thin leader says whose label it is
            plane.leader = (star + gap / np.hypot(*gap) * (STAR_PX - 2), near)

    def _by_weight(self):
        """(label, point) pairs, the heaviest key's first: where labels crowd, those are the ones kept."""
        pairs = list(zip(self.plane.labels, self._label_points, self._label_keys))
        weights = self._readout.weights
        return [(label, point) for label, point, j in sorted(pairs, key=lambda p: (-float(weights[p[2]]), p[2]))]

    def _place_labels_on_a_line(self):
        plane = self.plane
        metrics = plane.metrics()
        rect = plane.data_rect()
        tiers = []  # per tier: the pixel spans already taken
        for label, point in sorted(zip(plane.labels, self._label_points), key=lambda lp: lp[1][0]):
            x, y = plane.to_px(point)
            w, h = label.size(metrics)
            frac = float(np.clip((x - rect.left()) / max(rect.width(), 1.0), 0.0, 1.0))
            left = x - frac * w  # at the left end a label starts at its point, at the right end it ends there
            span = (left - 4.0, left + w + 4.0)
            tier = next((t for t, taken in enumerate(tiers) if all(span[0] >= b or span[1] <= a for a, b in taken)),
                        len(tiers))
            if tier == len(tiers):
                tiers.append([])
            tiers[tier].append(span)
            label.box = box_at(left, y + (0.25 + 0.95 * tier) * h, (w, h))
        star = plane.star_label
        if plane.star is None:
            star.box = None
            return
        x, y = plane.to_px(plane.star)
        w, h = star.size(metrics)
        frac = float(np.clip((x - rect.left()) / max(rect.width(), 1.0), 0.0, 1.0))
        star.box = box_at(x - frac * w, y - 1.3 * h, (w, h))
