"""Boxes and segments on screen, from their definitions, for tests that must not use the code they check
(``explorer.core.readout``'s box_overlap, segment_in_box and outside_area)."""
import math


def shared_area(a, b):
    """The area of the intersection of boxes a and b (x0, y0, x1, y1): its width times its height, or 0."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    return width * height if width > 0 and height > 0 else 0.0


def area_outside(box, bounds):
    return (box[2] - box[0]) * (box[3] - box[1]) - shared_area(box, bounds)


def length_inside(seg, box):
    """The length of segment (x0, y0, x1, y1) inside ``box``, edges included: the pieces between the
    points where it crosses the lines x = box[0], x = box[2], y = box[1], y = box[3] whose midpoints are in the box."""
    x0, y0, x1, y1 = (float(c) for c in seg[:4])
    dx, dy = x1 - x0, y1 - y0
    cuts = {0.0, 1.0}
    for edge, start, step in ((box[0], x0, dx), (box[2], x0, dx), (box[1], y0, dy), (box[3], y0, dy)):
        if step != 0 and 0 < (edge - start) / step < 1:
            cuts.add((edge - start) / step)
    cuts = sorted(cuts)
    inside = 0.0
    for a, b in zip(cuts, cuts[1:]):
        mx, my = x0 + (a + b) / 2 * dx, y0 + (a + b) / 2 * dy
        if box[0] <= mx <= box[2] and box[1] <= my <= box[3]:
            inside += b - a
    return inside * math.hypot(dx, dy)
