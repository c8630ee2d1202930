"""Multi-head attention: split D into H slices of d_h = D/H ("切头"), attend in each, concatenate ("拼头"), W_o."""
import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from explorer.core import (MultiHeadResult, attention, head_count_options, merge_heads, multi_head_attention,
                           split_heads)
from explorer.core.errors import ShapeError

PROPS = settings(max_examples=40, deadline=None, database=None)
el = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


@st.composite
def heads_case(draw):
    """H, then q (Lq, H·d_h), k (Lk, H·d_h), v (Lk, H·d_v)."""
    h = draw(st.integers(1, 4))
    d_h, d_v = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    lq, lk = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    q = draw(hnp.arrays(np.float64, (lq, h * d_h), elements=el))
    k = draw(hnp.arrays(np.float64, (lk, h * d_h), elements=el))
    v = draw(hnp.arrays(np.float64, (lk, h * d_v), elements=el))
    return h, q, k, v


# ---------------------------------------------------------------- split / merge

def test_split_heads_by_hand():
    # L = 2, D = 4, H = 2: head 0 takes columns 0–1, head 1 columns 2–3
    x = np.array([[1, 2, 3, 4], [5, 6, 7, 8]])
    np.testing.assert_array_equal(split_heads(x, 2), [[[1, 2], [5, 6]], [[3, 4], [7, 8]]])
    np.testing.assert_array_equal(split_heads(x, 1), [x])
    np.testing.assert_array_equal(split_heads(x, 4), [[[1], [5]], [[2], [6]], [[3], [7]], [[4], [8]]])
    np.testing.assert_array_equal(merge_heads(split_heads(x, 2)), x)


@PROPS
@given(st.integers(1, 6), st.integers(1, 5), st.integers(1, 4), st.data())
def test_split_then_merge_round_trips(length, h, d_h, data):
    x = data.draw(hnp.arrays(np.float64, (length, h * d_h), elements=el))
    s = split_heads(x, h)
    assert s.shape == (h, length, d_h)
    for head in range(h):
        np.testing.assert_array_equal(s[head], x[:, head * d_h:(head + 1) * d_h])
    np.testing.assert_array_equal(merge_heads(s), x)
    y = data.draw(hnp.arrays(np.float64, (h, length, d_h), elements=el))
    np.testing.assert_array_equal(split_heads(merge_heads(y), h), y)


@pytest.mark.parametrize("width, heads", [(6, 4), (5, 2), (3, 0), (4, -2)])
def test_split_heads_refuses_what_does_not_divide(width, heads):
    with pytest.raises(ShapeError) as info:
        split_heads(np.ones((2, width)), heads)
    assert f"D={width}" in str(info.value)


def test_split_heads_error_lists_the_possible_head_counts():
    with pytest.raises(ShapeError, match="possible H: 1, 2, 3, 6"):
        split_heads(np.ones((2, 6)), 4)


def test_split_and_merge_want_the_right_rank():
    with pytest.raises(ShapeError, match=r"\(2, 3, 4\)"):
        split_heads(np.ones((2, 3, 4)), 2)
    with pytest.raises(ShapeError, match=r"\(3, 4\)"):
        merge_heads(np.ones((3, 4)))


def test_head_count_options():
    assert head_count_options(12) == [1, 2, 3, 4, 6, 12]
    assert head_count_options(8, 12) == [1, 2, 4]
    assert head_count_options(7) == [1, 7]
    assert head_count_options(1) == [1]


# ---------------------------------------------------------------- multi-head attention

def test_multi_head_result_shapes_and_frozen():
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((3, 8)), rng.standard_normal((5, 8)), rng.standard_normal((5, 4))
    r = multi_head_attention(q, k, v, 2)
    assert isinstance(r, MultiHeadResult)
    assert r.scores.shape == r.weights.shape == (2, 3, 5)
    assert r.head_outputs.shape == (2, 3, 2)
    assert r.concat.shape == r.output.shape == (3, 4)
    assert r.masked_rows.shape == (3,)
    assert r.scale == pytest.approx(1 / 2)  # 1/√d_h with d_h = 8/2 = 4, not 1/√8
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.output = None  # type: ignore[misc]


