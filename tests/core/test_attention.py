"""Scaled dot-product attention: ① scores = QKᵀ·scale, ② weights = softmax(scores), ③ output = weights·V."""
import dataclasses
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from explorer.core import AttentionResult, attention, causal_mask, default_scale, scores, self_attention, softmax
from explorer.core.errors import ExplorerError, NonFiniteError, ShapeError

PROPS = settings(max_examples=50, deadline=None, database=None)

SIGMA1 = 1.0 / (1.0 + math.exp(-1.0))  # e/(1+e) = 0.7310585786300049


def qkv(draw, lq=None, lk=None, d=None, dv=None, lo=-10.0, hi=10.0):
    """Draw q (Lq, d), k (Lk, d), v (Lk, d_v) with finite entries in [lo, hi]."""
    lq = lq or draw(st.integers(1, 6))
    lk = lk or draw(st.integers(1, 6))
    d = d or draw(st.integers(1, 5))
    dv = dv or draw(st.integers(1, 4))
    el = st.floats(lo, hi, allow_nan=False, allow_infinity=False)
    q = draw(hnp.arrays(np.float64, (lq, d), elements=el))
    k = draw(hnp.arrays(np.float64, (lk, d), elements=el))
    v = draw(hnp.arrays(np.float64, (lk, dv), elements=el))
    return q, k, v


@st.composite
def qkv_st(draw, **kw):
    return qkv(draw, **kw)


@st.composite
def square_qkv_st(draw):
    length = draw(st.integers(1, 6))
    return qkv(draw, lq=length, lk=length)


# ---------------------------------------------------------------- hand-computed on paper

# q = [[2,0,0,0],        k = [[1,0,0,0],       v = [[1,  0],
#      [0,0,0,0]]             [0,1,0,0]]            [0, 10]]
# d = 4 → scale = 1/√4 = 1/2.
# QKᵀ = [[2,0],[0,0]]  → scores S = [[1,0],[0,0]]
# row 0: softmax([1,0]) = [e/(1+e), 1/(1+e)] = [0.7310585786300049, 0.2689414213699951]
# row 1: softmax([0,0]) = [1/2, 1/2]
# output row 0 = 0.73106·[1,0] + 0.26894·[0,10] = [0.7310585786300049, 2.689414213699951]
# output row 1 = [0.5, 5]
Q2 = np.array([[2.0, 0, 0, 0], [0, 0, 0, 0]])
K2 = np.array([[1.0, 0, 0, 0], [0, 1.0, 0, 0]])
V2 = np.array([[1.0, 0.0], [0.0, 10.0]])


def test_two_by_two_by_hand():
    r = attention(Q2, K2, V2)
    assert r.scale == 0.5
    np.testing.assert_array_equal(r.scores, [[1.0, 0.0], [0.0, 0.0]])
    np.testing.assert_allclose(r.weights, [[SIGMA1, 1 - SIGMA1], [0.5, 0.5]], rtol=1e-15)
    np.testing.assert_allclose(r.output, [[SIGMA1, 10 * (1 - SIGMA1)], [0.5, 5.0]], rtol=1e-15)
    assert r.mask is None
    np.testing.assert_array_equal(r.masked_rows, [False, False])


def test_two_by_two_causal_by_hand():
    # causal: row 0 may only see key 0 → weight [1, 0], output v0 = [1, 0]; row 1 is unchanged.
    r = attention(Q2, K2, V2, causal=True)
    np.testing.assert_array_equal(r.scores, [[1.0, 0.0], [0.0, 0.0]])  # scores are before masking
    np.testing.assert_array_equal(r.weights, [[1.0, 0.0], [0.5, 0.5]])
    np.testing.assert_array_equal(r.output, [[1.0, 0.0], [0.5, 5.0]])
    np.testing.assert_array_equal(r.mask, [[True, False], [True, True]])


def test_two_by_two_temperature_and_scale_by_hand():
    # temperature 2 halves the scores: row 0 = softmax([1/2, 0]) = [σ(1/2), 1 − σ(1/2)]
    s_half = 1.0 / (1.0 + math.exp(-0.5))
    r = attention(Q2, K2, V2, temperature=2.0)
    np.testing.assert_array_equal(r.scores, [[0.5, 0.0], [0.0, 0.0]])
    np.testing.assert_allclose(r.weights[0], [s_half, 1 - s_half], rtol=1e-15)
    assert r.scale == 0.5  # the scale is reported before the temperature
    # a custom scale of 1 instead of 1/2 doubles the scores: row 0 = softmax([2, 0])
    r = attention(Q2, K2, V2, scale=1.0)
    assert r.scale == 1.0
    np.testing.assert_array_equal(r.scores, [[2.0, 0.0], [0.0, 0.0]])
    np.testing.assert_allclose(r.weights[0, 0], 1 / (1 + math.exp(-2.0)), rtol=1e-15)
    # scale 0: every score is 0, the output is the mean of v
    r = attention(Q2, K2, V2, scale=0.0)
    np.testing.assert_array_equal(r.output, [[0.5, 5.0], [0.5, 5.0]])


