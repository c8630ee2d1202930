"""F24 Query–key space: the normalisation leaves every weight, PCA is the covariance's eigenvectors, the top
keys are the row's argsort. Expected values come from the definitions, written here, not from the module."""
import numpy as np
import pytest
from hypothesis import given, settings as hyp_settings, strategies as st

from explorer.core.errors import NonFiniteError, ShapeError
from explorer.core.pipeline import run_pipeline
from explorer.core.presets import demo_session, grouped_query_session, translation_session
from explorer.core.qk_space import (GRAM_ROWS, head_queries_keys, normalise, principal_plane, qk_plane, strongest, top_keys,
                                    top_queries)


def softmax_rows(s):
    """softmax of every row, from its definition exp(x_j) / Σ exp(x), shifted by the row's max."""
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def weights(q, k, scale=0.5):
    return softmax_rows((q @ k.T) * scale)


def test_translating_the_keys_moves_each_row_by_a_constant_and_keeps_the_weights():
    rng = np.random.default_rng(1)
    q, k, c = rng.standard_normal((5, 3)), rng.standard_normal((7, 3)), rng.standard_normal(3)
    moved = (q @ (k + c).T) - q @ k.T
    np.testing.assert_allclose(moved, np.repeat((q @ c)[:, None], 7, axis=1), atol=1e-12)  # row i: + q_i·c
    np.testing.assert_allclose(weights(q, k + c), weights(q, k), atol=1e-12)


def test_the_scaling_keeps_every_score():
    rng = np.random.default_rng(2)
    q, k = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    np.testing.assert_allclose((3.7 * q) @ (k / 3.7).T, q @ k.T, atol=1e-12)


def test_normalise_by_hand():
    q = np.array([[2.0, 0.0], [0.0, 2.0]])  # mean norm 2
    k = np.array([[8.0, 0.0], [0.0, 8.0]])  # mean norm 8: s = √(8/2) = 2
    qn, kn, s, c = normalise(q, k)
    assert s == pytest.approx(2.0)
    np.testing.assert_allclose(qn, [[4.0, 0.0], [0.0, 4.0]])
    # k/s = [[4, 0], [0, 4]], already centred on the queries' (2, 2): c = 0
    np.testing.assert_allclose(c, [0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(kn, [[4.0, 0.0], [0.0, 4.0]])
    qn, kn, s, c = normalise(np.array([[1.0, 0.0]]), np.array([[0.0, 1.0], [0.0, 3.0]]))  # norms 1 and 2: s = √2
    assert s == pytest.approx(np.sqrt(2))
    np.testing.assert_allclose(kn.mean(axis=0), [np.sqrt(2), 0.0], atol=1e-15)  # on the query s·(1, 0)


def check_plane(q, k, scale):
    qn, kn, s, c = normalise(q, k)
    # every weight as before, to 1e-12
    np.testing.assert_allclose(weights(qn, kn, scale), weights(q, k, scale), atol=1e-12, rtol=0)
    # the centroids coincide; the mean norms of s·q and k/s are equal
    np.testing.assert_allclose(qn.mean(axis=0), kn.mean(axis=0), atol=1e-12 * (1 + np.abs(qn).max()))
    np.testing.assert_allclose(np.linalg.norm(s * q, axis=1).mean(), np.linalg.norm(k / s, axis=1).mean(),
                               rtol=1e-12)
    np.testing.assert_allclose(kn, k / s + c, atol=1e-15)
    # the plane: PCA of the stacked points, against eigh of their covariance
    both = np.vstack([qn, kn])
    centred = both - both.mean(axis=0)
    vals, vecs = np.linalg.eigh(centred.T @ centred)  # ascending
    plane = qk_plane(q, k)
    d = q.shape[1]
    top = min(2, d)
    lam = np.concatenate([vals[::-1], [0.0]])  # descending, then a 0 beyond the last
    for a in range(top):
        apart = min(lam[a] - lam[a + 1], lam[a - 1] - lam[a] if a else np.inf)
        if apart > 1e-6 * lam[0]:  # a direction of its own (no tie with a neighbour): unique up to sign
            assert abs(abs(plane.axes[a] @ vecs[:, -1 - a]) - 1) < 1e-8
    coords = np.vstack([plane.queries, plane.keys])
    np.testing.assert_allclose(coords, centred @ plane.axes.T, atol=1e-9 * (1 + np.abs(centred).max()))
    total = vals.clip(0).sum()
    if total > 0:
        assert plane.kept == pytest.approx(vals[::-1][:top].clip(0).sum() / total, abs=1e-9)


@hyp_settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.integers(1, 6), st.integers(0, 2**31 - 1),
       st.floats(0.05, 3.0))
def test_random_sessions(lq, lk, d, seed, scale):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((lq, d)) * rng.uniform(0.1, 5)
    k = rng.standard_normal((lk, d)) * rng.uniform(0.1, 5) + rng.standard_normal(d)
    check_plane(q, k, scale)


def test_pca_of_two_points_by_hand():
    coords, axes, kept = principal_plane(np.array([[0.0, 0.0], [2.0, 0.0]]))
    np.testing.assert_allclose(axes[0], [1.0, 0.0])
    np.testing.assert_allclose(coords, [[-1.0, 0.0], [1.0, 0.0]], atol=1e-15)
    assert kept == pytest.approx(1.0)


def test_pca_of_three_points_by_hand():
    """(0,0), (1,0), (0,1): centred on (1/3, 1/3), scatter [[2/3, −1/3], [−1/3, 2/3]] with eigenvalues 1 along
    (1, −1)/√2 and 1/3 along (1, 1)/√2 — the first keeps 1 / (4/3) = 3/4 of the variance."""
    coords, axes, kept = principal_plane(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    r = 1 / np.sqrt(2)
    np.testing.assert_allclose(axes, [[r, -r], [r, r]], atol=1e-12)
    np.testing.assert_allclose(coords[:, 0], [0.0, r, -r], atol=1e-12)
    np.testing.assert_allclose(coords[:, 1], [-2 / 3 * r, 1 / 3 * r, 1 / 3 * r], atol=1e-12)
    assert kept == pytest.approx(1.0)
    first = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1 / 3, 1 / 3, 3.0]])
    _, _, kept3 = principal_plane(first)
    centred = first - first.mean(axis=0)
    vals = np.linalg.eigvalsh(centred.T @ centred)
    assert kept3 == pytest.approx((vals[1] + vals[2]) / vals.sum())


