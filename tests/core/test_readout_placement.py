"""The vectorised label placement of explorer.core.readout against a plain one-box-at-a-time reference (no Qt).

The reference is written here from the placement's definition and uses none of the module's helpers:
a box's cost is the area it shares with every obstacle box, ``line_cost`` × the length of every
segment (times its visibility) that runs inside it, and OUTSIDE_COST × its area outside the bounds;
the first offset whose cost is lowest (by more than 1e-9) wins. The length inside a box is found by
another method than the module's Liang–Barsky clipping: cut the segment where it crosses the four
edge lines and add up the pieces whose midpoint lies in the box.
"""
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from explorer.core.readout import (OUTSIDE_COST, boxes_around, overlap_areas, place_label,
                                   segment_lengths_in_boxes)
from tests.box_geometry import area_outside, length_inside, shared_area


def test_the_reference_geometry_by_hand():
    assert shared_area((0, 0, 10, 10), (5, 5, 20, 20)) == 25 and shared_area((0, 0, 1, 1), (2, 2, 3, 3)) == 0
    assert shared_area((0, 0, 10, 10), (10, 0, 20, 10)) == 0  # touching edges share no area
    assert area_outside((-5, 0, 5, 10), (0, 0, 100, 100)) == 50
    assert length_inside((-5, 5, 15, 5), (0, 0, 10, 10)) == 10
    assert length_inside((0, 0, 20, 20), (0, 0, 10, 10)) == pytest.approx(10 * math.sqrt(2))
    assert length_inside((5, -5, 5, 5), (0, 0, 10, 10)) == 5
    assert length_inside((0, 0, 10, 0), (0, 0, 10, 10)) == 10  # along an edge counts
    assert length_inside((20, 0, 30, 10), (0, 0, 10, 10)) == 0
    assert length_inside((3, 3, 3, 3), (0, 0, 10, 10)) == 0  # a point has no length


def reference_place_label(anchor, size, offsets, boxes=(), segments=(), bounds=None, line_cost=4.0, penalties=None):
    """The straightforward placement the vectorised one replaces: every offset against every obstacle, in Python."""
    w, h = float(size[0]), float(size[1])
    best = None
    for k, (dx, dy) in enumerate(offsets):
        x, y = float(anchor[0]) + dx, float(anchor[1]) + dy
        box = (x, y, x + w, y + h)
        cost = 0.0 if penalties is None else float(penalties[k])
        cost += sum(shared_area(box, b) for b in boxes)
        cost += line_cost * sum(length_inside(s, box) * (float(s[4]) if len(s) > 4 else 1.0) for s in segments)
        if bounds is not None:
            cost += OUTSIDE_COST * area_outside(box, bounds)
        if best is None or cost < best[0] - 1e-9:
            best = (cost, k, box)
    return best[1], best[2]


coord = st.floats(-60, 260, allow_nan=False, width=32)
length = st.floats(1, 80, allow_nan=False, width=32)


@st.composite
def box(draw):
    x, y, w, h = draw(coord), draw(coord), draw(length), draw(length)
    return (x, y, x + w, y + h)


@st.composite
def segment(draw):
    ends = tuple(draw(st.one_of(coord, st.sampled_from([0.0, 50.0, 100.0]))) for _ in range(4))  # some axis-parallel
    return ends + ((draw(st.floats(0.1, 1.0)),) if draw(st.booleans()) else ())


@st.composite
def placement(draw):
    n_off = draw(st.integers(1, 24))
    offsets = [(draw(st.floats(-90, 30, width=32)), draw(st.floats(-60, 30, width=32))) for _ in range(n_off)]
    kw = dict(boxes=draw(st.lists(box(), max_size=40)), segments=draw(st.lists(segment(), max_size=12)))
    if draw(st.booleans()):
        kw["bounds"] = (0.0, 0.0, draw(st.floats(50, 300)), draw(st.floats(50, 300)))
    if draw(st.booleans()):
        kw["penalties"] = [draw(st.sampled_from([0.0, 10.0, 123.5])) for _ in range(n_off)]
    kw["line_cost"] = draw(st.sampled_from([1.0, 4.0, 8.0]))
    anchor = (draw(coord), draw(coord))
    return anchor, (draw(length), draw(length)), offsets, kw


