"""The √d lesson (F14): q·k spreads like √d, and without 1/√d softmax collapses onto one key."""
import math
import warnings

import numpy as np
import pytest

from explorer.core import random_scores, score_spread, sharpness_curve, softmax, softmax_sharpness, sqrt_d_point
from explorer.core.errors import ExplorerError, ShapeError
from explorer.core.scaling import dimension_grid, random_queries_keys, row_entropy, scaled_weights

LN16 = math.log(16)


# ---------------------------------------------------------------- the random scores

def test_scores_are_one_table_q_kT_of_standard_normal_vectors():
    q, k = random_queries_keys(8, n_keys=5, n_samples=7, seed=3)
    assert q.shape == (7, 8) and k.shape == (5, 8)
    s = random_scores(8, n_keys=5, n_samples=7, seed=3)
    assert s.shape == (7, 5)
    np.testing.assert_allclose(s, q @ k.T, rtol=1e-15)


def test_defaults_are_256_queries_against_16_keys():
    assert random_scores(3).shape == (256, 16)


def test_seeded_scores_are_deterministic():
    np.testing.assert_array_equal(random_scores(64, seed=5), random_scores(64, seed=5))
    assert not np.array_equal(random_scores(64, seed=5), random_scores(64, seed=6))
    assert score_spread([4, 64], seed=2).tolist() == score_spread([4, 64], seed=2).tolist()
    assert softmax_sharpness(32, False, seed=9) == softmax_sharpness(32, False, seed=9)


def test_each_d_has_its_own_stream():
    # a value at d does not depend on which other dimensions were asked for alongside it
    np.testing.assert_array_equal(score_spread([64]), score_spread([1, 2, 64])[2:])
    curve = sharpness_curve([3, 64])
    assert curve.entropy_unscaled[1] == softmax_sharpness(64, False)[0]


# ---------------------------------------------------------------- the spread grows like √d

@pytest.mark.parametrize("seed", range(3))
def test_spread_over_sqrt_d_is_about_one(seed):
    # 1024 queries × 1024 keys: over seeds the ratio varies by σ ≈ 0.015 at d = 4 (less for larger d);
    # 0.06 is four of those, so the check is about the law and not about one lucky draw.
    dims = [4, 64, 1024]
    ratio = score_spread(dims, n_keys=1024, n_samples=1024, seed=seed) / np.sqrt(dims)
    np.testing.assert_allclose(ratio, 1.0, atol=0.06)


def test_spread_is_the_std_of_the_scores():
    assert score_spread([16], seed=4)[0] == pytest.approx(np.std(random_scores(16, seed=4)), rel=1e-15)


def test_at_d_128_the_scores_run_to_tens():
    # the chapter: "d=128 时分数动辄几十" — a query's largest |q·k| over 16 keys is typically in the tens
    s = random_scores(128)
    assert 15 < np.mean(np.abs(s).max(axis=1)) < 50


# ---------------------------------------------------------------- softmax sharpness

def test_unscaled_softmax_collapses_as_d_grows():
    dims = [1, 4, 16, 64, 256, 1024]
    curve = sharpness_curve(dims, n_samples=1024)
    assert np.all(np.diff(curve.entropy_unscaled) < 0), curve.entropy_unscaled
    assert np.all(np.diff(curve.max_weight_unscaled) > 0), curve.max_weight_unscaled
    assert curve.max_weight_unscaled[-1] > 0.9  # almost all of the budget on the top key
    assert curve.entropy_unscaled[-1] < 0.25  # versus ln 16 ≈ 2.77 for an even split


def test_scaled_softmax_keeps_the_same_sharpness():
    dims = [1, 4, 16, 64, 256, 1024]
    curve = sharpness_curve(dims, n_samples=1024)
    # "有分辨力但不极端": clearly below an even split, far from one-hot, and about what d = 1 gives
    np.testing.assert_allclose(curve.entropy_scaled, curve.entropy_scaled[0], atol=0.2)
    assert np.all((curve.entropy_scaled > 0.75 * LN16) & (curve.entropy_scaled < 0.95 * LN16))
    assert np.all(curve.max_weight_scaled < 0.35)


def test_at_d_1_scaling_changes_nothing():
    assert softmax_sharpness(1, True, seed=7) == softmax_sharpness(1, False, seed=7)