def test_each_head_is_attention_on_its_slice_scaled_by_its_own_width():
    rng = np.random.default_rng(1)
    h, d_h = 3, 4
    q, k, v = rng.standard_normal((4, h * d_h)), rng.standard_normal((6, h * d_h)), rng.standard_normal((6, h * 2))
    wo = rng.standard_normal((5, h * 2))
    r = multi_head_attention(q, k, v, h, wo=wo)
    for head in range(h):
        cols, vcols = slice(head * d_h, (head + 1) * d_h), slice(head * 2, (head + 1) * 2)
        one = attention(q[:, cols], k[:, cols], v[:, vcols], scale=1 / math.sqrt(d_h))
        np.testing.assert_allclose(r.scores[head], one.scores, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(r.weights[head], one.weights, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(r.head_outputs[head], one.output, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(r.concat[:, vcols], one.output, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(r.output, r.concat @ wo.T, rtol=1e-13, atol=1e-14)
    assert r.output.shape == (4, 5)


def test_mask_and_causal_apply_to_every_head():
    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((4, 6)), rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    mask = np.ones((4, 4), dtype=bool)
    mask[2] = False
    r = multi_head_attention(q, k, v, 3, mask=mask, causal=True)
    upper = np.triu(np.ones((4, 4), dtype=bool), 1)
    assert (r.weights[:, upper] == 0).all()
    assert (r.weights[:, 2] == 0).all() and (r.output[2] == 0).all()
    np.testing.assert_array_equal(r.masked_rows, [False, False, True, False])


def test_custom_scale_and_temperature_pass_through():
    rng = np.random.default_rng(3)
    q, k, v = rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    r = multi_head_attention(q, k, v, 2, scale=1.0, temperature=2.0)
    assert r.scale == 1.0
    np.testing.assert_allclose(r.scores[0], q[:, :2] @ k[:, :2].T / 2.0, rtol=1e-14)


@pytest.mark.parametrize("heads", [0, -1, 3, 5])
def test_bad_head_counts_raise_shape_error(heads):
    x = np.ones((3, 4))
    with pytest.raises(ShapeError):
        multi_head_attention(x, x, x, heads)


def test_v_width_must_divide_too():
    with pytest.raises(ShapeError, match="v"):
        multi_head_attention(np.ones((3, 4)), np.ones((3, 4)), np.ones((3, 3)), 2)


def test_multi_head_wants_2d_and_a_fitting_wo():
    with pytest.raises(ShapeError, match="2-D"):
        multi_head_attention(np.ones((2, 3, 4)), np.ones((2, 3, 4)), np.ones((2, 3, 4)), 2)
    x = np.ones((3, 4))
    with pytest.raises(ShapeError, match="wo"):
        multi_head_attention(x, x, x, 2, wo=np.ones((4, 5)))


@PROPS
@given(heads_case())
def test_one_head_equals_single_head_attention(case):
    _, q, k, v = case
    r, one = multi_head_attention(q, k, v, 1), attention(q, k, v)
    np.testing.assert_allclose(r.weights[0], one.weights, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(r.output, one.output, rtol=1e-13, atol=1e-13)
    assert r.scale == one.scale


@PROPS
@given(heads_case(), st.data())
def test_every_head_row_is_a_budget(case, data):
    h, q, k, v = case
    causal = data.draw(st.booleans()) and q.shape[0] <= k.shape[0]
    r = multi_head_attention(q, k, v, h, causal=causal)
    assert (r.weights >= 0).all()
    np.testing.assert_allclose(r.weights.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    tol = 1e-12 * (1 + np.abs(v).max())
    vh = split_heads(v, h)
    assert (r.head_outputs >= vh.min(axis=1, keepdims=True) - tol).all()
    assert (r.head_outputs <= vh.max(axis=1, keepdims=True) + tol).all()


@PROPS
@given(heads_case(), st.data())
def test_multi_head_is_permutation_equivariant(case, data):
    h, q, k, v = case
    n = min(q.shape[0], k.shape[0])
    q, k, v = q[:n], k[:n], v[:n]
    p = np.array(data.draw(st.permutations(range(n))))
    np.testing.assert_allclose(multi_head_attention(q[p], k[p], v[p], h).output,
                               multi_head_attention(q, k, v, h).output[p], rtol=1e-10, atol=1e-10)
