"""Regrouping K/V heads: mean-pooled into fewer, repeated into more, by hand."""
import numpy as np

from explorer.core.grouping import regroup, regroup_matrices


def test_four_heads_pooled_into_two_and_back():
    k = np.array([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]])  # 4 K/V heads of width 2: (1,2) (3,4) (5,6) (7,8)
    two = regroup(k, 1, 4, 2, n_heads=4)
    np.testing.assert_array_equal(two, [[2.0, 3.0, 6.0, 7.0]])  # means of heads 0,1 and 2,3
    back = regroup(two, 1, 2, 4, n_heads=4)
    np.testing.assert_array_equal(back, [[2.0, 3.0, 2.0, 3.0, 6.0, 7.0, 6.0, 7.0]])  # repeat_kv order


def test_two_to_four_of_eight_repeats_exactly():
    k = np.arange(4.0).reshape(1, 4)  # 2 K/V heads of width 2 for 8 query heads
    np.testing.assert_array_equal(regroup(k, 1, 2, 4, n_heads=8), [[0, 1, 0, 1, 2, 3, 2, 3]])


def test_projections_are_regrouped_along_their_rows():
    wk = np.array([[1.0, 0.0], [0.0, 1.0], [3.0, 0.0], [0.0, 3.0]])  # 2 heads of d_h = 2, rows = outputs
    mats = regroup_matrices({"Wk": wk, "Wv": wk.copy(), "X": np.eye(2)}, "projected", 2, 0, 1)
    np.testing.assert_array_equal(mats["Wk"], [[2.0, 0.0], [0.0, 2.0]])
    assert mats["X"] is not None and mats["Wv"].shape == (2, 2)
