"""The sensitivity overlay's mathematics: the softmax Jacobian and a nudge followed to ② and ③.

Expected values come from a hand-computed 2 × 2 case and from central finite differences of an
attention written here from the chapter's definition (no explorer code on that side).
"""
import math

import numpy as np
import pytest

from explorer.core.errors import ShapeError
from explorer.core.heads import multi_head_attention
from explorer.core.pipeline import PipelineResult, run_pipeline
from explorer.core.session import Settings
from explorer.core.sensitivity import nudge_sensitivity, softmax_jacobian, weights_change


def reference_attention(q, k, v, n_heads, n_kv, scale, temperature, causal, wo=None):
    """(weights (H, Lq, Lk), output) from the definition: per head softmax((q_h k_gᵀ)·scale/T), masked, then ·v_g."""
    lq, lk = len(q), len(k)
    d, dv = q.shape[1] // n_heads, v.shape[1] // n_kv
    weights, outs = [], []
    for h in range(n_heads):
        g = h // (n_heads // n_kv)
        s = q[:, h * d:(h + 1) * d] @ k[:, g * d:(g + 1) * d].T * scale / temperature
        if causal:
            s = np.where(np.tril(np.ones((lq, lk), bool)), s, -np.inf)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        a = e / e.sum(axis=1, keepdims=True)
        weights.append(a)
        outs.append(a @ v[:, g * dv:(g + 1) * dv])
    concat = np.concatenate(outs, axis=1)
    return np.array(weights), (concat if wo is None else concat @ wo.T)


def reference_from_scores(s, v):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    a = e / e.sum(axis=1, keepdims=True)
    return a, a @ v


def test_softmax_jacobian_of_a_hand_computed_row():
    # a = softmax([0, ln 3]) = [1/4, 3/4]; J = diag(a) − a·aᵀ = [[3/16, −3/16], [−3/16, 3/16]]
    a = np.array([0.25, 0.75])
    assert np.allclose(softmax_jacobian(a), [[3 / 16, -3 / 16], [-3 / 16, 3 / 16]], atol=1e-15)
    # three keys, a = [1/2, 1/4, 1/4]: ∂a_0/∂s_0 = 1/2·1/2, ∂a_1/∂s_0 = −1/4·1/2, ∂a_1/∂s_1 = 1/4·3/4
    j = softmax_jacobian([0.5, 0.25, 0.25])
    assert j[0, 0] == pytest.approx(0.25) and j[1, 0] == pytest.approx(-0.125) and j[1, 1] == pytest.approx(3 / 16)
    assert np.allclose(j.sum(axis=0), 0)  # a nudge never changes the row's sum of 1


def test_a_hand_computed_two_by_two_nudge_of_a_score():
    # Q, K chosen so row 0 of S is [0, ln 3] (no scale): a = [1/4, 3/4]; V = [[1, 0], [0, 2]]
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    k = np.array([[0.0, 0.0], [math.log(3), 0.0]])
    v = np.array([[1.0, 0.0], [0.0, 2.0]])
    r = run_pipeline({"Q": q, "K": k, "V": v}, Settings(scale_mode="none"))
    s = nudge_sensitivity(r, 0, "S", 0, 1)
    # ∂a_0/∂s_01 = −a_0·a_1 = −3/16, ∂a_1/∂s_01 = a_1(1 − a_1) = 3/16; row 1 is untouched
    assert np.allclose(s.weights, [[-3 / 16, 3 / 16], [0, 0]], atol=1e-15)
    # ∂O_0 = ∂A_0·V = [−3/16·1, 3/16·2]
    assert np.allclose(s.output, [[-3 / 16, 6 / 16], [0, 0]], atol=1e-15)
    assert np.array_equal(s.scores, [[0, 1], [0, 0]])
    # the same nudge on q[0, 0] moves row 0 of S by k[:, 0] = [0, ln 3]
    t = nudge_sensitivity(r, 0, "Q", 0, 0)
    assert np.allclose(t.scores[0], [0, math.log(3)])
    assert np.allclose(t.weights[0], [-3 / 16 * math.log(3), 3 / 16 * math.log(3)])


