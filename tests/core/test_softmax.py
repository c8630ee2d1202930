"""softmax: the chapter's step ② — a row of scores becomes a budget (non-negative, sums to 1)."""
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from explorer.core import softmax
from explorer.core.errors import ExplorerError, NonFiniteError

PROPS = settings(max_examples=60, deadline=None, database=None)

finite = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False)
moderate = st.floats(min_value=-50.0, max_value=50.0, allow_nan=False, allow_infinity=False)
matrices = hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=7)


def chapter_softmax(x, axis=-1):
    """The chapter's three lines, verbatim."""
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


# ---------------------------------------------------------------- hand-computed cases

def test_two_scores_by_hand():
    # softmax([0, ln 3]) = [1, 3] / (1 + 3) = [0.25, 0.75]
    np.testing.assert_allclose(softmax(np.array([0.0, math.log(3.0)])), [0.25, 0.75], rtol=1e-15)


def test_three_equal_scores_split_evenly():
    np.testing.assert_array_equal(softmax(np.array([[7.0, 7.0, 7.0, 7.0]])), [[0.25] * 4])


def test_matches_the_formula_row_by_row():
    # row [1, 2, 3]: e^k / (e + e² + e³)
    x = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 2.5]])
    expected = np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(softmax(x), expected, rtol=1e-14)


def test_equals_the_chapters_three_lines_for_finite_input():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 6)) * 10
    np.testing.assert_array_equal(softmax(x), chapter_softmax(x))
    np.testing.assert_array_equal(softmax(x, axis=0), chapter_softmax(x, axis=0))


def test_axis_argument():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4))
    np.testing.assert_array_equal(softmax(x, axis=0), softmax(x.T).T)
    np.testing.assert_allclose(softmax(x, axis=0).sum(axis=0), np.ones(4), rtol=1e-15)


def test_works_on_1d_and_batched_input():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4, 5))
    w = softmax(x)
    assert w.shape == x.shape
    for idx in np.ndindex(x.shape[:-1]):
        np.testing.assert_array_equal(w[idx], softmax(x[idx]))


def test_integer_input_is_promoted():
    np.testing.assert_allclose(softmax([0, 0]), [0.5, 0.5])
    assert softmax(np.array([1, 2, 3])).dtype == np.float64


def test_input_is_not_modified():
    x = np.array([[1.0, 2.0, -np.inf]])
    before = x.copy()
    softmax(x)
    np.testing.assert_array_equal(x, before)


def test_empty_input():
    assert softmax(np.zeros((3, 0))).shape == (3, 0)


# ---------------------------------------------------------------- -inf = masked

def test_minus_inf_gets_exactly_zero_weight():
    w = softmax(np.array([[0.0, -np.inf, math.log(3.0)]]))
    assert w[0, 1] == 0.0
    np.testing.assert_allclose(w, [[0.25, 0.0, 0.75]], rtol=1e-15)


def test_all_minus_inf_row_gives_zeros_not_nan():
    x = np.array([[-np.inf, -np.inf, -np.inf], [1.0, 2.0, 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w = softmax(x)
    np.testing.assert_array_equal(w[0], [0.0, 0.0, 0.0])
    np.testing.assert_allclose(w[1].sum(), 1.0, rtol=1e-15)
    assert np.isfinite(w).all()


def test_single_unmasked_entry_gets_everything():
    np.testing.assert_array_equal(softmax(np.array([-np.inf, -1e300, -np.inf])), [0.0, 1.0, 0.0])


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_and_plus_inf_raise(bad):
    with pytest.raises(NonFiniteError):
        softmax(np.array([[0.0, bad]]))
    assert issubclass(NonFiniteError, ExplorerError) and issubclass(NonFiniteError, ValueError)


# ---------------------------------------------------------------- extreme but finite

@pytest.mark.parametrize(
    "row, expected",
    [
        ([1e308, -1e308], [1.0, 0.0]),  # x - max overflows to -inf: still exactly 0, no warning
        ([-1e308, -1e308], [0.5, 0.5]),
        ([1e308, 1e308], [0.5, 0.5]),
        ([np.finfo(float).max, -np.finfo(float).max, 0.0], [1.0, 0.0, 0.0]),
        ([1e6, 1e6 - math.log(3.0)], [0.75, 0.25]),
    ],
)
def test_extreme_finite_rows(row, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w = softmax(np.array([row]))
    np.testing.assert_allclose(w[0], expected, rtol=1e-9, atol=0)


# ---------------------------------------------------------------- properties

@PROPS
@given(hnp.arrays(np.float64, matrices, elements=finite))
def test_rows_are_a_budget_for_any_finite_input(x):
    w = softmax(x)
    assert np.isfinite(w).all()
    assert (w >= 0).all() and (w <= 1).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    # the largest score always gets the largest weight (at least 1/n of the budget)
    rows = np.arange(x.shape[0])
    assert (w[rows, x.argmax(axis=1)] >= 1.0 / x.shape[1] - 1e-15).all()


@PROPS
@given(hnp.arrays(np.float64, matrices, elements=moderate),
       st.lists(st.floats(-1e4, 1e4, allow_nan=False), min_size=7, max_size=7))
def test_shift_invariance_per_row(x, shifts):
    c = np.array(shifts[: x.shape[0]])[:, None]
    np.testing.assert_allclose(softmax(x + c), softmax(x), rtol=1e-9, atol=1e-12)


@PROPS
@given(hnp.arrays(np.float64, matrices, elements=st.integers(-800, 800).map(lambda n: n / 8)),
       st.lists(st.integers(-10**6, 10**6), min_size=7, max_size=7))
def test_shift_invariance_is_bitwise_when_the_shift_is_exact(x, shifts):
    # x has 1/8 steps and c is an integer: x + c and (x + c) - max are exact in float64,
    # so subtracting the row max makes the result bit-for-bit the same.
    c = np.array(shifts[: x.shape[0]], dtype=np.float64)[:, None]
    np.testing.assert_array_equal(softmax(x + c), softmax(x))


@PROPS
@given(hnp.arrays(np.float64, matrices, elements=moderate), st.data())
def test_masked_entries_get_zero_and_the_rest_renormalise(x, data):
    keep = data.draw(hnp.arrays(bool, x.shape))
    masked = np.where(keep, x, -np.inf)
    w = softmax(masked)
    assert (w[~keep] == 0).all()
    for i in range(x.shape[0]):
        if keep[i].any():
            np.testing.assert_allclose(w[i, keep[i]], softmax(x[i, keep[i]]), rtol=1e-13, atol=1e-300)
        else:
            assert (w[i] == 0).all()


@PROPS
@given(hnp.arrays(np.float64, matrices, elements=moderate))
def test_order_is_preserved(x):
    w = softmax(x)
    for i in range(x.shape[0]):
        order = np.argsort(x[i], kind="stable")
        assert (np.diff(w[i][order]) >= -1e-15).all()  # monotone up to the last bit of exp