def test_sharpness_is_mean_entropy_and_mean_max_weight_of_softmax_rows():
    d = 32
    s = random_scores(d, seed=1)
    for scaled, w in ((False, softmax(s)), (True, softmax(s / math.sqrt(d)))):
        entropy, top = softmax_sharpness(d, scaled, seed=1)
        expected = -np.sum(w * np.log(w), axis=1).mean()
        assert entropy == pytest.approx(expected, rel=1e-12)
        assert top == pytest.approx(w.max(axis=1).mean(), rel=1e-12)


def test_row_entropy_by_hand():
    assert row_entropy(np.full(16, 1 / 16)) == pytest.approx(LN16, rel=1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a zero weight is 0·ln 0 = 0, with no log(0) warning
        np.testing.assert_array_equal(row_entropy(np.array([[0.0, 1.0, 0.0], [0.5, 0.5, 0.0]])),
                                      [0.0, math.log(2)])


def test_scaled_weights_divide_by_sqrt_d_before_softmax():
    s = np.array([[8.0, 4.0, 0.0]])
    np.testing.assert_allclose(scaled_weights(s, 16, True), softmax(s / 4.0), rtol=1e-15)
    np.testing.assert_allclose(scaled_weights(s, 16, False), softmax(s), rtol=1e-15)


# ---------------------------------------------------------------- one point, one curve

def test_point_agrees_with_the_separate_functions():
    for d in (1, 7, 128, 1024):
        p = sqrt_d_point(d, row=3, seed=2)
        assert p.d == d and p.sqrt_d == math.sqrt(d)
        assert p.spread == score_spread([d], seed=2)[0]
        assert (p.entropy_unscaled, p.max_weight_unscaled) == softmax_sharpness(d, False, seed=2)
        assert (p.entropy_scaled, p.max_weight_scaled) == softmax_sharpness(d, True, seed=2)
        s = random_scores(d, seed=2)
        np.testing.assert_array_equal(p.row, s[3])
        np.testing.assert_allclose(p.row_unscaled, softmax(s[3]), rtol=1e-13, atol=1e-300)
        np.testing.assert_allclose(p.row_scaled, softmax(s[3] / math.sqrt(d)), rtol=1e-13)
        assert p.row_scaled.sum() == pytest.approx(1.0) and p.row_unscaled.sum() == pytest.approx(1.0)


def test_curve_has_one_entry_per_dimension():
    dims = [1, 2, 5, 300]
    curve = sharpness_curve(dims, n_keys=8, n_samples=64, seed=1)
    assert curve.dims.tolist() == dims
    for name in ("spread", "entropy_unscaled", "entropy_scaled", "max_weight_unscaled", "max_weight_scaled"):
        assert getattr(curve, name).shape == (4,)
    np.testing.assert_array_equal(curve.spread, score_spread(dims, n_keys=8, n_samples=64, seed=1))
    assert curve.max_weight_scaled[2] == softmax_sharpness(5, True, n_keys=8, n_samples=64, seed=1)[1]


def test_dimension_grid_doubles_in_half_steps():
    grid = dimension_grid(1024)
    assert grid[0] == 1 and grid[-1] == 1024
    assert np.all(np.diff(grid) > 0)
    assert {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024} <= set(grid.tolist())
    assert dimension_grid(100)[-1] == 100


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("d", [0, -1, -128, 2.5, 4.0, True, "4", None])
def test_bad_dimension_raises_shape_error(d):
    with pytest.raises(ShapeError, match="d must be"):
        random_scores(d)
    with pytest.raises(ShapeError):
        softmax_sharpness(d, True)
    with pytest.raises(ShapeError):
        sqrt_d_point(d)


@pytest.mark.parametrize("dims", [[4, 0], [-2], [], [[4, 8]]])
def test_bad_dimension_lists_raise_shape_error(dims):
    with pytest.raises(ShapeError):
        score_spread(dims)
    with pytest.raises(ShapeError):
        sharpness_curve(dims)


def test_bad_counts_and_seed():
    with pytest.raises(ShapeError, match="n_keys"):
        random_scores(4, n_keys=0)
    with pytest.raises(ShapeError, match="n_samples"):
        random_scores(4, n_samples=-1)
    with pytest.raises(ShapeError, match="row"):
        sqrt_d_point(4, row=256)
    with pytest.raises(ExplorerError, match="seed"):
        random_scores(4, seed=-1)


def test_numpy_integers_are_fine():
    np.testing.assert_array_equal(random_scores(np.int64(16)), random_scores(16))
    np.testing.assert_array_equal(score_spread(np.array([4, 16])), score_spread([4, 16]))