@pytest.fixture
def grouped():
    """Four query heads sharing two K/V heads, causal, temperature 0.7, W_o: every path of the chain."""
    rng = np.random.default_rng(3)
    lq = lk = 5
    q, k, v = rng.normal(size=(lq, 8)), rng.normal(size=(lk, 4)), rng.normal(size=(lk, 6))
    wo = rng.normal(size=(7, 12))
    scale, temperature = 0.5, 0.7
    heads = multi_head_attention(q, k, v, 4, kv_heads=2, scale=scale, causal=True, temperature=temperature, wo=wo)
    result = PipelineResult(q=q, k=k, v=v, heads=heads, scale=scale, temperature=temperature, wo=wo)
    ref = lambda q, k: reference_attention(q, k, v, 4, 2, scale, temperature, True, wo)  # noqa: E731
    return result, q, k, ref


@pytest.mark.parametrize("what, row, col, head", [("Q", 3, 1, 2), ("Q", 4, 0, 0), ("K", 1, 0, 1), ("K", 2, 1, 3)])
def test_a_nudge_of_q_or_k_matches_finite_differences(grouped, what, row, col, head):
    result, q, k, ref = grouped
    eps = 1e-6
    d = 2  # d_h = 8 / 4
    up, down = q.copy(), q.copy()
    kup, kdown = k.copy(), k.copy()
    if what == "Q":
        up[row, head * d + col] += eps
        down[row, head * d + col] -= eps
    else:
        g = head // 2
        kup[row, g * d + col] += eps
        kdown[row, g * d + col] -= eps
    (wu, ou), (wd, od) = ref(up, kup), ref(down, kdown)
    s = nudge_sensitivity(result, head, what, row, col)
    assert np.allclose(s.weights, (wu[head] - wd[head]) / (2 * eps), atol=1e-7)
    assert np.allclose(s.output, (ou - od) / (2 * eps), atol=1e-7)
    assert s.heads == (((head // 2) * 2, (head // 2) * 2 + 1) if what == "K" else (head,))


def test_a_nudge_of_a_score_matches_finite_differences():
    rng = np.random.default_rng(7)
    scores, v = rng.normal(size=(4, 6)), rng.normal(size=(6, 3))
    eps = 1e-6
    for i, j in [(0, 0), (2, 5), (3, 1)]:
        up, down = scores.copy(), scores.copy()
        up[i, j] += eps
        down[i, j] -= eps
        (wu, ou), (wd, od) = reference_from_scores(up, v), reference_from_scores(down, v)
        a, _ = reference_from_scores(scores, v)
        change = np.zeros_like(scores)
        change[i, j] = 1
        da = weights_change(a, change)
        assert np.allclose(da, (wu - wd) / (2 * eps), atol=1e-8)
        assert np.allclose(da @ v, (ou - od) / (2 * eps), atol=1e-8)
        assert np.allclose(da[i], softmax_jacobian(a[i])[:, j])  # the Jacobian's column j, as formed


def test_a_masked_score_changes_nothing():
    rng = np.random.default_rng(0)
    r = run_pipeline({"Q": rng.normal(size=(3, 2)), "K": rng.normal(size=(3, 2)), "V": rng.normal(size=(3, 2))},
                     Settings(causal=True))
    s = nudge_sensitivity(r, 0, "S", 0, 2)  # query 0 may not see key 2: its weight is 0 whatever the score
    assert not s.weights.any() and not s.output.any()


def test_a_cell_outside_the_matrix_is_refused_with_the_shape():
    r = run_pipeline({"Q": np.ones((3, 2)), "K": np.ones((3, 2)), "V": np.ones((3, 2))}, Settings())
    with pytest.raises(ShapeError, match="3 × 2"):
        nudge_sensitivity(r, 0, "Q", 0, 2)
    with pytest.raises(ShapeError, match="head 2"):
        nudge_sensitivity(r, 1, "S", 0, 0)


def test_a_nudge_too_large_to_follow_is_refused(monkeypatch):
    import explorer.core.sensitivity as sensitivity

    r = run_pipeline({"Q": np.ones((6, 4)), "K": np.ones((6, 2)), "V": np.ones((6, 2))}, Settings(heads=2, kv_heads=1))
    monkeypatch.setattr(sensitivity, "MAX_CELLS", 40)
    assert nudge_sensitivity(r, 0, "Q", 0, 0).weights.shape == (6, 6)  # one head: 36 weights
    with pytest.raises(ShapeError, match="2 heads × 6 × 6"):
        nudge_sensitivity(r, 0, "K", 0, 0)  # a shared key reaches both query heads