def test_many_points_give_the_axes_of_the_svd():
    """Beyond GRAM_ROWS points the axes come another way (XᵀX): the same as numpy's SVD of the points, up to sign."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((GRAM_ROWS + 500, 6)) * [5, 3, 2, 1, 0.5, 0.1] + 10
    coords, axes, kept = principal_plane(x)
    centred = x - x.mean(axis=0)
    _, sigma, vt = np.linalg.svd(centred, full_matrices=False)
    for a in range(2):
        assert abs(abs(axes[a] @ vt[a]) - 1) < 1e-10
    assert kept == pytest.approx((sigma[:2] ** 2).sum() / (sigma ** 2).sum(), rel=1e-10)
    np.testing.assert_allclose(np.abs(coords), np.abs(centred @ vt[:2].T), atol=1e-8)


def test_no_spread_one_dimension_and_huge_values():
    coords, axes, kept = principal_plane(np.ones((3, 2)))
    assert kept == 1.0 and not coords.any()
    plane = qk_plane(np.array([[1.0], [2.0]]), np.array([[3.0]]))  # d = 1: a line, the second axis empty
    assert plane.axes.shape == (2, 1) and not plane.axes[1].any() and plane.kept == pytest.approx(1.0)
    big = qk_plane(np.array([[1e150, 0.0], [0.0, 1e150]]), np.array([[1e150, 1e150]]))
    assert np.isfinite(big.queries).all() and np.isfinite(big.keys).all() and 0 < big.kept <= 1


def test_bad_input_is_named():
    with pytest.raises(NonFiniteError, match="K has a non-finite value at \\(1, 0\\)"):
        normalise(np.ones((2, 2)), np.array([[1.0, 2.0], [np.nan, 1.0]]))
    with pytest.raises(ShapeError, match="same width"):
        normalise(np.ones((2, 2)), np.ones((2, 3)))
    with pytest.raises(ShapeError, match="at least one"):
        normalise(np.ones((0, 2)), np.ones((2, 2)))


def argsort_top(row, k):
    """The k largest of a row, largest first, equal weights by lower index, zeros left out — written here."""
    pairs = sorted(((-w, j) for j, w in enumerate(row) if w > 0))
    return [j for _, j in pairs[:k]]


@hyp_settings(max_examples=40, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8), st.integers(0, 10), st.integers(0, 2**31 - 1))
def test_top_keys_and_queries_are_the_argsort(lq, lk, k, seed):
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 4, size=(lq, lk)) / 4.0  # ties and zeros (masked pairs) on purpose
    for i in range(lq):
        keys, ws = top_keys(w, i, k)
        assert list(keys) == argsort_top(w[i], k)
        np.testing.assert_array_equal(ws, w[i, keys])
    for j in range(lk):
        queries, ws = top_queries(w, j, k)
        assert list(queries) == argsort_top(w[:, j], k)
    with pytest.raises(ShapeError):
        strongest(w, 1)


def test_demo_chase_finds_the_nouns():
    r = run_pipeline(demo_session().matrices, demo_session().settings)
    keys, w = top_keys(r.heads.weights[0], 1, 2)  # 追 looks for nouns: 猫 and 激光点
    assert sorted(keys) == [0, 3] and w.sum() > 0.85


def test_cross_attention_has_its_own_query_count():
    s = translation_session()
    r = run_pipeline(s.matrices, s.settings)
    q, k = head_queries_keys(r, 0)
    assert q.shape == (7, 4) and k.shape == (4, 4)
    plane = qk_plane(q, k)
    assert plane.queries.shape == (7, 2) and plane.keys.shape == (4, 2)
    check_plane(q, k, r.scale)


def test_grouped_heads_read_their_kv_head_in_repeat_kv_order():
    s = grouped_query_session()  # 8 query heads share 2 K/V heads, d_h = 2
    r = run_pipeline(s.matrices, s.settings)
    kv = np.repeat(s.matrices["K"].reshape(6, 2, 2), 4, axis=1)  # repeat_kv: head h reads K/V head h // 4
    for h in range(8):
        q, k = head_queries_keys(r, h)
        np.testing.assert_array_equal(q, s.matrices["Q"][:, 2 * h:2 * h + 2])
        np.testing.assert_array_equal(k, kv[:, h])
        allowed = np.tril(np.ones((6, 6), bool))
        np.testing.assert_allclose((q @ k.T * r.scale)[allowed], r.heads.scores[h][allowed], atol=1e-12)
