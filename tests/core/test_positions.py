"""Sinusoidal positions (加法派): PE[p, 2i] = sin(p / base^(2i/d)), PE[p, 2i+1] = cos(p / base^(2i/d))."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core import attention, sinusoidal_positions
from explorer.core.errors import ShapeError

PROPS = settings(max_examples=40, deadline=None, database=None)


def reference(length, dim, base):
    """The formula, one cell at a time."""
    pe = np.zeros((length, dim))
    for p in range(length):
        for j in range(dim):
            i = j // 2
            angle = p / base ** (2 * i / dim)
            pe[p, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return pe


def test_by_hand_dim_4():
    # d = 4, base 10000: frequencies 1/10000^(0/4) = 1 and 1/10000^(2/4) = 1/100
    pe = sinusoidal_positions(3, 4)
    assert pe.shape == (3, 4) and pe.dtype == np.float64
    np.testing.assert_array_equal(pe[0], [0.0, 1.0, 0.0, 1.0])  # position 0: sin 0 = 0, cos 0 = 1
    np.testing.assert_allclose(pe[1], [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)], rtol=1e-15)
    np.testing.assert_allclose(pe[2], [math.sin(2), math.cos(2), math.sin(0.02), math.cos(0.02)], rtol=1e-15)


def test_custom_base():
    # d = 2: only i = 0, so the base plays no role; d = 4, base 4: second pair turns at 1/4^(1/2) = 1/2
    np.testing.assert_allclose(sinusoidal_positions(5, 2, base=3.0)[4], [math.sin(4), math.cos(4)], rtol=1e-15)
    np.testing.assert_allclose(sinusoidal_positions(3, 4, base=4.0)[2, 2:], [math.sin(1), math.cos(1)], rtol=1e-15)


@PROPS
@given(st.integers(1, 40), st.integers(1, 12), st.sampled_from([10000.0, 100.0, 2.0, 1e6]))
def test_matches_the_formula_cell_by_cell(length, dim, base):
    np.testing.assert_allclose(sinusoidal_positions(length, dim, base), reference(length, dim, base),
                               rtol=0, atol=1e-12)


def test_matches_the_usual_exp_log_implementation():
    # the "Annotated Transformer" / PyTorch-tutorial way: div_term = exp(2i · (−ln base / d))
    length, dim, base = 64, 16, 10000.0
    pos = np.arange(length)[:, None]
    div = np.exp(np.arange(0, dim, 2) * (-math.log(base) / dim))
    ref = np.zeros((length, dim))
    ref[:, 0::2], ref[:, 1::2] = np.sin(pos * div), np.cos(pos * div)
    np.testing.assert_allclose(sinusoidal_positions(length, dim, base), ref, rtol=0, atol=1e-12)


def test_odd_dimension_ends_with_a_sine():
    pe = sinusoidal_positions(4, 5)
    assert pe.shape == (4, 5)
    np.testing.assert_allclose(pe[:, 4], np.sin(np.arange(4) / 10000 ** (4 / 5)), rtol=1e-15)


@PROPS
@given(st.integers(1, 30), st.integers(1, 10).map(lambda h: 2 * h))
def test_every_pair_is_a_point_on_the_unit_circle(length, dim):
    pe = sinusoidal_positions(length, dim)
    assert (np.abs(pe) <= 1).all()
    np.testing.assert_allclose(pe[:, 0::2] ** 2 + pe[:, 1::2] ** 2, 1.0, rtol=0, atol=1e-15)


@PROPS
@given(st.integers(0, 50), st.integers(0, 50), st.integers(1, 6).map(lambda h: 2 * h))
def test_moving_k_positions_is_the_same_rotation_wherever_you_start(p, k, dim):
    # PE[p+k] is a fixed linear map (a rotation per pair, angle k·ω_i) of PE[p]: relative positions are linear.
    pe = sinusoidal_positions(p + k + 1, dim)
    w = 1.0 / 10000.0 ** (np.arange(0, dim, 2) / dim)
    c, s = np.cos(k * w), np.sin(k * w)
    sin_p, cos_p = pe[p, 0::2], pe[p, 1::2]
    np.testing.assert_allclose(pe[p + k, 0::2], sin_p * c + cos_p * s, rtol=0, atol=1e-12)
    np.testing.assert_allclose(pe[p + k, 1::2], cos_p * c - sin_p * s, rtol=0, atol=1e-12)


def test_positions_are_distinct():
    pe = sinusoidal_positions(50, 8)
    dist = np.linalg.norm(pe[:, None] - pe[None], axis=-1)
    assert (dist[~np.eye(50, dtype=bool)] > 1e-3).all()


def test_adding_positions_breaks_permutation_equivariance():
    # F13: without positions shuffling tokens shuffles the outputs; with sinusoidal positions it does not.
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 4))
    p = np.array([3, 0, 4, 1, 2])
    pe = sinusoidal_positions(5, 4)
    plain = attention(x, x, x).output
    np.testing.assert_allclose(attention(x[p], x[p], x[p]).output, plain[p], rtol=1e-12, atol=1e-12)
    with_pe = attention(x + pe, x + pe, x + pe).output
    shuffled = attention(x[p] + pe, x[p] + pe, x[p] + pe).output
    assert not np.allclose(shuffled, with_pe[p], atol=1e-3)


@pytest.mark.parametrize("length, dim, base", [(0, 4, 10000.0), (3, 0, 10000.0), (3, 4, 0.0), (3, 4, -2.0)])
def test_bad_arguments_raise(length, dim, base):
    with pytest.raises(ShapeError):
        sinusoidal_positions(length, dim, base)
