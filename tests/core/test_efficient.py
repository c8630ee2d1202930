"""The efficient-attention approximations against exact attention written here from the chapter's formula,
their limits (a window over everything, Linformer with k = L and E = F = I), linear attention's associativity,
and the error figures and costs worked by hand."""
import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.efficient import (Mechanism, approximate, cost_curve, error_figures, full_multiply_adds,
                                     head_inputs, multiply_adds, score_cells)
from explorer.core.linear_attention import causal_linear_attention, feature_map, linear_attention, random_features
from explorer.core.low_rank import linformer, pooling_projection, random_projections
from explorer.core.pipeline import run_pipeline
from explorer.core.presets import demo_session, random_session

PROPS = settings(max_examples=40, deadline=None, database=None)


def exact(q, k, v, c, causal=False):
    """softmax(c·QKᵀ)·V row by row, written out: (scores, weights, output)."""
    s = c * (q @ k.T)
    if causal:
        n_q, n_k = s.shape
        s = np.where(np.arange(n_k)[None, :] <= np.arange(n_q)[:, None] + n_k - n_q, s, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    a = e / e.sum(axis=1, keepdims=True)
    return s, a, a @ v


def qkv(seed, n_q, n_k, d, d_v):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n_q, d)), rng.standard_normal((n_k, d)), rng.standard_normal((n_k, d_v))


shapes = st.tuples(st.integers(0, 10_000), st.integers(1, 12), st.integers(1, 5), st.integers(1, 5))


@PROPS
@given(shapes, st.integers(0, 4), st.booleans())
def test_window_over_everything_is_exact(shape, extra, causal):
    seed, n, d, d_v = shape
    q, k, v = qkv(seed, n, n, d, d_v)
    s, a, o = exact(q, k, v, 0.7, causal)
    allowed = np.isfinite(s) if causal else None
    approx = approximate(Mechanism("window", window=n + extra), s, q, k, v, 0.7, allowed)
    np.testing.assert_allclose(approx.weights, a, rtol=0, atol=1e-12)
    np.testing.assert_allclose(approx.output, o, rtol=0, atol=1e-12)
    figures = error_figures(approx, a, o)
    assert figures.frobenius < 1e-12 and abs(figures.kl) < 1e-12 and figures.mass == pytest.approx(1.0, abs=1e-12)


@PROPS
@given(shapes)
def test_linformer_with_k_equal_l_and_identity_projections_is_exact(shape):
    seed, n, d, d_v = shape
    q, k, v = qkv(seed, n, n, d, d_v)
    _, a, o = exact(q, k, v, 0.5)
    p, out, effective = linformer(q, k, v, np.eye(n), np.eye(n), scale=0.5)
    np.testing.assert_allclose(p, a, rtol=0, atol=1e-12)
    np.testing.assert_allclose(effective, a, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out, o, rtol=0, atol=1e-12)


def test_random_projections_are_seeded_and_scaled():
    e, f = random_projections(3, 5, seed=7)
    e2, f2 = random_projections(3, 5, seed=7)
    assert e.shape == f.shape == (3, 5)
    np.testing.assert_array_equal(e, e2)
    np.testing.assert_array_equal(f, f2)
    assert not np.array_equal(e, f)
    big, _ = random_projections(400, 500, seed=1)
    assert big.var() == pytest.approx(1 / 400, rel=0.02)  # entries N(0, 1/k)


@PROPS
@given(shapes, st.sampled_from(["elu+1", "relu"]))
def test_linear_attention_is_associativity(shape, phi):
    """φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1) equals the quadratic form: φ(Q)φ(K)ᵀ normalised by rows, times V."""
    seed, n, d, d_v = shape
    q, k, v = qkv(seed, n + 1, n, d, d_v)
    fq, fk = feature_map(q, phi), feature_map(k, phi)
    sim = fq @ fk.T
    den = sim.sum(axis=1, keepdims=True)
    quadratic = np.where(den > 0, sim / np.where(den > 0, den, 1.0), 0.0) @ v
    np.testing.assert_allclose(linear_attention(fq, fk, v), quadratic, rtol=0, atol=1e-12)


