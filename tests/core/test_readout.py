"""③ read by rows: each key's share of O_i, and O_i inside the convex hull of the rows of V."""
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from explorer.core import contributions, convex_hull_2d, in_convex_hull, multi_head_attention, softmax
from explorer.core.errors import ShapeError
from explorer.core.presets import demo_session
from explorer.core.readout import (box_overlap, drawn_keys, keys_by_weight, outside_area, padded_range, place_label,
                                   row_readout, segment_in_box, shares_for_bars, stack_bases)

PROPS = settings(max_examples=80, deadline=None, database=None)

value = st.floats(min_value=-100.0, max_value=100.0, allow_nan=False, allow_infinity=False, allow_subnormal=False)
logit = st.floats(min_value=-30.0, max_value=30.0, allow_nan=False, allow_infinity=False)


def hull_set(points):
    return {tuple(points[i]) for i in convex_hull_2d(points)}


def is_ccw(points, hull):
    """Every consecutive triple of the hull turns left (strictly)."""
    p = np.asarray(points, float)[hull]
    n = len(p)
    for k in range(n):
        a, b, c = p[k], p[(k + 1) % n], p[(k + 2) % n]
        if (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) <= 0:
            return False
    return True


# ---------------------------------------------------------------- contributions, by hand

def test_contributions_of_the_demo_row():
    w = np.array([0.45, 0.05, 0.05, 0.45])
    v = demo_session().matrices["V"]
    parts = contributions(w, v)
    assert parts.shape == (4, 3)
    np.testing.assert_allclose(parts[0], [0.45, 0, 0])
    np.testing.assert_allclose(parts[3], [0, 0.45 * 0.3, 0.45 * 0.8])
    np.testing.assert_allclose(parts.sum(axis=0), w @ v)


def test_contributions_refuse_mismatched_shapes():
    with pytest.raises(ShapeError, match="one weight per row"):
        contributions([0.5, 0.5], np.ones((3, 2)))


def test_stack_bases_positive_up_negative_down():
    parts = np.array([[1.0, -1.0], [2.0, 3.0], [-0.5, -2.0], [0.0, 1.0]])
    bases = stack_bases(parts)
    np.testing.assert_array_equal(bases, [[0, 0], [1, 0], [0, -1], [3, 3]])
    tops = bases + parts
    # the bars cover exactly [Σ negatives, Σ positives] of each column
    np.testing.assert_array_equal(np.minimum(bases, tops).min(axis=0), [-0.5, -3.0])
    np.testing.assert_array_equal(np.maximum(bases, tops).max(axis=0), [3.0, 4.0])


