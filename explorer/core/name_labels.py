"""Names beside points, placed apart: each next to its point — on its preferred side when that is free, else
above, below or on the other side — where it hides least of the other points, lines and names; a name that
would lie on one placed before it is left off, as the Readout's plane does (``readout.place_label``).

Geometry in pixels, y pointing down; boxes are (x0, y0, x1, y1). Used by the Query–key space, where a query
and the key it weighs most often land on top of each other.
"""
import numpy as np

from .readout import overlap_areas, place_label

HIDDEN_AT = 0.1  # a name covering more than this share of itself with names placed before it is left off


def name_offsets(side, size, gap):
    """The top-left corners (relative to the point) a name of ``size`` (w, h) may take, ``gap`` px from the
    point's centre, in order of preference: beside it on ``side`` ("right" or "left") — level with it, then a
    little up, a little down —, above, below (clear of names level with it), then the other side."""
    w, h = float(size[0]), float(size[1])
    right = [(gap, -h / 2), (gap - 2, -h + 2), (gap - 2, -2)]
    left = [(-w - x, y) for x, y in ((gap, -h / 2), (gap - 2, -h + 2), (gap - 2, -2))]
    clear = max(gap - 2, h / 2)  # above or below the point, and the names level with it
    over_under = [(-w / 2, -h - clear), (-w / 2, clear)]
    return (right + over_under + left) if side == "right" else (left + over_under + right)


def place_names(points, sizes, sides, dots=(), lines=(), bounds=None, gap=9.0, hidden_at=HIDDEN_AT):
    """Boxes for names of ``sizes`` ((n, 2): w, h) beside ``points`` ((n, 2)), in the order given (the first
    are placed first and so win where names crowd), each ``sides[i]`` ("right" or "left") when free: the place
    among ``name_offsets`` that covers least of ``dots`` (boxes of the points drawn), ``lines`` (x0, y0, x1, y1
    [, visibility]), the names placed before it, and least outside ``bounds``. A name whose best place still
    covers more than ``hidden_at`` of its own area with names placed before it gets None (left off)."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    dots = np.asarray(dots, dtype=np.float64).reshape(-1, 4)
    avoid = np.concatenate([dots, np.zeros((len(points), 4))])  # the dots, then each name as it is placed
    placed, boxes = len(dots), []
    for point, size, side in zip(points, sizes, sides):
        w, h = float(size[0]), float(size[1])
        _, box = place_label(point, (w, h), name_offsets(side, (w, h), gap), boxes=avoid[:placed], segments=lines,
                             bounds=bounds, line_cost=1.0)
        hidden = overlap_areas(np.reshape(box, (1, 4)), avoid[len(dots):placed]).sum() > hidden_at * w * h
        boxes.append(None if hidden else box)
        if not hidden:
            avoid[placed] = box
            placed += 1
    return boxes
