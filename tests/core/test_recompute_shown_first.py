"""A recompute that hands over its first head early (``on_shown``, issue 18): the partial result holds
that head's ① and ② as a plain NumPy softmax of QKᵀ gives them, before any other head is written;
the whole result that follows is still the pipeline's bit for bit, whether the first head's rows
were shared out between threads or not. The references are written from the definitions here."""

import numpy as np
import pytest

from explorer.core import pooling
from explorer.core import recompute as rc
from explorer.core.errors import NonFiniteError
from explorer.core.pipeline import run_pipeline
from explorer.core.session import Settings
from tests.core.recompute_checks import STAGES


def direct(length, d, dv, seed=0):
    rng = np.random.default_rng(seed)
    return {"Q": rng.standard_normal((length, d)), "K": rng.standard_normal((length, d)),
            "V": rng.standard_normal((length, dv))}


def reference_head(mats, h, heads, scale, temperature, causal):
    """Head h's scores (before any mask) and softmax weights, from the definitions."""
    d_h = mats["Q"].shape[1] // heads
    q, k = mats["Q"][:, h * d_h:(h + 1) * d_h], mats["K"][:, h * d_h:(h + 1) * d_h]
    scores = q @ k.T * scale / temperature
    allowed = np.tril(np.ones(scores.shape, bool)) if causal else np.ones(scores.shape, bool)
    shifted = np.where(allowed, scores, -np.inf)
    e = np.exp(shifted - shifted.max(axis=1, keepdims=True))
    return scores, e / e.sum(axis=1, keepdims=True)


def nan_result(mats, settings):
    """A result whose buffers are all NaN: what a recompute into them has not written stays NaN."""
    r = rc.recompute(mats, settings)
    for a in (r.heads.scores, r.heads.weights, r.heads.head_outputs):
        a[...] = np.nan
    return r


@pytest.mark.parametrize("causal", [False, True])
def test_the_first_head_is_handed_over_before_any_other_is_written(sharing, causal):
    mats, s = direct(37, 16, 8, seed=3), Settings(heads=4, causal=causal, temperature=0.7)
    seen = []

    def on_shown(partial):
        h = partial.partial_head
        others = [g for g in range(4) if g != h]
        seen.append({"head": h, "concat": partial.heads.concat, "output": partial.heads.output,
                     "others_untouched": all(np.isnan(partial.heads.scores[g]).all()
                                             and np.isnan(partial.heads.weights[g]).all() for g in others),
                     "scores": partial.heads.scores[h].copy(), "weights": partial.heads.weights[h].copy(),
                     "row_sums": partial.row_sums(h).copy(), "range": partial.score_range(h),
                     "arrays": (partial.heads.scores, partial.heads.weights)})

    got = rc.recompute(mats, s, previous=nan_result(mats, s), order=[2, 0, 3, 1], summarise=[2],
                       on_shown=on_shown, **sharing)
    assert len(seen) == 1
    first = seen[0]
    assert first["head"] == 2 and first["others_untouched"]
    assert first["concat"] is None and first["output"] is None  # ③ is not there yet: nothing to misread
    scores, weights = reference_head(mats, 2, 4, 1 / np.sqrt(4), 0.7, causal)
    np.testing.assert_allclose(first["scores"], scores, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(first["weights"], weights, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(first["row_sums"], 1.0, rtol=1e-12)
    np.testing.assert_allclose(first["range"], (scores.min(), scores.max()), rtol=1e-12)
    # the rest followed without touching what was handed over, and the whole is the pipeline's
    assert got.heads.scores is first["arrays"][0] and got.heads.weights is first["arrays"][1]
    np.testing.assert_array_equal(got.heads.scores[2], first["scores"])
    np.testing.assert_array_equal(got.heads.weights[2], first["weights"])
    want = run_pipeline(mats, s)
    for stage in STAGES:
        np.testing.assert_array_equal(getattr(got.heads, stage), getattr(want.heads, stage), err_msg=stage)


def block_extremes(matrix, rows, cols, signed):
    """Each rows × cols block (the last ones smaller) as its value farthest from 0 (``signed``) or its maximum."""
    out = np.empty((-(-matrix.shape[0] // rows), -(-matrix.shape[1] // cols)))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            block = matrix[i * rows:(i + 1) * rows, j * cols:(j + 1) * cols]
            hi, lo = block.max(), block.min()
            out[i, j] = hi if not signed or hi >= -lo else lo
    return out


def test_the_first_heads_overviews_made_band_by_band_are_those_of_the_whole_head(sharing, monkeypatch):
    monkeypatch.setattr(pooling, "OVERVIEW", 8)  # 41 tokens count as larger than a screen: 6 × 6 blocks
    mats, s = direct(41, 8, 4, seed=5), Settings(heads=2, causal=True, temperature=1.3)
    views = []
    got = rc.recompute(mats, s, order=[1, 0], summarise=[1],
                       on_shown=lambda p: views.append({k: v.copy() for k, v in p.overviews.items()}), **sharing)
    assert set(views[0]) == {("scores", 1), ("weights", 1)}
    for stage, signed in (("scores", True), ("weights", False)):
        want = block_extremes(getattr(got.heads, stage)[1], 6, 6, signed).astype(np.float32)
        np.testing.assert_array_equal(views[0][(stage, 1)], want, err_msg=stage)
    assert ("scores", 0) not in got.overviews  # a head not on screen: made when a panel asks


def test_an_overflow_in_the_first_head_names_the_first_row_whatever_band_meets_it(sharing):
    mats, s = direct(24, 4, 4, seed=1), Settings(heads=1, scale_mode="custom", scale=1e3)
    mats["Q"][[3, 20], :2], mats["K"][5, :2] = 1e300, 1e10  # (3, 5) and (20, 5) overflow: (3, 5) is named
    shown = []
    with pytest.raises(NonFiniteError, match=r"head 1, \(3, 5\)"):
        rc.recompute(mats, s, on_shown=shown.append, **sharing)
    assert shown == []  # nothing is handed over from a head that failed


def test_a_cancelled_recompute_stops_before_its_first_head_and_hands_nothing_over(sharing):
    shown = []
    assert rc.recompute(direct(9, 8, 4), Settings(heads=4), cancelled=lambda: True, on_shown=shown.append,
                        **sharing) is None
    assert shown == []


def test_a_recompute_stopped_once_it_has_shown_keeps_that_head_whole(sharing):
    """What a newer request does to the worker's job (``supersede``): it stops at its next check after
    the first head, whose numbers stay as handed over."""
    mats, s = direct(30, 8, 8, seed=2), Settings(heads=4, temperature=2.0)
    shown = []
    assert rc.recompute(mats, s, previous=nan_result(mats, s), order=[1, 0, 2, 3],
                        cancelled=lambda: bool(shown), on_shown=shown.append, **sharing) is None
    partial = shown[0]
    scores, weights = reference_head(mats, 1, 4, 1 / np.sqrt(2), 2.0, False)
    np.testing.assert_allclose(partial.heads.scores[1], scores, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(partial.heads.weights[1], weights, rtol=1e-12, atol=1e-15)
    assert np.isnan(partial.heads.scores[[0, 2, 3]]).all()  # no head was begun after it