def test_shares_for_bars_groups_the_left_out_keys_by_sign():
    parts = np.array([[1.0, -1.0], [2.0, 3.0], [-0.5, -2.0], [0.25, 1.0]])
    rows, bases = shares_for_bars(parts, [1, 3])
    np.testing.assert_array_equal(rows, [[2.0, 3.0], [0.25, 1.0], [1.0, 0.0], [-0.5, -3.0]])
    # column 0: 2, 0.25, 1 pile up from 0 (bases 0, 2, 2.25); -0.5 hangs from 0
    # column 1: 3, 1, 0 pile up from 0 (bases 0, 3, 4); -3 hangs from 0
    np.testing.assert_array_equal(bases, [[0.0, 0.0], [2.0, 3.0], [2.25, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(rows.sum(axis=0), parts.sum(axis=0))
    every, _ = shares_for_bars(parts, range(4))
    np.testing.assert_array_equal(every, parts)  # nothing left out: no extra rows


# ---------------------------------------------------------------- convex hull, by hand

def test_hull_of_a_square_with_inner_and_edge_points_is_ccw():
    pts = np.array([[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0.5], [0.5, 0], [1, 0.5]])
    hull = convex_hull_2d(pts)
    assert list(hull) == [0, 1, 2, 3]  # starts at the lowest x (then y), counter-clockwise


def test_hull_of_one_point_and_of_duplicates():
    assert list(convex_hull_2d([[2.0, 3.0]])) == [0]
    assert list(convex_hull_2d([[2.0, 3.0], [2.0, 3.0], [2.0, 3.0]])) == [0]
    assert list(convex_hull_2d(np.zeros((0, 2)))) == []


def test_hull_of_two_points_and_of_collinear_points():
    assert list(convex_hull_2d([[1.0, 1.0], [0.0, 0.0]])) == [1, 0]
    line = [[0, 0], [2, 2], [1, 1], [3, 3], [1, 1]]
    assert sorted(convex_hull_2d(line)) == [0, 3]
    vertical = [[0, 5], [0, -1], [0, 2]]
    assert list(convex_hull_2d(vertical)) == [1, 0]


def test_hull_with_duplicate_vertices_keeps_the_first_index():
    pts = [[0, 0], [1, 0], [0, 1], [1, 0], [0, 0]]
    assert list(convex_hull_2d(pts)) == [0, 1, 2]


def test_hull_refuses_bad_shapes():
    with pytest.raises(ShapeError):
        convex_hull_2d(np.zeros((3, 3)))
    with pytest.raises(ShapeError):
        convex_hull_2d([[0.0, np.nan]])


def test_in_convex_hull_by_hand():
    tri = [[0, 0], [4, 0], [0, 4]]
    assert in_convex_hull([1, 1], tri)
    assert in_convex_hull([2, 2], tri)  # on an edge
    assert in_convex_hull([0, 0], tri)  # a vertex
    assert not in_convex_hull([2.01, 2], tri)
    assert not in_convex_hull([-0.001, 1], tri)


def test_in_convex_hull_of_degenerate_hulls():
    assert in_convex_hull([1, 1], [[1, 1]])
    assert in_convex_hull([1, 1], [[1, 1], [1, 1]])
    assert not in_convex_hull([1, 1.001], [[1, 1]])
    seg = [[0, 0], [2, 2], [1, 1]]
    assert in_convex_hull([0.5, 0.5], seg)
    assert not in_convex_hull([0.5, 0.6], seg)
    assert not in_convex_hull([3, 3], seg)  # on the line, past the end
    assert not in_convex_hull([0, 0], np.zeros((0, 2)))


def test_in_convex_hull_of_a_sliver_is_not_its_whole_line():
    """A nearly flat triangle: a point on its long line but past its end is outside (found by hypothesis)."""
    sliver = [[1.5e-206, 0.0], [0.0, -1.0], [0.0, 0.0]]
    assert not in_convex_hull([0.0, -2.0], sliver)
    assert in_convex_hull([0.0, -0.5], sliver)


def test_in_convex_hull_tolerance_scales_with_the_picture():
    big = np.array([[0, 0], [1e6, 0], [0, 1e6]])
    assert in_convex_hull([5e5 + 1e-5, 5e5], big)  # rounding-sized excess at this scale
    assert not in_convex_hull([5e5 + 10, 5e5], big)


# ---------------------------------------------------------------- row_readout

def test_row_readout_single_head_is_the_whole_output_row():
    s = demo_session()
    q, k, v = (s.matrices[n] for n in "QKV")
    heads = multi_head_attention(q, k, v, 1)
    r = row_readout(heads, v, 1)
    np.testing.assert_array_equal(r.columns, [0, 1, 2])
    # by hand: 追 asks q = [2, 0, 0]; the keys score [4, 0, 0, 4] / √3, so with a = e^(4/√3) the
    # weights are [a, 1, 1, a] / (2a + 2) and O = w0·[1,0,0] + w1·[0,1,0] + w2·[0,0,1] + w3·[0,0.3,0.8]
    a = math.exp(4 / math.sqrt(3))
    w = [a / (2 * a + 2), 1 / (2 * a + 2), 1 / (2 * a + 2), a / (2 * a + 2)]
    want = [w[0], w[1] + 0.3 * w[3], w[2] + 0.8 * w[3]]
    np.testing.assert_allclose(r.weights, w, rtol=1e-12)
    np.testing.assert_allclose(r.parts, [[w[0], 0, 0], [0, w[1], 0], [0, 0, w[2]], [0, 0.3 * w[3], 0.8 * w[3]]],
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(r.parts.sum(axis=0), want, rtol=1e-12)
    np.testing.assert_allclose(r.output, want, rtol=1e-12)
    assert not r.masked


def test_row_readout_of_one_head_uses_its_slice_of_v():
    rng = np.random.default_rng(3)
    q, k, v = rng.standard_normal((5, 6)), rng.standard_normal((5, 6)), rng.standard_normal((5, 6))
    heads = multi_head_attention(q, k, v, 3)
    r = row_readout(heads, v, 4, head=2)
    np.testing.assert_array_equal(r.columns, [4, 5])
    np.testing.assert_array_equal(r.values, v[:, 4:6])
    # head 2 of 3 owns columns 4 and 5 (d_h = 2): scores (q4·k_j over those columns) / √2, softmax, mix
    scores = [(q[4, 4] * k[j, 4] + q[4, 5] * k[j, 5]) / math.sqrt(2) for j in range(5)]
    e = [math.exp(x) for x in scores]
    w = [x / sum(e) for x in e]
    np.testing.assert_allclose(r.weights, w, rtol=1e-12)
    np.testing.assert_allclose(r.parts.sum(axis=0), [sum(w[j] * v[j, c] for j in range(5)) for c in (4, 5)],
                               rtol=1e-10, atol=1e-14)
    with pytest.raises(ShapeError):
        row_readout(heads, v, 5)
    with pytest.raises(ShapeError):
        row_readout(heads, v, 0, head=3)


def test_row_readout_of_a_fully_masked_row():
    q, k, v = np.ones((3, 2)), np.ones((3, 2)), np.arange(6.0).reshape(3, 2)
    mask = np.array([[False] * 3, [True] * 3, [True] * 3])
    heads = multi_head_attention(q, k, v, 1, mask=mask)
    r = row_readout(heads, v, 0)
    assert r.masked
    np.testing.assert_array_equal(r.parts, 0.0)
    np.testing.assert_array_equal(r.output, 0.0)


# ---------------------------------------------------------------- properties

@st.composite
def values_and_weights(draw):
    length = draw(st.integers(1, 8))
    dim = draw(st.integers(1, 5))
    v = draw(hnp.arrays(np.float64, (length, dim), elements=value))
    logits = draw(hnp.arrays(np.float64, (length,), elements=logit))
    return v, softmax(logits)


@PROPS
@given(values_and_weights())
def test_contributions_sum_to_the_output_row(vw):
    v, w = vw
    np.testing.assert_allclose(contributions(w, v).sum(axis=0), w @ v, rtol=1e-12, atol=1e-12)


@PROPS
@given(values_and_weights())
def test_the_output_row_never_leaves_the_hull_of_v(vw):
    """The chapter: 输出不会跑出各 V 围成的凸包 — on every pair of dimensions (1-D: on the line y = 0)."""
    v, w = vw
    o = w @ v
    if v.shape[1] == 1:
        assert in_convex_hull([o[0], 0.0], np.column_stack([v[:, 0], np.zeros(len(v))]))
    for a, b in itertools.combinations(range(v.shape[1]), 2):
        assert in_convex_hull(o[[a, b]], v[:, [a, b]]), (a, b)


@PROPS
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 30), st.just(2)),
                  elements=st.integers(-5, 5).map(float)))
