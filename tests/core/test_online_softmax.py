"""FlashAttention's online softmax (Dao et al. 2022, Algorithm 1): exact against softmax(S)·V written here
from the definition, by hand on a 1 × 4 row, its step counts, its skipped tiles, and the session's own ③."""
import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.errors import ShapeError
from explorer.core.flash_accounting import HbmModel, working_set
from explorer.core.online_softmax import (FlashProblem, block_steps, default_tile, flash_attention, head_problem,
                                          online_softmax_steps, smallest_tile, tiles_per_block)
from explorer.core.pipeline import run_pipeline
from explorer.core.presets import demo_session, grouped_query_session, random_session, translation_session

PROPS = settings(max_examples=80, deadline=None, database=None)


def reference(q, k, v, scale, temperature=1.0, causal=False, slope=None):
    """softmax(S)·V from the definition: S = (q·kᵀ·scale − slope·|i − j|) / T, masked keys j > i + L_k − L_q,
    the row max subtracted before exp; a row with no key left gives zeros."""
    lq, lk = len(q), len(k)
    s = q @ k.T * scale
    i, j = np.arange(lq)[:, None], np.arange(lk)[None, :]
    if slope is not None:
        s = s - slope * np.abs(i - j)
    s = s / temperature
    if causal:
        s = np.where(j <= i + lk - lq, s, -np.inf)
    out = np.zeros((lq, v.shape[1]))
    for row in range(lq):
        keep = np.isfinite(s[row])
        if keep.any():
            e = np.exp(s[row, keep] - s[row, keep].max())
            out[row] = (e / e.sum()) @ v[keep]
    return out


@st.composite
def problems(draw):
    lq = draw(st.integers(1, 9))
    cross = draw(st.booleans())
    lk = draw(st.integers(1, 9)) if cross else lq
    d, d_v = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    spread = draw(st.sampled_from([1.0, 3.0, 10.0]))
    q, k, v = rng.normal(0, spread, (lq, d)), rng.normal(0, spread, (lk, d)), rng.normal(size=(lk, d_v))
    offset = draw(st.sampled_from([0.0, 1000.0, -1000.0]))  # e^{±1000} overflows a naive exp
    if offset:
        q, k = np.hstack([q, np.full((lq, 1), offset)]), np.hstack([k, np.ones((lk, 1))])
    problem = FlashProblem(q, k, v, scale=draw(st.sampled_from([1.0, 1 / math.sqrt(q.shape[1]), 0.3])),
                           temperature=draw(st.sampled_from([1.0, 0.05, 0.5, 20.0])),
                           causal=not cross and draw(st.booleans()),
                           slope=draw(st.sampled_from([None, 0.5, 2.0 ** -8])))
    return problem, draw(st.integers(1, lq)), draw(st.integers(1, lk))


@PROPS
@given(problems())
def test_the_tiled_output_is_softmax_times_v(case):
    p, b_r, b_c = case
    want = reference(p.q, p.k, p.v, p.scale, p.temperature, p.causal, p.slope)
    got = flash_attention(p, b_r, b_c)
    np.testing.assert_allclose(got.output, want, rtol=0, atol=1e-12 * max(1.0, np.abs(p.v).max()))
    np.testing.assert_allclose(got.normalised_each_step, want, rtol=0, atol=1e-12 * max(1.0, np.abs(p.v).max()))
    assert got.largest_tile <= b_r * b_c


