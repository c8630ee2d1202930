"""RoPE (旋转派): rotate each pair of q and k by position·θ_i, so q_m·k_n depends only on m − n."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from explorer.core import attention, rope, rope_frequencies
from explorer.core.errors import ShapeError
from explorer.core.rope import half_to_interleaved

PROPS = settings(max_examples=50, deadline=None, database=None)
STYLES = ("half", "interleaved")
el = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
even = st.integers(1, 6).map(lambda h: 2 * h)


@st.composite
def rows(draw, n=None):
    d = draw(even)
    n = n or draw(st.integers(1, 5))
    return draw(hnp.arrays(np.float64, (n, d), elements=el))


def rotated_dot(q, k, m, n, style, base=10000.0):
    return float(rope(q[None], [m], style=style, base=base)[0] @ rope(k[None], [n], style=style, base=base)[0])


# ---------------------------------------------------------------- by hand

def test_frequencies_by_hand():
    np.testing.assert_array_equal(rope_frequencies(2), [1.0])
    np.testing.assert_allclose(rope_frequencies(4), [1.0, 0.01], rtol=1e-15)  # 10000^(−2/4) = 1/100
    np.testing.assert_allclose(rope_frequencies(8, base=16.0), [1.0, 0.5, 0.25, 0.125], rtol=1e-15)
    assert (np.diff(rope_frequencies(64)) < 0).all()  # fast-turning pairs first


@pytest.mark.parametrize("style", STYLES)
def test_two_dimensions_is_a_plain_rotation(style):
    # d = 2, θ_0 = 1: [1, 0] at position p is [cos p, sin p]; [0, 1] is [−sin p, cos p]
    x = np.array([[1.0, 0.0], [0.0, 1.0]])
    out = rope(x, [0.7, 0.7], style=style)
    np.testing.assert_allclose(out, [[math.cos(0.7), math.sin(0.7)], [-math.sin(0.7), math.cos(0.7)]], rtol=1e-15)


def test_the_two_styles_pair_different_dimensions_by_hand():
    # d = 4, position 1, base 10000: θ = [1, 1/100]
    # half:        pairs (0, 2) and (1, 3) → e0 turns towards e2
    # interleaved: pairs (0, 1) and (2, 3) → e0 turns towards e1
    e0 = np.array([[1.0, 0, 0, 0]])
    c, s = math.cos(1), math.sin(1)
    np.testing.assert_allclose(rope(e0, [1], style="half"), [[c, 0, s, 0]], rtol=1e-15, atol=0)
    np.testing.assert_allclose(rope(e0, [1], style="interleaved"), [[c, s, 0, 0]], rtol=1e-15, atol=0)
    e1 = np.array([[0, 1.0, 0, 0]])
    c2, s2 = math.cos(0.01), math.sin(0.01)
    np.testing.assert_allclose(rope(e1, [1], style="half"), [[0, c2, 0, s2]], rtol=1e-15, atol=0)
    np.testing.assert_allclose(rope(e1, [1], style="interleaved"), [[-s, c, 0, 0]], rtol=1e-15, atol=0)


def test_half_to_interleaved_by_hand():
    np.testing.assert_array_equal(half_to_interleaved(6), [0, 3, 1, 4, 2, 5])
    np.testing.assert_array_equal(half_to_interleaved(2), [0, 1])
    for d in (2, 4, 8, 128):
        assert sorted(half_to_interleaved(d)) == list(range(d))


# ---------------------------------------------------------------- properties

@PROPS
@given(rows(), st.sampled_from(STYLES))
def test_position_zero_is_the_identity(x, style):
    np.testing.assert_array_equal(rope(x, np.zeros(x.shape[0]), style=style), x)


@PROPS
@given(rows(), st.sampled_from(STYLES), st.data())
def test_rope_preserves_norms_and_pair_norms(x, style, data):
    pos = data.draw(hnp.arrays(np.float64, x.shape[0], elements=st.floats(-1e4, 1e4)))
    out = rope(x, pos, style=style)
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-13, atol=1e-13)
    p = np.arange(x.shape[1]) if style == "interleaved" else half_to_interleaved(x.shape[1])
    pairs = lambda a: a[:, p][:, 0::2] ** 2 + a[:, p][:, 1::2] ** 2  # noqa: E731
    np.testing.assert_allclose(pairs(out), pairs(x), rtol=1e-12, atol=1e-12)


@PROPS
@given(rows(n=2), st.sampled_from(STYLES), st.integers(-200, 200), st.integers(-200, 200),
       st.integers(-500, 500), st.sampled_from([10000.0, 500000.0, 10.0]))
def test_rotated_dot_product_depends_only_on_the_offset(qk, style, m, n, shift, base):
    q, k = qk
    tol = 1e-12 * (1 + np.linalg.norm(q) * np.linalg.norm(k))
    here = rotated_dot(q, k, m, n, style, base)
    assert abs(rotated_dot(q, k, m + shift, n + shift, style, base) - here) <= tol
    assert abs(rotated_dot(q, k, m - n, 0, style, base) - here) <= tol  # = rope(q, m−n)·k
    assert abs(float(rope(q[None], [m - n], style=style, base=base)[0] @ k) - here) <= tol


@PROPS
@given(rows(), st.sampled_from(STYLES), st.data())
def test_the_two_styles_agree_up_to_the_documented_permutation(x, style, data):
    pos = data.draw(hnp.arrays(np.float64, x.shape[0], elements=st.floats(-1e3, 1e3)))
    p = half_to_interleaved(x.shape[1])
    # x_interleaved = x_half[..., p]: rotating then permuting = permuting then rotating, bit for bit
    np.testing.assert_array_equal(rope(x[:, p], pos, style="interleaved"), rope(x, pos, style="half")[:, p])


@PROPS
@given(rows(), st.sampled_from(STYLES), st.integers(-100, 100), st.integers(-100, 100))
def test_rotations_compose_and_invert(x, style, a, b):
    n = x.shape[0]
    twice = rope(rope(x, np.full(n, a), style=style), np.full(n, b), style=style)
    np.testing.assert_allclose(twice, rope(x, np.full(n, a + b), style=style), rtol=0, atol=1e-11)
    back = rope(rope(x, np.full(n, a), style=style), np.full(n, -a), style=style)
    np.testing.assert_allclose(back, x, rtol=0, atol=1e-11)


@PROPS
@given(st.integers(2, 6), st.sampled_from(STYLES), st.integers(-1000, 1000), st.data())
def test_attention_scores_with_rope_ignore_a_common_shift(length, style, shift, data):
    d = data.draw(even)
    q = data.draw(hnp.arrays(np.float64, (length, d), elements=el))
    k = data.draw(hnp.arrays(np.float64, (length, d), elements=el))
    pos = np.arange(length, dtype=float)
    s0 = attention(rope(q, pos, style=style), rope(k, pos, style=style), k).scores
    s1 = attention(rope(q, pos + shift, style=style), rope(k, pos + shift, style=style), k).scores
    np.testing.assert_allclose(s1, s0, rtol=0, atol=1e-11 * (1 + np.abs(q).max() * np.abs(k).max() * d))


def test_batched_heads_rotate_by_the_same_positions():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 5, 8))
    pos = np.arange(5) * 1.5
    out = rope(x, pos, style="half")
    for h in range(3):
        np.testing.assert_array_equal(out[h], rope(x[h], pos, style="half"))


def test_integer_input_and_positions_are_accepted():
    out = rope([[1, 0]], [1])
    np.testing.assert_allclose(out, [[math.cos(1), math.sin(1)]], rtol=1e-15)


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("d", [1, 3, 5])
def test_odd_dimension_raises(style, d):
    with pytest.raises(ShapeError, match="even"):
        rope(np.ones((2, d)), [0, 1], style=style)


def test_other_bad_input_raises():
    with pytest.raises(ShapeError, match="style"):
        rope(np.ones((2, 4)), [0, 1], style="neox")
    with pytest.raises(ShapeError, match="positions"):
        rope(np.ones((2, 4)), [0, 1, 2])
    with pytest.raises(ShapeError):
        rope(np.ones(4), [0])
    with pytest.raises(ShapeError):
        rope(np.ones((2, 4)), [0, 1], base=0.0)
    with pytest.raises(ShapeError):
        rope_frequencies(0)