@PROPS
@given(st.integers(0, 10_000), st.integers(1, 150), st.integers(0, 6), st.integers(1, 4), st.integers(1, 4))
def test_causal_linear_attention_by_prefix_sums_is_the_masked_quadratic_form(seed, n_k, fewer, d, d_v):
    """The running sums (in chunks of keys) equal the masked table normalised by rows — also with fewer
    queries than keys (a query aligned with the last keys) and more (early queries see no key)."""
    n_q = max(1, n_k - fewer) if seed % 2 else n_k + fewer
    q, k, v = qkv(seed, n_q, n_k, d, d_v)
    fq, fk = feature_map(q), feature_map(k)
    mask = np.arange(n_k)[None, :] <= np.arange(n_q)[:, None] + n_k - n_q
    sim = np.where(mask, fq @ fk.T, 0.0)
    den = sim.sum(axis=1, keepdims=True)
    quadratic = np.where(den > 0, sim / np.where(den > 0, den, 1.0), 0.0) @ v
    np.testing.assert_allclose(causal_linear_attention(fq, fk, v), quadratic, rtol=0, atol=1e-12)


def test_feature_map_elu_plus_one_by_hand():
    np.testing.assert_allclose(feature_map(np.array([-1.0, 0.0, 2.0])), [math.exp(-1), 1.0, 3.0], rtol=1e-15)
    np.testing.assert_array_equal(feature_map(np.array([-1.0, 0.0, 2.0]), "relu"), [0.0, 0.0, 2.0])
    with pytest.raises(ValueError, match="feature map φ must be one of elu\\+1, relu"):
        feature_map(np.zeros(2), "tanh")


def test_error_figures_by_hand():
    """Two tokens, scores [[0, ln 3], [ln 3, 0]]: exact rows (1/4, 3/4) and (3/4, 1/4); a window of 1 keeps the
    diagonal, so A′ = I. With V = I: O = A, O′ = I, ‖O′ − O‖ = √(4·(3/4)²) = 3/2, ‖O‖ = √(2·10/16) = √5/2.
    Mass inside = 1/4 per row; KL(A′ ‖ A) = 1·ln(1/(1/4)) = ln 4 per row."""
    s = np.array([[0.0, math.log(3)], [math.log(3), 0.0]])
    a = np.array([[0.25, 0.75], [0.75, 0.25]])
    v = np.eye(2)
    approx = approximate(Mechanism("window", window=1), s, np.zeros((2, 1)), np.zeros((2, 1)), v, 1.0)
    np.testing.assert_allclose(approx.weights, np.eye(2), atol=1e-15)
    f = error_figures(approx, a, a @ v)
    assert f.frobenius == pytest.approx(3 / math.sqrt(5), rel=1e-12)
    assert f.kl == pytest.approx(math.log(4), rel=1e-12) and f.kl_rows == 2
    assert f.mass == pytest.approx(0.25, rel=1e-12)


@PROPS
@given(shapes, st.sampled_from(["window", "strided", "fixed", "global_window"]), st.integers(1, 4), st.booleans())
def test_a_patterns_kl_is_minus_log_of_its_mass(shape, kind, w, causal):
    """Cut to the pattern and re-normalised, row i is A_ij / m_i there: KL(A′_i ‖ A_i) = −ln m_i."""
    seed, n, d, d_v = shape
    q, k, v = qkv(seed, n, n, d, d_v)
    s, a, o = exact(q, k, v, 1.0, causal)
    allowed = np.isfinite(s) if causal else None
    approx = approximate(Mechanism(kind, window=w, stride=w, summary=1), s, q, k, v, 1.0, allowed)
    masses = np.where(approx.computed, a, 0.0).sum(axis=1)
    f = error_figures(approx, a, o)
    assert f.mass == pytest.approx(masses.mean(), abs=1e-12)
    assert f.kl == pytest.approx(np.mean(-np.log(masses)), abs=1e-9)


def test_linformer_rows_are_no_distributions():
    q, k, v = qkv(3, 6, 6, 3, 2)
    s, a, o = exact(q, k, v, 1.0)
    approx = approximate(Mechanism("linformer", rank=3, seed=1), s, q, k, v, 1.0)
    assert approx.weights.shape == (6, 6) and approx.projected.shape == (6, 3)
    np.testing.assert_allclose(approx.projected.sum(axis=1), 1.0)
    f = error_figures(approx, a, o)
    assert f.kl is None and f.kl_rows == 0 and f.mass is None and f.frobenius > 0  # no pattern: no mass inside