@PROPS
@given(problems())
def test_every_block_ends_at_its_rows_of_the_output(case):
    p, b_r, b_c = case
    want = reference(p.q, p.k, p.v, p.scale, p.temperature, p.causal, p.slope)
    for i in range(-(-p.n_queries // b_r)):
        run = block_steps(p, b_r, b_c, i)
        r0, r1 = run.rows
        np.testing.assert_allclose(run.output, want[r0:r1], rtol=0, atol=1e-12 * max(1.0, np.abs(p.v).max()))
        if run.steps:  # Algorithm 1's O after the last tile is the same
            np.testing.assert_allclose(run.steps[-1].o, want[r0:r1], rtol=0, atol=1e-12 * max(1.0, np.abs(p.v).max()))


def test_a_one_by_four_row_by_hand():
    # scores x = [1, 3, 2, 5] (q = [1], k = x, scale 1), B_c = 2.
    # tile 1 (1, 3): m = 3, ℓ = e^{1−3} + e^0 = e^{−2} + 1; tile 2 (2, 5): m̃ = 5, m = 5,
    # rescale e^{3−5} = e^{−2}, ℓ = (e^{−2} + 1)·e^{−2} + e^{2−5} + e^0 = e^{−4} + e^{−2} + e^{−3} + 1
    p = FlashProblem(np.array([[1.0]]), np.array([[1.0], [3.0], [2.0], [5.0]]), np.eye(4), scale=1.0)
    one, two = block_steps(p, 1, 2, 0).steps
    assert one.m_old[0] == -np.inf and one.l_old[0] == 0 and one.rescale[0] == 0
    assert one.m_new[0] == 3 and one.l_new[0] == pytest.approx(math.exp(-2) + 1, rel=1e-15)
    assert two.tile_max[0] == 5 and two.m_new[0] == 5
    assert two.rescale[0] == pytest.approx(math.exp(-2), rel=1e-15)
    assert two.tile_rescale[0] == 1.0
    total = math.exp(-4) + math.exp(-2) + math.exp(-3) + 1
    assert two.l_new[0] == pytest.approx(total, rel=1e-15)
    # V = I: O is the weights themselves, e^{x − 5} / ℓ
    np.testing.assert_allclose(two.o[0], np.exp(np.array([1, 3, 2, 5]) - 5.0) / total, rtol=1e-15)
    # after tile 1 the unnormalised Õ holds e^{x − 3} for the keys seen so far, O the same divided by ℓ
    np.testing.assert_allclose(one.o_unnormalised[0], [math.exp(-2), 1, 0, 0], rtol=1e-15)
    np.testing.assert_allclose(one.o[0], np.array([math.exp(-2), 1, 0, 0]) / (math.exp(-2) + 1), rtol=1e-15)


def test_the_one_dimensional_online_softmax_by_hand():
    steps, weights = online_softmax_steps([1.0, 3.0, 2.0, 5.0])
    assert [s.m_new for s in steps] == [1, 3, 3, 5]
    ells = [1, math.exp(-2) + 1, math.exp(-2) + 1 + math.exp(-1), (math.exp(-2) + 1 + math.exp(-1)) * math.exp(-2) + 1]
    np.testing.assert_allclose([s.l_new for s in steps], ells, rtol=1e-15)
    assert [s.rescale for s in steps] == [0.0, pytest.approx(math.exp(-2)), 1.0, pytest.approx(math.exp(-2))]
    e = np.exp(np.array([1.0, 3.0, 2.0, 5.0]) - 5)
    np.testing.assert_allclose(weights, e / e.sum(), rtol=1e-15)
    with pytest.raises(ShapeError):
        online_softmax_steps([1.0, np.inf])


@pytest.mark.parametrize("lq,lk,b_r,b_c", [(4, 4, 2, 2), (7, 5, 3, 2), (1, 9, 1, 4), (9, 9, 9, 1), (10, 3, 4, 3)])
def test_step_count_without_a_mask(lq, lk, b_r, b_c):
    p = FlashProblem(np.ones((lq, 2)), np.ones((lk, 2)), np.ones((lk, 2)), scale=1.0)
    counts = tiles_per_block(p, b_r, b_c)
    assert counts == [math.ceil(lk / b_c)] * math.ceil(lq / b_r)  # T_r blocks of T_c tiles each
    assert flash_attention(p, b_r, b_c).tiles_computed == math.ceil(lq / b_r) * math.ceil(lk / b_c)


@pytest.mark.parametrize("n,b", [(4, 2), (8, 2), (9, 3), (16, 4), (5, 1)])
def test_causal_skips_the_tiles_above_the_diagonal(n, b):
    # square tiles on the diagonal: block i needs tiles 0 … i, T(T + 1)/2 in all, the other T(T − 1)/2 skipped
    t = math.ceil(n / b)
    p = FlashProblem(np.ones((n, 2)), np.ones((n, 2)), np.ones((n, 2)), scale=1.0, causal=True)
    assert tiles_per_block(p, b, b) == list(range(1, t + 1))
    r = flash_attention(p, b, b)
    assert (r.tiles_computed, r.tiles_skipped) == (t * (t + 1) // 2, t * (t - 1) // 2)
    last = block_steps(p, b, b, 0)
    assert last.skipped == tuple(range(1, t)) and [s.tile for s in last.steps] == [0]


def test_a_skipped_tile_is_wholly_masked_and_a_kept_one_is_not():
    p = FlashProblem(np.ones((6, 1)), np.ones((6, 1)), np.ones((6, 1)), scale=1.0, causal=True)
    for i in range(3):
        run = block_steps(p, 2, 3, i)
        for s in run.steps:
            assert np.isfinite(s.scores).any()
        for j in run.skipped:  # every (row, key) of the tile has key > row
            assert j * 3 > run.rows[1] - 1


def test_the_demo_session_by_hand():
    # 追 (row 1) scores 4/√3 with 猫 and 激光点 and 0 with 追, 红色: B = 2 keeps m = 4/√3 over both tiles
    p = head_problem(run_pipeline(demo_session().matrices, demo_session().settings), 0)
    one, two = block_steps(p, 2, 2, 0).steps
    a = 4 / math.sqrt(3)
    assert one.m_new[1] == pytest.approx(a, rel=1e-15) and one.l_new[1] == pytest.approx(1 + math.exp(-a), rel=1e-15)
    assert two.rescale[1] == 1.0 and two.l_new[1] == pytest.approx(2 + 2 * math.exp(-a), rel=1e-15)
    # 激光点 (row 3): 0.6/√3, 0 then 4/√3, 2.6/√3 — the max moves, so ℓ is rescaled by e^{−3.4/√3}
    three, four = block_steps(p, 2, 2, 1).steps
    r3 = math.sqrt(3)
    assert three.m_new[1] == pytest.approx(0.6 / r3, rel=1e-15)
    assert four.rescale[1] == pytest.approx(math.exp(-3.4 / r3), rel=1e-14)
    ell = (1 + math.exp(-0.6 / r3)) * math.exp(-3.4 / r3) + 1 + math.exp(-1.4 / r3)
    assert four.l_new[1] == pytest.approx(ell, rel=1e-14)


SESSIONS = [(demo_session(), {}), (demo_session(), {"causal": True, "temperature": 0.3}),
            (grouped_query_session(), {}), (grouped_query_session(), {"positions": "alibi", "causal": False}),
            (translation_session(), {"temperature": 2.0}),
            (random_session(12, 8, seed=5), {"heads": 2, "rope": True, "causal": True, "scale_mode": "none"}),
            (random_session(7, 4, seed=1), {"heads": 2, "scale_mode": "custom", "scale": 3.0, "temperature": 0.05})]


@pytest.mark.parametrize("session,changes", SESSIONS)
def test_equals_the_sessions_own_output_for_every_head(session, changes):
    r = run_pipeline(session.matrices, replace(session.settings, **changes))
    for head in range(r.n_heads):
        p = head_problem(r, head)
        for b_r, b_c in [(1, 1), (2, 3), (p.n_queries, p.n_keys), (default_tile(p.n_queries), 2)]:
            got = flash_attention(p, b_r, b_c).output
            np.testing.assert_allclose(got, r.heads.head_outputs[head], rtol=0, atol=1e-12)


def test_bad_tile_sizes_and_blocks_are_named():
    p = FlashProblem(np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 2)), scale=1.0)
    for b_r, b_c, word in [(0, 2, "B_r"), (2, 5, "B_c"), (2.5, 2, "B_r"), (True, 2, "B_r")]:
        with pytest.raises(ShapeError, match=word):
            flash_attention(p, b_r, b_c)
    with pytest.raises(ShapeError, match="block 3"):
        block_steps(p, 2, 2, 2)


def test_default_and_smallest_tiles():
    assert default_tile(4) == 2 and default_tile(1) == 1 and default_tile(3) == 2
    assert [default_tile(n) for n in (16, 32, 64, 4096)] == [2, 4, 8, 512]
    assert smallest_tile(64) == 1 and smallest_tile(65) == 2 and smallest_tile(4096) == 64
    for n in range(1, 300):
        assert smallest_tile(n) <= default_tile(n) <= n and math.ceil(n / default_tile(n)) <= 64


def test_the_papers_accounting():
    # Theorem 2 at N = 1024, d = 64, M = 51 200: N·d + N² = 1 114 112; N²d²/M = 1024²·64²/51 200 = 83 886.08
    h = HbmModel(1024, 1024, 64, 51_200)
    assert h.standard == 1024 * 64 + 1024 ** 2 == 1_114_112 and h.flash == pytest.approx(83_886.08)
    assert h.in_range and h.paper_tiles == (64, 200)
    assert not HbmModel(4, 4, 3, 51_200).in_range  # N·d = 12 < M: it all fits on chip
    assert working_set(2, 2, 3, 3) == 6 + 6 + 6 + 4 + 6 + 4


def test_the_strip_puts_each_tile_in_place():
    p = FlashProblem(np.array([[1.0], [2.0], [3.0]]), np.array([[1.0], [-1.0], [0.5]]), np.ones((3, 1)),
                     scale=1.0, causal=True)
    run = block_steps(p, 2, 2, 0)  # rows 0, 1; keys (0, 1) computed, key 2 above the diagonal: skipped
    assert run.skipped == (1,)
    np.testing.assert_array_equal(run.strip(), [[1.0, -np.inf, -np.inf], [2.0, -2.0, -np.inf]])