def test_two_by_two_mask_by_hand():
    # row 0 may attend only to key 1 → output v1; row 1 to nothing → zeros, reported.
    mask = np.array([[False, True], [False, False]])
    r = attention(Q2, K2, V2, mask=mask)
    np.testing.assert_array_equal(r.weights, [[0.0, 1.0], [0.0, 0.0]])
    np.testing.assert_array_equal(r.output, [[0.0, 10.0], [0.0, 0.0]])
    np.testing.assert_array_equal(r.masked_rows, [False, True])
    np.testing.assert_array_equal(r.mask, mask)


# ---------------------------------------------------------------- the result object

def test_result_is_a_frozen_dataclass_with_every_stage():
    r = attention(Q2, K2, V2)
    assert isinstance(r, AttentionResult)
    assert {f.name for f in dataclasses.fields(r)} >= {"scores", "weights", "output", "mask", "masked_rows", "scale"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.weights = None  # type: ignore[misc]


def test_default_scale_is_one_over_root_dk():
    assert default_scale(4) == 0.5
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((3, 7)), rng.standard_normal((5, 7)), rng.standard_normal((5, 2))
    r = attention(q, k, v)
    assert r.scale == pytest.approx(1 / math.sqrt(7), rel=1e-15)
    np.testing.assert_allclose(r.scores, q @ k.T / math.sqrt(7), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(r.weights, softmax(q @ k.T / math.sqrt(7)), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(r.output, r.weights @ v, rtol=1e-13, atol=1e-15)


def test_scores_helper():
    q, k = np.array([[1.0, 2.0]]), np.array([[3.0, 4.0], [1.0, -1.0]])
    np.testing.assert_array_equal(scores(q, k, 0.5), [[5.5, -0.5]])


def test_inputs_are_not_modified_and_lists_are_accepted():
    q, k, v = Q2.copy(), K2.copy(), V2.copy()
    r = attention(q.tolist(), k.tolist(), v.tolist(), causal=True)
    np.testing.assert_array_equal(q, Q2)
    np.testing.assert_array_equal(r.output, attention(Q2, K2, V2, causal=True).output)


def test_cross_attention_rectangular():
    rng = np.random.default_rng(5)
    q, k, v = rng.standard_normal((2, 3)), rng.standard_normal((6, 3)), rng.standard_normal((6, 4))
    r = attention(q, k, v)
    assert r.scores.shape == r.weights.shape == (2, 6)
    assert r.output.shape == (2, 4)
    assert r.masked_rows.shape == (2,)


def test_batched_equals_one_at_a_time():
    rng = np.random.default_rng(6)
    q, k, v = rng.standard_normal((3, 4, 5)), rng.standard_normal((3, 6, 5)), rng.standard_normal((3, 6, 2))
    mask = rng.random((4, 6)) > 0.3
    r = attention(q, k, v, mask=mask, causal=True)
    assert r.weights.shape == (3, 4, 6) and r.masked_rows.shape == (3, 4)
    for b in range(3):
        rb = attention(q[b], k[b], v[b], mask=mask, causal=True)
        np.testing.assert_allclose(r.weights[b], rb.weights, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(r.output[b], rb.output, rtol=1e-13, atol=1e-15)
        np.testing.assert_array_equal(r.masked_rows[b], rb.masked_rows)


def test_key_padding_mask_broadcasts_over_queries():
    rng = np.random.default_rng(7)
    q, k, v = rng.standard_normal((3, 2)), rng.standard_normal((4, 2)), rng.standard_normal((4, 2))
    pad = np.array([True, True, False, True])
    r = attention(q, k, v, mask=pad)
    assert (r.weights[:, 2] == 0).all()
    full = attention(q, k, v, mask=np.broadcast_to(pad, (3, 4)))
    np.testing.assert_array_equal(r.weights, full.weights)


# ---------------------------------------------------------------- masks

def test_causal_mask_square_and_rectangular():
    np.testing.assert_array_equal(causal_mask(3), [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    # Lq < Lk: the queries are the last Lq positions (bottom-right, as with a KV cache)
    np.testing.assert_array_equal(causal_mask(2, 4), [[1, 1, 1, 0], [1, 1, 1, 1]])
    # Lq > Lk: the first queries have no key at all
    np.testing.assert_array_equal(causal_mask(3, 2), [[0, 0], [1, 0], [1, 1]])
    assert causal_mask(3).dtype == bool


def test_causal_ands_with_the_given_mask():
    rng = np.random.default_rng(8)
    q, k, v = rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    mask = np.array([[1, 1, 1, 1], [0, 1, 1, 1], [1, 0, 1, 1], [1, 1, 1, 0]], dtype=bool)
    r = attention(q, k, v, mask=mask, causal=True)
    np.testing.assert_array_equal(r.mask, mask & np.tril(np.ones((4, 4), dtype=bool)))
    np.testing.assert_array_equal(r.weights == 0, ~r.mask)
    # row 1 had only keys 1.. and causal allows 0..1 → key 1 alone
    np.testing.assert_array_equal(r.weights[1], [0, 1, 0, 0])


def test_fully_masked_row_is_zero_and_reported_without_warnings():
    rng = np.random.default_rng(9)
    q, k, v = rng.standard_normal((3, 4)), rng.standard_normal((5, 4)), rng.standard_normal((5, 2)) + 3
    mask = np.ones((3, 5), dtype=bool)
    mask[1] = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = attention(q, k, v, mask=mask)
    np.testing.assert_array_equal(r.weights[1], np.zeros(5))
    np.testing.assert_array_equal(r.output[1], np.zeros(2))
    np.testing.assert_array_equal(r.masked_rows, [False, True, False])
    # the other rows are exactly what they would be alone
    other = attention(q[[0, 2]], k, v)
    np.testing.assert_allclose(r.output[[0, 2]], other.output, rtol=1e-14, atol=1e-15)
    # and the scores are still reported, before masking
    np.testing.assert_allclose(r.scores[1], k @ q[1] / 2.0, rtol=1e-14)


def test_causal_with_more_queries_than_keys_reports_the_empty_rows():
    rng = np.random.default_rng(10)
    q, k, v = rng.standard_normal((4, 2)), rng.standard_normal((2, 2)), rng.standard_normal((2, 2))
    r = attention(q, k, v, causal=True)
    np.testing.assert_array_equal(r.masked_rows, [True, True, False, False])
    np.testing.assert_array_equal(r.output[:2], np.zeros((2, 2)))


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize(
    "shapes, words",
    [
        (((3, 4), (5, 3), (5, 2)), ["(3, 4)", "(5, 3)"]),  # q, k widths differ
        (((3, 4), (5, 4), (6, 2)), ["(5, 4)", "(6, 2)"]),  # k, v lengths differ
        (((4,), (5, 4), (5, 2)), ["(4,)"]),  # 1-D q
        (((3, 4), (0, 4), (0, 2)), ["(0, 4)"]),  # empty k
        (((2, 3, 4), (3, 5, 4), (3, 5, 2)), ["(2, 3, 4)", "(3, 5, 4)"]),  # batch axes do not broadcast
    ],
)
def test_bad_shapes_raise_shape_error_naming_the_shapes(shapes, words):
    q, k, v = (np.ones(s) for s in shapes)
    with pytest.raises(ShapeError) as info:
        attention(q, k, v)
    for w in words:
        assert w in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, ExplorerError)


@pytest.mark.parametrize("which", [0, 1, 2])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_inputs_raise(which, bad):
    args = [Q2.copy(), K2.copy(), V2.copy()]
    args[which][1, 0] = bad
    with pytest.raises(NonFiniteError) as info:
        attention(*args)
    assert "(1, 0)" in str(info.value)
    assert str(info.value).startswith("qkv"[which] + " ")


def test_non_numeric_input_raises_shape_error():
    with pytest.raises(ShapeError):
        attention([["a", "b"]], K2, V2)


@pytest.mark.parametrize("scale", [np.nan, np.inf, -np.inf])
def test_non_finite_scale_raises(scale):
    with pytest.raises(NonFiniteError):
        attention(Q2, K2, V2, scale=scale)


@pytest.mark.parametrize("temperature", [0.0, -1.0, np.nan, np.inf])
def test_bad_temperature_raises(temperature):
    with pytest.raises(ExplorerError):
        attention(Q2, K2, V2, temperature=temperature)


def test_overflowing_scores_raise_instead_of_returning_nan():
    q = np.array([[1e200, 1e200]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(NonFiniteError, match="overflow"):
            attention(q, q, np.ones((1, 1)))
        with pytest.raises(NonFiniteError):
            attention(np.array([[1e300]]), np.array([[1e300]]), np.ones((1, 1)), scale=1e-300)


def test_bad_masks_raise():
    with pytest.raises(ShapeError, match="boolean"):
        attention(Q2, K2, V2, mask=np.ones((2, 2)))
    with pytest.raises(ShapeError, match=r"\(3, 3\)"):
        attention(Q2, K2, V2, mask=np.ones((3, 3), dtype=bool))


# ---------------------------------------------------------------- properties

@PROPS
@given(qkv_st(), st.data())
def test_weights_are_a_budget_per_unmasked_row(args, data):
    q, k, v = args
    mask = data.draw(hnp.arrays(bool, (q.shape[0], k.shape[0])))
    r = attention(q, k, v, mask=mask)
    assert (r.weights >= 0).all()
    np.testing.assert_array_equal(r.masked_rows, ~mask.any(axis=1))
    sums = r.weights.sum(axis=-1)
    np.testing.assert_allclose(sums[~r.masked_rows], 1.0, rtol=0, atol=1e-12)
    assert (r.weights[r.masked_rows] == 0).all() and (r.output[r.masked_rows] == 0).all()
    assert (r.weights[~mask] == 0).all()


@PROPS
@given(square_qkv_st(), st.data())
def test_permuting_tokens_permutes_the_output(args, data):
    q, k, v = args
    p = np.array(data.draw(st.permutations(range(q.shape[0]))))
    r, rp = attention(q, k, v), attention(q[p], k[p], v[p])
    np.testing.assert_allclose(rp.output, r.output[p], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(rp.weights, r.weights[np.ix_(p, p)], rtol=1e-10, atol=1e-12)


@PROPS
@given(qkv_st(), st.data())
def test_permuting_keys_and_values_together_changes_nothing(args, data):
    q, k, v = args
    p = np.array(data.draw(st.permutations(range(k.shape[0]))))
    np.testing.assert_allclose(attention(q, k[p], v[p]).output, attention(q, k, v).output, rtol=1e-10, atol=1e-10)


@PROPS
@given(square_qkv_st(), st.data())
def test_causal_weights_above_the_diagonal_are_exactly_zero(args, data):
    q, k, v = args
    n = q.shape[0]
    extra = data.draw(st.one_of(st.none(), hnp.arrays(bool, (n, n))))
    r = attention(q, k, v, causal=True, mask=extra)
    upper = np.triu(np.ones((n, n), dtype=bool), k=1)
    assert (r.weights[upper] == 0.0).all()
    if extra is None:
        assert not r.masked_rows.any()
        np.testing.assert_allclose(r.weights.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
        assert r.weights[0, 0] == 1.0  # the first token can only look at itself
        np.testing.assert_array_equal(r.output[0], v[0])


@PROPS
@given(qkv_st())
def test_causal_rectangular_follows_the_bottom_right_triangle(args):
    q, k, v = args
    lq, lk = q.shape[0], k.shape[0]
    r = attention(q, k, v, causal=True)
    i, j = np.indices((lq, lk))
    assert (r.weights[j > i + (lk - lq)] == 0).all()


@PROPS
@given(qkv_st())
def test_each_output_row_lies_in_the_box_around_v(args):
    q, k, v = args
    r = attention(q, k, v)
    tol = 1e-12 * (1 + np.abs(v).max())
    assert (r.output >= v.min(axis=0) - tol).all()
    assert (r.output <= v.max(axis=0) + tol).all()


@PROPS
@given(qkv_st(lo=-1e150, hi=1e150))
def test_extreme_score_products_near_1e300_give_no_nan(args):
    q, k, v = args
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = attention(q, k, v, scale=1.0)  # |q·k| ≤ 5·1e300 < float max
    assert np.isfinite(r.scores).all() and np.isfinite(r.weights).all() and np.isfinite(r.output).all()
    np.testing.assert_allclose(r.weights.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


@PROPS
@given(qkv_st(lo=-1.0, hi=1.0), st.sampled_from([1e300, -1e300, 1e-300]))
def test_extreme_scale_gives_no_nan(args, scale):
    q, k, v = args
    r = attention(q, k, v, scale=scale, causal=q.shape[0] == k.shape[0])
    assert np.isfinite(r.weights).all() and np.isfinite(r.output).all()
    ok = ~r.masked_rows
    np.testing.assert_allclose(r.weights.sum(axis=-1)[ok], 1.0, rtol=0, atol=1e-12)


@PROPS
@given(qkv_st(lo=-1e6, hi=1e6), st.booleans())
def test_cells_of_a_million_give_no_nan(args, causal):
    q, k, v = args
    if causal and q.shape[0] > k.shape[0]:
        causal = False
    r = attention(q, k, v, causal=causal)
    assert np.isfinite(r.weights).all() and np.isfinite(r.output).all()
    np.testing.assert_allclose(r.weights.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    tol = 1e-12 * (1 + np.abs(v).max())
    assert (r.output >= v.min(axis=0) - tol).all() and (r.output <= v.max(axis=0) + tol).all()


@PROPS
@given(qkv_st(), st.floats(0.05, 20.0))
def test_temperature_equals_dividing_the_scale(args, t):
    q, k, v = args
    a = attention(q, k, v, temperature=t)
    b = attention(q, k, v, scale=default_scale(q.shape[1]) / t)
    np.testing.assert_allclose(a.weights, b.weights, rtol=1e-12, atol=1e-14)


# ---------------------------------------------------------------- the chapter's ten lines: self_attention(X, Wq, Wk, Wv)

@st.composite
def projection_case(draw):
    length, width, d, dv = draw(st.integers(1, 6)), draw(st.integers(1, 5)), draw(st.integers(1, 5)), draw(st.integers(1, 4))
    x = draw(hnp.arrays(np.float64, (length, width), elements=st.floats(-3, 3)))
    wq = draw(hnp.arrays(np.float64, (d, width), elements=st.floats(-3, 3)))
    wk = draw(hnp.arrays(np.float64, (d, width), elements=st.floats(-3, 3)))
    wv = draw(hnp.arrays(np.float64, (dv, width), elements=st.floats(-3, 3)))
    return x, wq, wk, wv


@PROPS
@given(projection_case())
def test_self_attention_is_attention_of_the_projections(case):
    x, wq, wk, wv = case
    ref = attention(x @ wq.T, x @ wk.T, x @ wv.T)
    np.testing.assert_allclose(self_attention(x, wq, wk, wv), ref.output, rtol=1e-12, atol=1e-12)


@PROPS
@given(projection_case())
def test_self_attention_causal_equals_the_exact_mask(case):
    # The chapter writes -1e9 instead of -inf: exp(-1e9 - max) underflows to exactly 0 as long as the
    # real scores are far above -1e9 (here |score| ≤ 5·9·3·3/1 ≪ 1e9), so the result matches the -inf mask.
    x, wq, wk, wv = case
    ref = attention(x @ wq.T, x @ wk.T, x @ wv.T, causal=True)
    np.testing.assert_allclose(self_attention(x, wq, wk, wv, causal=True), ref.output, rtol=1e-12, atol=1e-12)


def test_self_attention_bit_for_bit_when_the_root_is_exact():
    # d = 4: dividing by √4 = 2 and multiplying by 1/2 are the same operation, so every stage is identical.
    rng = np.random.default_rng(11)
    x, wq, wk, wv = (rng.standard_normal(s) for s in [(5, 6), (4, 6), (4, 6), (3, 6)])
    for causal in (False, True):
        ours = attention(x @ wq.T, x @ wk.T, x @ wv.T, causal=causal).output
        np.testing.assert_array_equal(self_attention(x, wq, wk, wv, causal=causal), ours)


def test_self_attention_minus_1e9_trick_fails_only_for_scores_far_below_minus_1e9():
    # Where the chapter's -1e9 and the exact -inf mask part ways: when the visible scores are themselves
    # far below -1e9, the "masked" cell becomes the row's maximum. attention() uses -inf and stays exact.
    x = np.array([[1.0], [2.0]])
    wq, wk, wv = np.array([[-1e5]]), np.array([[1e5]]), np.array([[1.0]])
    # scores = q·kᵀ/√1 = -1e10·x_i·x_j = [[-1e10, -2e10], [-2e10, -4e10]]; v = [[1], [2]]
    exact = attention(x @ wq.T, x @ wk.T, x @ wv.T, causal=True)
    np.testing.assert_array_equal(exact.weights, [[1.0, 0.0], [1.0, 0.0]])
    np.testing.assert_array_equal(exact.output, [[1.0], [1.0]])
    # the chapter's row 0 sees [-1e10, -1e9]: the masked future key wins and row 0 reads v_1 = 2
    np.testing.assert_array_equal(self_attention(x, wq, wk, wv, causal=True), [[2.0], [1.0]])
