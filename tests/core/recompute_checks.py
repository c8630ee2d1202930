"""Checks shared by the recompute tests: a fast result equal to the plain pipeline's, and edits applied
in place compared with a whole recompute after each one."""
import numpy as np

from explorer.core import recompute as rc
from explorer.core.pipeline import run_pipeline

STAGES = ("scores", "weights", "head_outputs", "concat", "output")


def assert_same(got, want, exact=False):
    """Every stage, q, k, v and the summaries made on the way equal (to rounding, or bit for bit)."""
    def check(a, b, err_msg):
        if exact:
            np.testing.assert_array_equal(a, b, err_msg=err_msg)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15, err_msg=err_msg)

    for stage in STAGES:
        check(getattr(got.heads, stage), getattr(want.heads, stage), stage)
    for name in ("q", "k", "v"):
        check(getattr(got, name), getattr(want, name), name)
    np.testing.assert_array_equal(got.heads.masked_rows, want.heads.masked_rows)
    assert got.scale == want.scale and got.temperature == want.temperature
    for h in range(want.n_heads):  # the summaries made on the way equal what the stages say
        np.testing.assert_allclose(got.row_sums(h), want.heads.weights[h].sum(axis=1), rtol=1e-12)
        np.testing.assert_allclose(got.score_range(h), (want.heads.scores[h].min(), want.heads.scores[h].max()),
                                   rtol=1e-12, atol=1e-15)


def edit_and_compare(result, mats, settings, edits, seed):
    """Apply each edit (matrix, top, left, rows, cols) to ``mats`` and in place to ``result``; after each,
    ``result`` equals a whole run of the pipeline."""
    rng = np.random.default_rng(seed)
    for name, top, left, rows, cols in edits:
        m = mats[name]
        top, left = top % m.shape[0], left % m.shape[1]
        rows, cols = range(top, min(top + rows, m.shape[0])), range(left, min(left + cols, m.shape[1]))
        m[np.ix_(rows, cols)] = rng.standard_normal((len(rows), len(cols))) * 3
        assert rc.edit_cost(result, name, rows, cols) > 0
        rc.apply_edit(result, mats, settings, name, list(rows), list(cols))
        assert_same(result, run_pipeline(mats, settings))