def test_hull_is_ccw_and_contains_every_point(pts):
    hull = convex_hull_2d(pts)
    assert len(set(hull.tolist())) == len(hull)
    distinct = {tuple(p) for p in pts}
    assert 1 <= len(hull) <= len(distinct)
    if len(hull) >= 3:
        assert is_ccw(pts, hull)
    for p in pts:
        assert on_or_inside(pts[hull], p), (p, pts[hull])
    # the hull of the hull's vertices is the same set of points
    assert hull_set(pts[hull]) == hull_set(pts)


def on_or_inside(corners, p):
    """Whether p is in the polygon (or segment, or point) of ``corners`` given counter-clockwise: never
    right of an edge; on a segment: on its line and between its ends. Exact for small integers."""
    cross = [(b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
             for a, b in zip(corners, np.roll(corners, -1, axis=0))]
    if len(corners) >= 3:
        return min(cross) >= 0
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    return cross[0] == 0 and bool(np.all(lo <= p)) and bool(np.all(p <= hi))


def plain_monotone_chain(pts):
    """Andrew's monotone chain over every point, with no pre-filtering: what convex_hull_2d must equal."""
    order = np.lexsort((pts[:, 1], pts[:, 0]))
    keep = np.ones(len(order), dtype=bool)
    keep[1:] = np.any(pts[order[1:]] != pts[order[:-1]], axis=1)
    order = [int(i) for i in order[keep]]
    if len(order) <= 2:
        return order
    p = pts.tolist()

    def half(seq):
        chain = []
        for i in seq:
            while len(chain) >= 2 and ((p[chain[-1]][0] - p[chain[-2]][0]) * (p[i][1] - p[chain[-2]][1])
                                       - (p[chain[-1]][1] - p[chain[-2]][1]) * (p[i][0] - p[chain[-2]][0])) <= 0:
                chain.pop()
            chain.append(i)
        return chain

    return half(order)[:-1] + half(order[::-1])[:-1]


@PROPS
@given(st.integers(65, 600), st.integers(0, 2 ** 32 - 1), st.sampled_from(["grid", "normal", "line", "clumps"]))
def test_many_points_give_the_same_hull_as_the_plain_chain(n, seed, kind):
    """Past 64 points the interior is dropped before the chain runs: same vertices, same order, same first index."""
    rng = np.random.default_rng(seed)
    if kind == "grid":  # small integers: exact arithmetic, many duplicates and collinear points on the edges
        pts = rng.integers(-6, 7, size=(n, 2)).astype(float)
    elif kind == "normal":
        pts = rng.normal(3.0, 2.0, size=(n, 2)) * 10.0 ** rng.integers(-3, 4)
    elif kind == "line":
        pts = np.outer(rng.integers(-20, 21, size=n), [1.0, 2.0])
    else:
        pts = rng.choice(rng.normal(size=(5, 2)), size=n)
    assert convex_hull_2d(pts).tolist() == plain_monotone_chain(pts)


@PROPS
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 12), st.just(2)), elements=value),
       st.tuples(value, value))
