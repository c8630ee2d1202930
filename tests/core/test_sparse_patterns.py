"""Sliding window and sparse patterns against references written here from the papers' definitions, and the
per-row cell counts (the cost curves) against the tables they count."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.masks import causal_mask
from explorer.core.sparse_patterns import pattern_cells, pattern_mask, pattern_row_counts

PROPS = settings(max_examples=80, deadline=None, database=None)


def strided_reference(n, l, causal):
    """Child et al. 2019, strided: A(1) = {t, t+1, …, i} with t = max(0, i − l), A(2) = {j : (i − j) mod l = 0},
    attended together (causal, as in the paper); the non-causal form mirrors both sets to later keys."""
    out = np.zeros((n, n), bool)
    for i in range(n):
        for j in range(n):
            if causal:
                out[i, j] = j <= i and (max(0, i - l) <= j or (i - j) % l == 0)
            else:
                out[i, j] = abs(i - j) <= l or abs(i - j) % l == 0
    return out


def fixed_reference(n, l, c, causal):
    """Child et al. 2019, fixed: A(1) = {j : ⌊j/l⌋ = ⌊i/l⌋}, A(2) = {j : j mod l ∈ {l − c, …, l − 1}}."""
    out = np.zeros((n, n), bool)
    for i in range(n):
        for j in range(n):
            out[i, j] = (j // l == i // l or j % l in range(l - c, l)) and (j <= i or not causal)
    return out


def test_window_four_tokens_by_hand():
    """L = 4, w = 2: each token sees itself and its neighbour; causal, only the one before."""
    band = [[1, 1, 0, 0],
            [1, 1, 1, 0],
            [0, 1, 1, 1],
            [0, 0, 1, 1]]
    causal_band = [[1, 0, 0, 0],
                   [1, 1, 0, 0],
                   [0, 1, 1, 0],
                   [0, 0, 1, 1]]
    np.testing.assert_array_equal(pattern_mask("window", 4, window=2), np.array(band, bool))
    np.testing.assert_array_equal(pattern_mask("window", 4, window=2, causal=True), np.array(causal_band, bool))
    assert pattern_cells("window", 4, window=2) == 10 and pattern_cells("window", 4, window=2, causal=True) == 7


def test_global_window_by_hand():
    """L = 5, w = 1, g = 1: the diagonal, plus token 0's row and column (the global anchor)."""
    expected = np.eye(5, dtype=bool)
    expected[0, :] = expected[:, 0] = True
    np.testing.assert_array_equal(pattern_mask("global_window", 5, window=1, global_tokens=1), expected)
    np.testing.assert_array_equal(pattern_mask("global_window", 5, window=1, global_tokens=1, causal=True),
                                  expected & np.tril(np.ones((5, 5), bool)))


@PROPS
@given(st.integers(1, 40), st.integers(1, 12), st.booleans())
def test_strided_is_the_papers(n, l, causal):
    np.testing.assert_array_equal(pattern_mask("strided", n, stride=l, causal=causal), strided_reference(n, l, causal))


@PROPS
@given(st.integers(1, 40), st.integers(1, 12), st.data(), st.booleans())
def test_fixed_is_the_papers(n, l, data, causal):
    c = data.draw(st.integers(1, l))
    np.testing.assert_array_equal(pattern_mask("fixed", n, stride=l, summary=c, causal=causal),
                                  fixed_reference(n, l, c, causal))


@PROPS
@given(st.sampled_from(["window", "global_window", "strided", "fixed"]), st.integers(1, 50), st.integers(1, 9),
       st.integers(1, 9), st.integers(0, 6), st.booleans(), st.data())
def test_row_counts_count_the_table(kind, n, w, l, g, causal, data):
    c = data.draw(st.integers(1, l))
    params = dict(window=w, stride=l, summary=c, global_tokens=g, causal=causal)
    np.testing.assert_array_equal(pattern_row_counts(kind, n, **params), pattern_mask(kind, n, **params).sum(axis=1))


@PROPS
@given(st.sampled_from(["window", "global_window", "strided", "fixed"]), st.integers(1, 30), st.integers(1, 30),
       st.integers(1, 6))
def test_causal_patterns_stay_under_the_causal_mask(kind, n_q, n_k, w):
    """Cross-attention too: queries aligned with the last keys, as the causal mask aligns them."""
    if n_q > n_k:
        n_q, n_k = n_k, n_q
    m = pattern_mask(kind, n_q, n_k, causal=True, window=w, stride=w, summary=1, global_tokens=1)
    assert not (m & ~causal_mask(n_q, n_k)).any()
    assert m[np.arange(n_q), np.arange(n_q) + n_k - n_q].all()  # every query sees itself


def test_window_as_wide_as_the_sequence_is_everything():
    assert pattern_mask("window", 7, window=7).all()
    np.testing.assert_array_equal(pattern_mask("window", 7, window=9, causal=True), causal_mask(7))


def test_large_table_built_in_bands():
    """Larger than one band of rows: the same as the counts say, row by row."""
    m = pattern_mask("strided", 1500, stride=37, causal=True)
    np.testing.assert_array_equal(m.sum(axis=1), pattern_row_counts("strided", 1500, stride=37, causal=True))


@pytest.mark.parametrize("kind, params, message", [
    ("window", dict(window=0), "window w must be a whole number ≥ 1"),
    ("strided", dict(stride=2.5), "stride must be a whole number"),
    ("fixed", dict(stride=3, summary=4), "summary c (4) must not exceed the block length"),
    ("global_window", dict(global_tokens=-1), "global tokens must be a whole number ≥ 0"),
    ("diagonal", {}, "pattern must be one of"),
])
def test_bad_parameters_are_named(kind, params, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        pattern_mask(kind, 5, **params)
