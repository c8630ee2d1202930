"""Where the rotation plane's labels go, in the plot's pixels (again whenever it is resized): the names of q and
k beyond their arrows' tips, the angle ("57.3°") beside the middle of its arc — each where it hides least of the
arrows, the other labels and the arc, inside the plot. ``explorer.core.readout.place_label`` (the Readout's
placing) scores the places."""
import numpy as np
from PySide6.QtCore import QPointF

from explorer.core.readout import place_label

GAP_PX = 4.0  # between the arc (or an arrow's tip) and a label's box
TURNS = (0, 12, -12, 24, -24, 36, -36, 50, -50, 70, -70, 90, -90, 120, -120, 150, -150, 180)  # degrees off the middle
FURTHER_PX = 14.0  # a second ring of places, this much further out
TURN_COST = 1.5  # per degree away from the preferred side (as many pixels² of the label hidden)
RING_COST = {"outside": 0.0, "inside": 25.0, "further": 40.0}
ARROW_WEIGHT = 30.0  # a pixel of arrow under a label: as bad as hiding this many pixels² of anything else
ARC_WEIGHT = 6.0
GHOST_WEIGHT = 2.0  # the dashed arrows before rotation
CIRCLE_WEIGHT = 0.5  # the dotted circles the arrows' tips run on
HEAD_PX = 9.0  # half the size of an arrow head's box


def _px(view, point):
    at = view.mapFromView(QPointF(float(point[0]), float(point[1])))
    return np.array([at.x(), at.y()])


def text_box(view, item):
    """The pixel box (x0, y0, x1, y1) of a TextItem in ``view``'s coordinates, from its place and anchor."""
    rect = item.textItem.boundingRect()
    at = _px(view, (item.pos().x(), item.pos().y()))
    left, top = at[0] - item.anchor[0] * rect.width(), at[1] - item.anchor[1] * rect.height()
    return left, top, left + rect.width(), top + rect.height()


def _polyline(points, weight):
    """Segments (x0, y0, x1, y1, weight) joining consecutive pixel ``points``."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(points) < 2:
        return np.zeros((0, 5))
    return np.column_stack([points[:-1], points[1:], np.full(len(points) - 1, weight)])


def _around(direction, size, turns=TURNS):
    """(turn, d, reach) for each of ``turns`` (degrees): ``direction`` (a unit vector) turned by it, and how far
    a box of ``size`` reaches from its centre to its edge along d."""
    w, h = size
    for turn in turns:
        t = np.radians(turn)
        d = np.array([np.cos(t) * direction[0] - np.sin(t) * direction[1],
                      np.sin(t) * direction[0] + np.cos(t) * direction[1]])
        reach = abs(d[0]) * w / 2 + abs(d[1]) * h / 2  # from the box's centre to its edge along d
        yield turn, d, reach


def _put(view, label, box):
    centre = view.mapToView(QPointF((box[0] + box[2]) / 2, (box[1] + box[3]) / 2))
    label.setPos(centre.x(), centre.y())


def _size(label):
    rect = label.textItem.boundingRect()
    return rect.width(), rect.height()


def place_plane_labels(view, angle, tips, names, arc, ghosts=(), circles=()):
    """Place the TextItems ``names`` (one per arrow from the origin to each of ``tips``, data units) and ``angle``
    (beside ``arc``, (n, 2) points), each anchored at its centre, where they hide least of the arrows, each other,
    the arc, the dashed ``ghosts`` (tips) and the ``circles`` ((n, 2) each)."""
    bounds = view.boundingRect()
    if bounds.width() < 2 or bounds.height() < 2:  # not laid out yet (placed again once it is resized)
        for label, at in (*zip(names, tips), (angle, arc[len(arc) // 2] if len(arc) else (0.0, 0.0))):
            label.setPos(float(at[0]), float(at[1]))
        return
    bounds = (bounds.left(), bounds.top(), bounds.right(), bounds.bottom())
    origin = _px(view, (0.0, 0.0))
    tips_px = [_px(view, tip) for tip in tips]
    lines = [_polyline([origin, tip], ARROW_WEIGHT) for tip in tips_px]
    lines += [_polyline([origin, _px(view, tip)], GHOST_WEIGHT) for tip in ghosts]
    arc_px = np.array([_px(view, p) for p in arc]).reshape(-1, 2)
    lines += [_polyline(arc_px, ARC_WEIGHT)]
    lines += [_polyline([_px(view, p) for p in circle], CIRCLE_WEIGHT) for circle in circles]
    lines = np.concatenate(lines)
    taken = [(x - HEAD_PX, y - HEAD_PX, x + HEAD_PX, y + HEAD_PX) for x, y in tips_px]
    for name, tip in zip(names, tips_px):  # beyond its tip first, else around it
        out = tip - origin
        length = float(np.hypot(*out))
        if not name.isVisible() or length < 1e-6:
            continue
        w, h = _size(name)
        offsets, penalties = [], []
        for turn, d, reach in _around(out / length, (w, h)):
            centre = out + d * (HEAD_PX + GAP_PX + reach)
            offsets.append((centre[0] - w / 2, centre[1] - h / 2))
            penalties.append(TURN_COST * abs(turn))
        _, box = place_label(origin, (w, h), offsets, boxes=np.reshape(taken, (-1, 4)), segments=lines,
                             bounds=bounds, line_cost=1.0, penalties=penalties)
        _put(view, name, box)
        taken.append(box)
    middle = arc_px[len(arc_px) // 2] - origin if len(arc_px) >= 2 else np.zeros(2)
    radius = float(np.hypot(*middle))
    if not angle.isVisible() or radius < 1e-6:
        return
    w, h = _size(angle)
    offsets, penalties = [], []
    for turn, d, reach in _around(middle / radius, (w, h)):
        rings = {"outside": radius + GAP_PX + reach, "further": radius + GAP_PX + reach + FURTHER_PX}
        if radius - GAP_PX - reach > reach + 2:  # inside the arc, the origin not under the label
            rings["inside"] = radius - GAP_PX - reach
        for ring, distance in rings.items():
            centre = d * distance
            offsets.append((centre[0] - w / 2, centre[1] - h / 2))
            penalties.append(TURN_COST * abs(turn) + RING_COST[ring])
    _, box = place_label(origin, (w, h), offsets, boxes=np.reshape(taken, (-1, 4)), segments=lines, bounds=bounds,
                         line_cost=1.0, penalties=penalties)
    _put(view, angle, box)