@settings(max_examples=400, deadline=None, database=None)
@given(placement())
def test_vectorised_placement_matches_the_reference(case):
    anchor, size, offsets, kw = case
    assert place_label(anchor, size, offsets, **kw) == reference_place_label(anchor, size, offsets, **kw)
    # arrays in, the same answer out
    segments = np.array([s[:4] + (s[4:] or (1.0,)) for s in kw["segments"]]).reshape(-1, 5)
    arrays = dict(kw, boxes=np.array(kw["boxes"]).reshape(-1, 4), segments=segments)
    assert place_label(anchor, size, np.array(offsets), **arrays) == reference_place_label(anchor, size, offsets, **kw)


def test_ties_go_to_the_first_offset_and_crowds_are_scored_whole():
    """Every offset free: the first wins; a crowd of dots decides by the area each candidate covers."""
    offsets = [(5, -10), (5, 2), (-25, -5), (-10, 8)]
    assert place_label((0, 0), (20, 10), offsets)[0] == 0
    rng = np.random.default_rng(7)
    dots = boxes_around(rng.normal(0, 25, size=(3000, 2)), 6.0)  # thousands of dots, most far from the label
    bounds = (-80, -80, 80, 80)
    expected = reference_place_label((0, 0), (20, 10), offsets, boxes=[tuple(b) for b in dots], bounds=bounds)
    assert place_label((0, 0), (20, 10), offsets, boxes=dots, bounds=bounds) == expected


@settings(max_examples=200, deadline=None, database=None)
@given(st.lists(box(), min_size=1, max_size=8), st.lists(box(), min_size=1, max_size=8),
       st.lists(segment(), min_size=1, max_size=8))
def test_pairwise_areas_and_lengths_are_the_references(cands, others, segments):
    areas = overlap_areas(cands, others)
    lengths = segment_lengths_in_boxes([s[:4] for s in segments], cands)
    assert areas.shape == (len(others), len(cands)) and lengths.shape == (len(segments), len(cands))
    for k, c in enumerate(cands):
        assert [areas[i, k] for i in range(len(others))] == [shared_area(c, o) for o in others]
        for i, s in enumerate(segments):
            assert lengths[i, k] == pytest.approx(length_inside(s, c), rel=1e-9, abs=1e-9), (s, c)


def test_boxes_around_points():
    np.testing.assert_array_equal(boxes_around([[1, 2], [3, 4]], 1.5), [[-0.5, 0.5, 2.5, 3.5], [1.5, 2.5, 4.5, 5.5]])
    assert boxes_around(np.zeros((0, 2)), 6).shape == (0, 4)


@settings(max_examples=150, deadline=None, database=None)
@given(st.lists(st.tuples(st.floats(20, 380), st.floats(20, 280)), min_size=1, max_size=30),
       st.floats(8, 60), st.floats(8, 20))
@example([(20.0, 20.000000000000004), (20.0, 24.0)], 8.0, 8.0)  # boxes that touch, off by one float step
def test_labels_never_overlap_each_other_when_there_is_room(anchors, w, h):
    """Placed one after another, each avoiding the ones before: a label lands on another only if every
    offset it could take was covered (or outside the plot)."""
    bounds = (0.0, 0.0, 400.0, 300.0)
    g = 9.0
    offsets = [(g, -h + 2), (g, -2), (-w - g, -h + 2), (-w - g, -2), (g, -h / 2), (-w - g, -h / 2),
               (-w / 2, -h - g), (-w / 2, g)]
    taken = []
    for a in anchors:
        k, placed = place_label(a, (w, h), offsets, boxes=taken, bounds=bounds)
        assert (k, placed) == reference_place_label(a, (w, h), offsets, boxes=taken, bounds=bounds)
        # touching boxes share an area of float noise (~1e-15), not a covered label: under 1e-9 is none
        free = [b for b in ((a[0] + dx, a[1] + dy, a[0] + dx + w, a[1] + dy + h) for dx, dy in offsets)
                if area_outside(b, bounds) == 0 and all(shared_area(b, t) <= 1e-9 for t in taken)]
        if free:
            assert all(shared_area(placed, t) <= 1e-9 for t in taken), "a label covers another though there was room"
            assert area_outside(placed, bounds) == pytest.approx(0, abs=1e-9)
        taken.append(placed)


def test_place_label_needs_an_offset():
    with pytest.raises(ValueError):
        place_label((0, 0), (1, 1), np.zeros((0, 2)))
