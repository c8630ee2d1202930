"""Shape edits keep every matrix consistent; the projections that reproduce Q, K, V; shuffle checks."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core import attention
from explorer.core.permutation import permutation_check, shuffle_permutation
from explorer.core.structure import (axis_length, delete_along, insert_along, members, permute_tokens,
                                     projections_reproducing)


def sample(L=4, d=3, dv=2, D=5, seed=0):
    rng = np.random.default_rng(seed)
    return {"Q": rng.normal(size=(L, d)), "K": rng.normal(size=(L, d)), "V": rng.normal(size=(L, dv)),
            "X": rng.normal(size=(L, D)), "Wq": rng.normal(size=(d, D)), "Wk": rng.normal(size=(d, D)),
            "Wv": rng.normal(size=(dv, D)), "Wo": rng.normal(size=(D, dv))}


def test_members_follow_the_axes():
    m = sample()
    assert members("L", m) == [("Q", 0), ("K", 0), ("V", 0), ("X", 0)]
    assert members("D", m) == [("X", 1), ("Wq", 1), ("Wk", 1), ("Wv", 1)]
    assert members("p_v", m) == [("Wv", 0), ("Wo", 1)]
    assert axis_length("D", m) == 5 and axis_length("L", {"Q": m["Q"]}) == 4


def test_insert_and_delete_a_token_touch_every_row_matrix_and_nothing_else():
    m = sample()
    grown = insert_along(m, "L", 1)
    assert [grown[n].shape[0] for n in "QKVX"] == [5] * 4
    assert np.all(grown["X"][1] == 0) and grown["Wq"] is m["Wq"]
    back = delete_along(grown, "L", 1)
    for n in m:
        np.testing.assert_array_equal(back[n], m[n])


def test_widening_d_model_widens_x_and_every_w():
    m = delete_along(insert_along(sample(), "D", 0), "D", 0)
    for n, a in sample().items():
        np.testing.assert_array_equal(m[n], a)
    wide = insert_along(sample(), "D", 5)
    assert wide["X"].shape == (4, 6) and wide["Wv"].shape == (2, 6) and wide["Wo"].shape == (5, 2)


def test_projections_reproduce_q_k_v_exactly():
    m = sample()
    p = projections_reproducing(m["Q"], m["K"], m["V"])
    x = p["X"]
    np.testing.assert_array_equal(x @ p["Wq"].T, m["Q"])
    np.testing.assert_array_equal(x @ p["Wk"].T, m["K"])
    np.testing.assert_array_equal(x @ p["Wv"].T, m["V"])
    np.testing.assert_array_equal(p["Wo"], np.eye(2))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 9), st.integers(0, 10_000))
def test_without_positions_attention_commutes_with_permutations(length, seed):
    m = sample(L=length, seed=seed)
    perm = shuffle_permutation(length, seed)
    assert sorted(perm) == list(range(length)) and np.any(perm != np.arange(length))
    before = attention(m["Q"], m["K"], m["V"]).output
    p = permute_tokens(m, perm)
    after = attention(p["Q"], p["K"], p["V"]).output
    check = permutation_check(before, after, perm)
    assert check.equivariant and check.max_difference < 1e-12


def test_a_causal_mask_breaks_equivariance():
    m = sample(L=5, seed=3)
    perm = np.array([4, 3, 2, 1, 0])
    before = attention(m["Q"], m["K"], m["V"], causal=True).output
    p = permute_tokens(m, perm)
    check = permutation_check(before, attention(p["Q"], p["K"], p["V"], causal=True).output, perm)
    assert not check.equivariant and check.max_difference > 1e-3


def test_shape_mismatch_is_not_equivariant():
    check = permutation_check(np.zeros((3, 2)), np.zeros((4, 2)), [0, 1, 2])
    assert not check.equivariant