def test_in_hull_agrees_with_a_convex_combination_test(pts, q):
    """Points outside are outside; a vertex-weighted mix of the points is always inside."""
    mix = np.full(len(pts), 1.0 / len(pts)) @ pts
    assert in_convex_hull(mix, pts)
    far = np.abs(pts).max() + 1.0
    assert not in_convex_hull([far, q[1]], pts)
    assert not in_convex_hull([q[0], -far], pts)


# ---------------------------------------------------------------- room for the plane's labels
def test_padded_range_leaves_the_asked_pixels_free():
    lo, hi = padded_range(0.0, 1.0, 200, 20, 30)
    per_px = (hi - lo) / 200
    assert (0.0 - lo) / per_px == pytest.approx(20) and (hi - 1.0) / per_px == pytest.approx(30)
    lo, hi = padded_range(2.0, 2.0, 100, 0, 0)  # a zero span widens to ±0.5 first
    assert (lo, hi) == (1.5, 2.5)
    lo, hi = padded_range(0.0, 1.0, 50, 40, 40)  # a tiny plot: the padding shrinks to 60 % of it
    assert (hi - lo) == pytest.approx(1.0 / 0.4)


def test_boxes_and_segments():
    assert box_overlap((0, 0, 10, 10), (5, 5, 20, 20)) == 25 and box_overlap((0, 0, 1, 1), (2, 2, 3, 3)) == 0
    assert segment_in_box((-5, 5, 15, 5), (0, 0, 10, 10)) == pytest.approx(10)
    assert segment_in_box((0, 20, 10, 30), (0, 0, 10, 10)) == 0
    assert segment_in_box((0, 0, 10, 10), (0, 0, 10, 10)) == pytest.approx(np.hypot(10, 10))
    assert segment_in_box((5, -5, 5, 5), (0, 0, 10, 10)) == pytest.approx(5)  # vertical, half inside
    assert outside_area((-5, 0, 5, 10), (0, 0, 100, 100)) == 50


