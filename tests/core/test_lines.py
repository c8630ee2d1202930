"""Attention lines: which (query, key) edges to draw — every nonzero weight, or the k largest per row."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from explorer.core import attention, causal_mask, strongest_edges, top_k_edges
from explorer.core.errors import NonFiniteError, ShapeError

PROPS = settings(max_examples=80, deadline=None, database=None)


def as_list(edges):
    q, k, w = edges
    assert q.shape == k.shape == w.shape and q.ndim == 1
    return [(int(a), int(b), float(c)) for a, b, c in zip(q, k, w)]


W = np.array([[0.1, 0.6, 0.3],
              [0.0, 0.5, 0.5],
              [0.2, 0.2, 0.6]])


def test_all_nonzero_edges_in_row_major_order():
    assert as_list(top_k_edges(W)) == [(0, 0, 0.1), (0, 1, 0.6), (0, 2, 0.3), (1, 1, 0.5), (1, 2, 0.5),
                                       (2, 0, 0.2), (2, 1, 0.2), (2, 2, 0.6)]


def test_top_1_and_top_2_by_hand_with_ties_to_the_lower_key():
    assert as_list(top_k_edges(W, k=1)) == [(0, 1, 0.6), (1, 1, 0.5), (2, 2, 0.6)]
    assert as_list(top_k_edges(W, k=2)) == [(0, 1, 0.6), (0, 2, 0.3), (1, 1, 0.5), (1, 2, 0.5),
                                            (2, 0, 0.2), (2, 2, 0.6)]
    # a row of equal weights: the first k keys
    assert as_list(top_k_edges(np.full((1, 5), 0.2), k=3)) == [(0, 0, 0.2), (0, 1, 0.2), (0, 2, 0.2)]


def test_min_weight_drops_weights_at_or_below_it():
    assert as_list(top_k_edges(W, min_weight=0.3)) == [(0, 1, 0.6), (1, 1, 0.5), (1, 2, 0.5), (2, 2, 0.6)]
    assert as_list(top_k_edges(W, k=2, min_weight=0.2)) == [(0, 1, 0.6), (0, 2, 0.3), (1, 1, 0.5), (1, 2, 0.5),
                                                            (2, 2, 0.6)]


def test_zero_weights_never_appear_even_with_a_negative_min_weight():
    edges = as_list(top_k_edges(W, min_weight=-1.0))
    assert (1, 0, 0.0) not in edges and len(edges) == 8
    # k larger than the nonzero entries of a row: the zero is still left out
    assert as_list(top_k_edges([[0.0, 1.0]], k=2)) == [(0, 1, 1.0)]


@pytest.mark.parametrize("k", [3, 4, 100])
def test_k_at_or_beyond_the_number_of_keys_keeps_every_nonzero_edge(k):
    assert as_list(top_k_edges(W, k=k)) == as_list(top_k_edges(W))


def test_k_zero_keeps_nothing_and_the_arrays_are_typed():
    q, k, w = top_k_edges(W, k=0)
    assert q.size == k.size == w.size == 0
    assert q.dtype.kind == "i" and w.dtype == np.float64


def test_rectangular_weights_cross_attention():
    w = np.array([[0.7, 0.2, 0.1, 0.0]])
    assert as_list(top_k_edges(w, k=2)) == [(0, 0, 0.7), (0, 1, 0.2)]


def test_causal_weights_give_no_edge_to_a_future_key():
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((12, 4)) for _ in range(3))
    weights = attention(q, k, v, causal=True).weights
    for kk in (None, 1, 3, 12):
        qi, kj, w = top_k_edges(weights, k=kk)
        assert np.all(kj <= qi)
        assert np.all(w > 0)
    # with every edge kept, the lower triangle is exactly what is drawn
    qi, kj, _ = top_k_edges(weights)
    drawn = np.zeros((12, 12), bool)
    drawn[qi, kj] = True
    np.testing.assert_array_equal(drawn, causal_mask(12) & (weights > 0))


def test_bad_input_is_refused():
    with pytest.raises(ShapeError):
        top_k_edges(np.zeros(3))
    with pytest.raises(ShapeError):
        top_k_edges(np.zeros((2, 2, 2)))
    with pytest.raises(NonFiniteError):
        top_k_edges([[0.5, np.nan]])
    with pytest.raises(ValueError):
        top_k_edges(W, k=-1)


def test_large_matrix_top_3():
    rng = np.random.default_rng(1)
    w = rng.random((1024, 1024))
    q, k, weight = top_k_edges(w, k=3)
    assert q.size == 3 * 1024
    np.testing.assert_array_equal(np.bincount(q, minlength=1024), 3)
    expected = np.sort(w, axis=1)[:, -3:]
    np.testing.assert_array_equal(np.sort(weight.reshape(1024, 3), axis=1), expected)


# ------------------------------------------------------------------------------------- properties

@st.composite
def weights_and_k(draw):
    lq, lk = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    # few distinct values, so that ties and zeros (masked pairs) are common
    el = st.sampled_from([0.0, 0.0, 0.1, 0.25, 0.25, 0.5, 1.0])
    w = draw(hnp.arrays(np.float64, (lq, lk), elements=el))
    k = draw(st.one_of(st.none(), st.integers(0, lk + 2)))
    min_weight = draw(st.sampled_from([0.0, 0.0, 0.1, 0.3, -1.0]))
    return w, k, min_weight


@PROPS
@given(weights_and_k())
def test_each_row_keeps_at_most_k_edges_and_they_are_its_largest(case):
    w, k, min_weight = case
    q, key, weight = top_k_edges(w, k=k, min_weight=min_weight)
    np.testing.assert_array_equal(weight, w[q, key])
    assert np.all(weight > max(min_weight, 0.0)) and np.all(weight != 0)
    order = q * w.shape[1] + key
    assert np.all(np.diff(order) > 0), "row-major, no duplicates"
    for i in range(w.shape[0]):
        kept = np.sort(key[q == i])
        eligible = (w[i] > min_weight) & (w[i] != 0)
        if k is None:
            np.testing.assert_array_equal(kept, np.flatnonzero(eligible))
            continue
        assert kept.size <= k
        # the row's k largest (ties by the lower key), then the ineligible ones dropped
        ranked = sorted(range(w.shape[1]), key=lambda j: (-w[i, j], j))[:k]
        np.testing.assert_array_equal(kept, sorted(j for j in ranked if eligible[j]))
        dropped = np.setdiff1d(np.flatnonzero(eligible), kept)
        if kept.size and dropped.size:
            assert w[i, kept].min() >= w[i, dropped].max()


@PROPS
@given(weights_and_k(), st.integers(0, 60))
def test_strongest_edges_keeps_the_largest_in_order(case, limit):
    w, _, _ = case
    q, key, weight = top_k_edges(w)
    sq, sk, sw = strongest_edges(q, key, weight, limit)
    assert sw.size == min(limit, weight.size)
    ranked = sorted(range(weight.size), key=lambda e: (-weight[e], e))[:limit]
    np.testing.assert_array_equal(sq, q[sorted(ranked)])
    np.testing.assert_array_equal(sk, key[sorted(ranked)])


def test_strongest_edges_refuses_mismatched_arrays():
    with pytest.raises(ShapeError):
        strongest_edges(np.arange(3), np.arange(2), np.ones(3), 2)
    with pytest.raises(ValueError):
        strongest_edges(np.arange(3), np.arange(3), np.ones(3), -1)