def test_zero_output_has_no_relative_error():
    q, k, _ = qkv(1, 3, 3, 2, 2)
    s, a, o = exact(q, k, np.zeros((3, 2)), 1.0)
    f = error_figures(approximate(Mechanism("window", window=1), s, q, k, np.zeros((3, 2)), 1.0), a, o)
    assert f.frobenius is None


@pytest.mark.parametrize("heads, kv_heads", [(1, 0), (2, 0), (2, 1)])
def test_head_inputs_make_the_sessions_scores(heads, kv_heads):
    """The columns a head reads (grouped K/V heads too): c·q_h k_hᵀ are the pipeline's scores of that head."""
    session = random_session(5, 4, seed=3)
    settings_ = dataclasses.replace(session.settings, heads=heads, kv_heads=kv_heads, causal=True)
    matrices = {n: session.matrices[n] for n in "QKV"}
    if kv_heads:  # one K/V head of width d_h = 4 / 2 shared by both query heads
        matrices = {"Q": matrices["Q"], "K": matrices["K"][:, :2], "V": matrices["V"][:, :2]}
    result = run_pipeline(matrices, settings_)
    for h in range(heads):
        q, k, v, c = head_inputs(result, h)
        allowed = result.allowed(h)
        np.testing.assert_allclose(np.where(allowed, c * q @ k.T, 0), np.where(allowed, result.heads.scores[h], 0),
                                   atol=1e-12)
        assert v.shape[1] == result.heads.head_outputs.shape[2]


def test_demo_window_two_causal_by_hand():
    """The demo (猫 追 红色 激光点), causal, w = 2: each row keeps itself and the token before it."""
    session = demo_session()
    result = run_pipeline({n: session.matrices[n] for n in "QKV"}, dataclasses.replace(session.settings, causal=True))
    q, k, v, c = head_inputs(result, 0)
    approx = approximate(Mechanism("window", window=2), result.heads.scores[0], q, k, v, c, result.allowed(0))
    expected = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]], bool)
    np.testing.assert_array_equal(approx.computed, expected)
    np.testing.assert_array_equal(approx.weights[~expected], 0.0)


def test_costs_by_hand():
    window = Mechanism("window", window=2)
    assert score_cells(window, 4) == 10 and score_cells(window, 4, causal=True) == 7
    assert multiply_adds(window, 4, 3, 2) == 10 * 5
    assert full_multiply_adds(4, 3, 2) == 16 * 5
    assert multiply_adds(Mechanism("linformer", rank=2), 8, 3, 2) == 2 * 8 * 2 * 5
    assert score_cells(Mechanism("linformer", rank=2), 8) == 16
    assert multiply_adds(Mechanism("linear"), 8, 3, 2) == 2 * 8 * 3 * 3
    assert score_cells(Mechanism("linear"), 8) == 0
    full, mine = cost_curve(window, [4, 8192], 3, 2)
    np.testing.assert_array_equal(full, [80.0, 8192.0 ** 2 * 5])
    np.testing.assert_array_equal(mine, [50.0, (8192 * 3 - 2) * 5])  # L·(2w − 1) less the two ends


def test_unknown_mechanism_is_named():
    with pytest.raises(ValueError, match="mechanism must be one of window, global_window, strided, fixed, "
                                         "linformer, linear, performer"):
        Mechanism("flash")


def test_pooling_projection_by_hand():
    """L = 5, k = 2: stretches ⌊0·5/2⌋…⌊5/2⌋ − 1 = positions 0, 1 and 2…4 — rows (½, ½, 0, 0, 0), (0, 0, ⅓, ⅓, ⅓)."""
    np.testing.assert_allclose(pooling_projection(2, 5), [[0.5, 0.5, 0, 0, 0], [0, 0, 1 / 3, 1 / 3, 1 / 3]],
                               rtol=1e-15)
    np.testing.assert_array_equal(pooling_projection(4, 4), np.eye(4))
    with pytest.raises(ValueError, match="from 1 to L = 4 for pooling, got 5"):
        pooling_projection(5, 4)


