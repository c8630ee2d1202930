"""The RoPE visualizer's numbers: pairs, their rotation, score against offset, constant diagonals (F9)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core import diagonal_deviation, pair_vectors, pair_view, rope, rope_frequencies, rotated_pair
from explorer.core import score_vs_offset, split_heads
from explorer.core.errors import ShapeError
from explorer.core.rope import half_to_interleaved
from explorer.core.rope_lesson import (DEFAULT_STARTS, angle_between, arc_points, curves_gap, direction,
                                       head_slice, is_constant_along_diagonals, locked_positions,
                                       offset_positions, pair_dims, rope_dot, same_row_everywhere, value_range,
                                       wavelength, wrap_angle)

STYLES = ("half", "interleaved")
PROPS = settings(max_examples=40, deadline=None, database=None)


def rng_vectors(d, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(d), rng.standard_normal(d)


# ---------------------------------------------------------------- pairs

def test_pair_dims_by_hand():
    assert [pair_dims(8, i, "half") for i in range(4)] == [(0, 4), (1, 5), (2, 6), (3, 7)]
    assert [pair_dims(8, i, "interleaved") for i in range(4)] == [(0, 1), (2, 3), (4, 5), (6, 7)]
    with pytest.raises(ShapeError, match="pair 4 does not exist"):
        pair_dims(8, 4, "half")
    with pytest.raises(ShapeError, match="even"):
        pair_dims(3, 0, "half")
    with pytest.raises(ShapeError, match="unknown RoPE style"):
        pair_dims(4, 0, "diagonal")


def test_pair_vectors_pick_the_pairs_of_either_convention():
    x = np.arange(8.0)
    np.testing.assert_array_equal(pair_vectors(x, 1, "half"), [1.0, 5.0])
    np.testing.assert_array_equal(pair_vectors(x, 1, "interleaved"), [2.0, 3.0])
    rows = np.arange(16.0).reshape(2, 8)
    np.testing.assert_array_equal(pair_vectors(rows, 3, "half"), [[3, 7], [11, 15]])
    # the interleaved pairs of the permuted vector are the half pairs of the original
    p = half_to_interleaved(8)
    for i in range(4):
        np.testing.assert_array_equal(pair_vectors(x[p], i, "interleaved"), pair_vectors(x, i, "half"))


@pytest.mark.parametrize("style", STYLES)
def test_rotated_pair_is_what_rope_does_to_that_pair(style):
    x, _ = rng_vectors(12, seed=3)
    theta = rope_frequencies(12, 500.0)
    for position in (0, 1, 7, 250):
        turned = rope(x[None], [position], base=500.0, style=style)[0]
        for i in range(6):
            np.testing.assert_allclose(rotated_pair(pair_vectors(x, i, style), position, theta[i]),
                                       pair_vectors(turned, i, style), rtol=0, atol=1e-13)


def test_rotation_by_hand():
    np.testing.assert_allclose(rotated_pair([1.0, 0.0], 2, math.pi / 4), [0.0, 1.0], atol=1e-15)  # 90° turn
    np.testing.assert_allclose(rotated_pair([0.0, 2.0], 1, math.pi / 2), [-2.0, 0.0], atol=1e-15)
    assert direction([0.0, 1.0]) == pytest.approx(math.pi / 2)
    assert angle_between([0.0, 1.0], [1.0, 0.0]) == pytest.approx(math.pi / 2)  # from b = x̂ to a = ŷ
    assert angle_between([1.0, 0.0], [0.0, 1.0]) == pytest.approx(-math.pi / 2)
    assert wrap_angle(3 * math.pi) == pytest.approx(math.pi)
    assert wrap_angle(-math.pi) == pytest.approx(math.pi)
    assert wrap_angle(-0.5) == pytest.approx(-0.5)


@PROPS
@given(m=st.integers(0, 200), n=st.integers(0, 200), seed=st.integers(0, 10_000),
       style=st.sampled_from(STYLES), base=st.sampled_from([100.0, 10000.0, 1e6]))
def test_the_pair_angle_difference_grows_by_m_minus_n_theta(m, n, seed, style, base):
    q, k = rng_vectors(8, seed)
    theta = rope_frequencies(8, base)
    for i in range(4):
        v = pair_view(q, k, i, m, n, base=base, style=style)
        assert v.theta == theta[i]
        # the angle from k to q after turning, less the angle before, is (m − n)·θ_i (mod 2π)
        assert abs(wrap_angle(v.angle - v.angle_before - (m - n) * theta[i])) < 1e-9
        assert abs(wrap_angle(v.angle - v.angle_before - v.turn)) < 1e-9
        # lengths are kept; the pair's score is |q||k| cos(angle)
        assert np.linalg.norm(v.q_rot) == pytest.approx(np.linalg.norm(v.q), rel=1e-12)
        assert v.pair_score == pytest.approx(np.linalg.norm(v.q) * np.linalg.norm(v.k) * math.cos(v.angle),
                                             rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("style", STYLES)
def test_the_pair_scores_add_up_to_the_whole_score(style):
    q, k = rng_vectors(10, seed=5)
    views = [pair_view(q, k, i, 9, 4, base=1000.0, style=style) for i in range(5)]
    whole = float(rope(q[None], [9], base=1000.0, style=style)[0] @ rope(k[None], [4], base=1000.0, style=style)[0])
    assert sum(v.pair_score for v in views) == pytest.approx(whole, abs=1e-12)
    assert all(v.score == pytest.approx(whole, abs=1e-15) for v in views)
    assert views[0].offset == 5 and views[2].dims == ((2, 7) if style == "half" else (4, 5))


@pytest.mark.parametrize("style", STYLES)
def test_a_locked_distance_keeps_the_angle_and_the_pair_score(style):
    q, k = rng_vectors(8, seed=11)
    first = pair_view(q, k, 1, 5, 2, base=100.0, style=style)
    for shift in (1, 10, 40):
        moved = pair_view(q, k, 1, 5 + shift, 2 + shift, base=100.0, style=style)
        assert abs(wrap_angle(moved.angle - first.angle)) < 1e-12
        assert moved.pair_score == pytest.approx(first.pair_score, abs=1e-12)
        assert moved.score == pytest.approx(first.score, abs=1e-12)
        assert not np.allclose(moved.q_rot, first.q_rot)  # yet both arrows did turn


# ---------------------------------------------------------------- score against offset

def test_offset_positions():
    m, n = offset_positions([-2, 0, 3], 10)
    np.testing.assert_array_equal(m, [10, 10, 13])
    np.testing.assert_array_equal(n, [12, 10, 10])
    np.testing.assert_array_equal(m - n, [-2, 0, 3])


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("base", [100.0, 10000.0, 1e6])
def test_score_vs_offset_curves_coincide_at_every_start(style, base):
    q, k = rng_vectors(16, seed=2)
    offsets = np.arange(-32, 33)
    curves = score_vs_offset(q, k, offsets, (0, 5, 17, 100), base=base, style=style)
    assert curves.shape == (4, 65)
    for row in curves[1:]:
        np.testing.assert_allclose(row, curves[0], rtol=0, atol=1e-12)  # shift invariance
    assert curves_gap(curves) < 1e-12
    # and they are real scores: each point is q_m·k_n for its m and n
    for j in (0, 20, 32, 64):
        m, n = offset_positions(offsets[j:j + 1], 17)
        assert curves[2, j] == pytest.approx(rope_dot(q, k, m[0], n[0], base=base, style=style), abs=1e-12)
    # at offset 0 the rotations cancel: the plain dot product
    assert curves[0, 32] == pytest.approx(float(q @ k), abs=1e-12)
    # and the curve is not flat: the score does depend on the offset
    assert np.ptp(curves[0]) > 1e-3


def test_the_default_starts_are_far_apart_and_still_agree():
    q, k = rng_vectors(8, seed=9)
    curves = score_vs_offset(q, k, np.arange(-32, 33), base=10000.0)
    assert curves.shape[0] == len(DEFAULT_STARTS) and DEFAULT_STARTS[-1] >= 1000
    assert curves_gap(curves) < 1e-10  # position 1000 turns fast pairs by ~1000 rad: rounding, no more


def test_without_equal_offsets_the_scores_differ():
    # the curve is a function of m − n only; different offsets give different scores
    q, k = rng_vectors(8, seed=4)
    assert rope_dot(q, k, 3, 1) != pytest.approx(rope_dot(q, k, 3, 2), abs=1e-6)
    assert rope_dot(q, k, 3, 1) == pytest.approx(rope_dot(q, k, 103, 101), abs=1e-12)


def test_score_vs_offset_refuses_mismatched_widths():
    with pytest.raises(ShapeError, match="same width"):
        score_vs_offset(np.ones(4), np.ones(6), [0, 1])


# ---------------------------------------------------------------- diagonals

def toeplitz(first_col, first_row):
    rows, cols = len(first_col), len(first_row)
    return np.array([[first_col[i - j] if i >= j else first_row[j - i] for j in range(cols)] for i in range(rows)])


def test_diagonal_deviation_of_a_toeplitz_matrix_is_zero():
    rng = np.random.default_rng(0)
    col, row = rng.standard_normal(6), rng.standard_normal(6)
    row[0] = col[0]
    t = toeplitz(col, row)
    assert diagonal_deviation(t) == 0.0
    assert is_constant_along_diagonals(t)
    rect = toeplitz(np.r_[col[0], rng.standard_normal(3)], np.r_[col[0], rng.standard_normal(6)])
    assert rect.shape == (4, 7) and diagonal_deviation(rect) == 0.0
    assert diagonal_deviation(rect.T) == 0.0


def test_diagonal_deviation_of_a_random_matrix_is_positive():
    s = np.random.default_rng(1).standard_normal((6, 6))
    dev = diagonal_deviation(s)
    assert dev > 0.1
    assert not is_constant_along_diagonals(s)
    # by hand: the main diagonal 1, 5 differs by 4
    assert diagonal_deviation(np.array([[1.0, 0.0], [0.0, 5.0]])) == 4.0
    assert diagonal_deviation(np.array([[1.0, 2.0], [3.0, 1.0]])) == 0.0
    assert diagonal_deviation(np.ones((1, 1))) == 0.0


@pytest.mark.parametrize("shape", [(5, 5), (3, 8), (8, 3), (2, 4, 6), (1, 1)])
def test_diagonal_deviation_agrees_with_a_plain_loop_over_the_diagonals(shape):
    rng = np.random.default_rng(sum(shape))
    s = rng.standard_normal(shape)
    s.reshape(-1)[:: 5] = -np.inf  # masked cells are left out
    mats = s.reshape(-1, *shape[-2:])
    rows, cols = shape[-2:]
    naive = 0.0
    for m in mats:
        for k in range(-(rows - 1), cols):
            d = np.diagonal(m, k)
            d = d[np.isfinite(d)]
            if d.size:
                naive = max(naive, float(d.max() - d.min()))
    assert diagonal_deviation(s) == naive


def test_diagonal_deviation_takes_the_worst_head_and_skips_masked_cells():
    t = toeplitz([1.0, 2.0, 3.0], [1.0, 4.0, 5.0])
    noisy = t.copy()
    noisy[2, 1] += 0.5
    assert diagonal_deviation(np.stack([t, noisy])) == pytest.approx(0.5)
    masked = t.copy()
    masked[np.triu_indices(3, 1)] = -np.inf
    assert diagonal_deviation(masked) == 0.0
    assert value_range(masked) == 2.0
    with pytest.raises(ShapeError):
        diagonal_deviation(np.ones(3))


@pytest.mark.parametrize("style", STYLES)
def test_the_same_q_and_k_at_every_position_give_constant_diagonals_under_rope(style):
    rng = np.random.default_rng(7)
    Q, K = rng.standard_normal((7, 8)), rng.standard_normal((7, 8))
    q_same, k_same = same_row_everywhere(Q, 2), same_row_everywhere(K, 5)
    assert (q_same == Q[2]).all() and q_same.shape == Q.shape and (k_same == K[5]).all()
    positions = 3 + np.arange(7)
    for heads in (1, 2):
        qh = rope(split_heads(q_same, heads), positions, base=100.0, style=style)
        kh = rope(split_heads(k_same, heads), positions, base=100.0, style=style)
        s = qh @ kh.transpose(0, 2, 1)
        assert diagonal_deviation(s) < 1e-12
        assert value_range(s) > 0.1  # not constant: it varies from one diagonal to the next
    # with different rows at different positions the diagonals are not constant
    s = rope(Q, positions, style=style) @ rope(K, positions, style=style).T
    assert diagonal_deviation(s) > 0.1


# ---------------------------------------------------------------- small helpers

def test_head_slice_locked_positions_arc_and_wavelength():
    x = np.arange(12.0)
    np.testing.assert_array_equal(head_slice(x, 1, 3), [4, 5, 6, 7])
    with pytest.raises(ShapeError):
        head_slice(x, 3, 3)
    with pytest.raises(ShapeError):
        head_slice(x, 0, 5)
    assert locked_positions(10, 3, 0, 63) == (10, 7)
    assert locked_positions(1, 3, 0, 63) == (3, 0)  # n cannot go below 0: m stops at 3
    assert locked_positions(62, -4, 0, 63) == (59, 63)  # n cannot pass 63
    with pytest.raises(ShapeError):
        locked_positions(0, 70, 0, 63)
    arc = arc_points(0.0, math.pi / 2, 2.0, n=5)
    np.testing.assert_allclose(arc[0], [2, 0], atol=1e-15)
    np.testing.assert_allclose(arc[-1], [0, 2], atol=1e-15)
    np.testing.assert_allclose(np.linalg.norm(arc, axis=1), 2.0)
    np.testing.assert_allclose(wavelength(rope_frequencies(4, 100.0)), [2 * math.pi, 20 * math.pi])