def test_place_label_takes_the_first_offset_that_hides_least():
    offsets = [(2, -10), (2, 2), (-22, -5)]  # right-above, right-below, left
    k, box = place_label((50, 50), (20, 10), offsets)
    assert k == 0 and box == (52, 40, 72, 50)
    k, _ = place_label((50, 50), (20, 10), offsets, boxes=[(50, 38, 80, 49)])  # something right-above
    assert k == 1
    k, _ = place_label((50, 50), (20, 10), offsets, segments=[(40, 45, 80, 45), (40, 55, 80, 55)])  # two lines
    assert k == 2
    k, _ = place_label((50, 50), (20, 10), offsets, segments=[(40, 45, 80, 45, 0.1), (40, 55, 80, 55)])
    assert k == 0  # a faint line costs less than a full one
    k, _ = place_label((95, 5), (20, 10), offsets, bounds=(0, 0, 100, 100))  # the top-right corner
    assert k == 2
    k, _ = place_label((50, 50), (20, 10), offsets, penalties=[1e3, 0, 0])
    assert k == 1
    with pytest.raises(ValueError):
        place_label((0, 0), (1, 1), [])


def test_keys_by_weight_and_the_keys_drawn_one_by_one():
    w = np.array([0.1, 0.3, 0.1, 0.3, 0.2])
    assert keys_by_weight(w).tolist() == [1, 3, 4, 0, 2]  # equal weights stay in token order
    assert drawn_keys(w, 5) == [0, 1, 2, 3, 4]  # they all fit
    assert drawn_keys(w, 4) == [1, 3, 4]  # three heaviest, in token order; the fourth slot groups the rest
    assert drawn_keys(np.full(20, 0.05), 12) == list(range(11))


def test_a_causal_row_reads_only_the_keys_it_may_attend():
    from explorer.core.readout import row_readout

    q = k = v = np.eye(6)
    heads = multi_head_attention(q, k, v, 1, causal=True)
    ro = row_readout(heads, v, row=2)
    assert ro.attended().tolist() == [0, 1, 2]
    assert drawn_keys(ro.weights, 12, ro.attended()) == [0, 1, 2]  # no 0·v of the masked keys
    assert drawn_keys(np.arange(10.0), 4, keys=[1, 3, 5, 7, 9]) == [5, 7, 9]  # 3 heaviest of those
    assert row_readout(multi_head_attention(q, k, v, 1), v, row=2).attended().tolist() == list(range(6))


def test_distinct_names_give_a_repeated_token_its_position():
    from explorer.core.readout import distinct_names

    assert distinct_names(["the", "cat", "saw", "the", "dog"]) == ["the₀", "cat", "saw", "the₃", "dog"]
    assert distinct_names(("猫", "追", "红色", "激光点")) == ["猫", "追", "红色", "激光点"]
    assert distinct_names(["a"] * 12)[11] == "a₁₁"