@PROPS
@given(shapes)
def test_linformer_pooling_with_k_equal_l_is_exact(shape):
    seed, n, d, d_v = shape
    q, k, v = qkv(seed, n, n, d, d_v)
    s, a, o = exact(q, k, v, 0.5)
    approx = approximate(Mechanism("linformer", rank=n, projection="pooling"), s, q, k, v, 0.5)
    np.testing.assert_allclose(approx.weights, a, rtol=0, atol=1e-12)
    np.testing.assert_allclose(approx.output, o, rtol=0, atol=1e-12)
    f = error_figures(approx, a, o)
    assert f.frobenius < 1e-12 and abs(f.kl) < 1e-12 and f.kl_rows == n


def test_linformer_pooling_rows_are_distributions():
    q, k, v = qkv(4, 7, 7, 3, 2)
    s, a, o = exact(q, k, v, 1.0)
    approx = approximate(Mechanism("linformer", rank=3, projection="pooling"), s, q, k, v, 1.0)
    np.testing.assert_allclose(approx.weights.sum(axis=1), 1.0, atol=1e-12)
    assert (approx.weights >= 0).all() and error_figures(approx, a, o).kl_rows == 7


def test_performer_features_estimate_exp_of_the_dot_product():
    """E[φ(x)·φ(y)] = exp(x·y) (FAVOR+'s positive features): with 200 000 features, within 2 %."""
    x, y = np.array([[0.3, -0.5, 0.2]]), np.array([[0.4, 0.1, -0.6]])
    w = random_features(200_000, 3, seed=5)
    z = lambda a: np.exp(a @ w.T - 0.5 * np.sum(a * a)) / np.sqrt(len(w))  # noqa: E731  (unshifted)
    assert (z(x) @ z(y).T).item() == pytest.approx(math.exp((x @ y.T).item()), rel=0.02)


def test_performer_shift_before_exp_changes_no_weight():
    """Each query row's shift cancels in its normalisation, the keys' common shift everywhere."""
    q, k, v = qkv(8, 5, 6, 3, 2)
    w = random_features(32, 3, seed=1)
    plain_ = lambda a: np.exp(a @ w.T - 0.5 * np.sum(a * a, axis=1, keepdims=True))  # noqa: E731
    sim = plain_(q) @ plain_(k).T
    expected = sim / sim.sum(axis=1, keepdims=True)
    s, a, o = exact(q, k, v, 1.0)
    approx = approximate(Mechanism("performer", features=32, seed=1), s, q, k, v, 1.0)
    np.testing.assert_allclose(approx.weights, expected, rtol=1e-12)
    np.testing.assert_allclose(approx.output, expected @ v, rtol=0, atol=1e-12)


@pytest.mark.parametrize("causal", [False, True])
def test_performer_approaches_softmax_with_many_features(causal):
    q, k, v = qkv(2, 5, 5, 3, 2)
    q, k = 0.5 * q, 0.5 * k
    s, a, o = exact(q, k, v, 0.8, causal)
    allowed = np.isfinite(s) if causal else None
    approx = approximate(Mechanism("performer", features=100_000, seed=3), s, q, k, v, 0.8, allowed)
    np.testing.assert_allclose(approx.weights, a, atol=0.02)
    assert error_figures(approx, a, o).frobenius < 0.05
    few = approximate(Mechanism("performer", features=4, seed=3), s, q, k, v, 0.8, allowed)
    assert error_figures(few, a, o).frobenius > error_figures(approx, a, o).frobenius


def test_performer_cost_by_hand():
    assert multiply_adds(Mechanism("performer", features=16), 8, 3, 2) == 2 * 8 * 16 * 3 + 2 * 8 * 16 * 3


def test_a_cancelled_approximation_stops_between_bands_of_rows():
    """600 rows of 600 keys are 2 bands of 436 rows (BLOCK_CELLS = 2¹⁸ cells): told to stop after the first, both
    the approximation and the figures give None."""
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((600, 4)), rng.standard_normal((600, 4)), rng.standard_normal((600, 4))
    scores = q @ k.T / 2
    asked = []

    def after_one():
        asked.append(1)
        return len(asked) > 1

    assert approximate(Mechanism("window", window=3), scores, q, k, v, 0.5, cancelled=after_one) is None
    assert len(asked) == 2
    approx = approximate(Mechanism("window", window=3), scores, q, k, v, 0.5)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    asked.clear()
    assert error_figures(approx, weights, weights @ v, cancelled=after_one) is None
