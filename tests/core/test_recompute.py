"""The fast recompute (kept buffers, head by head, only what an edit touched) against the plain pipeline."""
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings as hyp_settings, strategies as st

from explorer.core import head_steps as hs, recompute as rc
from explorer.core.errors import NonFiniteError
from explorer.core.heads import head_count_options
from explorer.core.pipeline import run_pipeline
from explorer.core.session import Settings
from tests.core.recompute_checks import STAGES, assert_same, edit_and_compare

def direct(length, d, dv, seed=0):
    rng = np.random.default_rng(seed)
    return {"Q": rng.standard_normal((length, d)), "K": rng.standard_normal((length, d)),
            "V": rng.standard_normal((length, dv))}


def projected(length, width, d, dv, seed=0):
    rng = np.random.default_rng(seed)
    return {"X": rng.standard_normal((length, width)), "Wq": rng.standard_normal((d, width)),
            "Wk": rng.standard_normal((d, width)), "Wv": rng.standard_normal((dv, width)),
            "Wo": rng.standard_normal((dv, dv))}


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("rope", [False, True])
@pytest.mark.parametrize("heads", [1, 2, 4])
def test_a_whole_recompute_is_the_pipeline_bit_for_bit(causal, rope, heads):
    mats = direct(9, 8, 4, seed=heads)
    s = Settings(heads=heads, causal=causal, rope=rope, temperature=0.7)
    want, got = run_pipeline(mats, s), rc.recompute(mats, s)
    for stage in STAGES:
        np.testing.assert_array_equal(getattr(got.heads, stage), getattr(want.heads, stage), err_msg=stage)


def test_projected_mode_with_positions_and_wo():
    mats = projected(7, 6, 4, 4, seed=3)
    s = Settings(source="projected", positions="sinusoidal", heads=2, causal=True)
    assert_same(rc.recompute(mats, s), run_pipeline(mats, s))


def test_buffers_are_reused_when_the_shapes_fit_and_fresh_when_not():
    mats, s = direct(6, 4, 4), Settings(heads=2)
    first = rc.recompute(mats, s)
    again = rc.recompute(mats, replace(s, temperature=2.0), previous=first)
    assert again.heads.scores is first.heads.scores and again.heads.weights is first.heads.weights
    assert_same(again, run_pipeline(mats, replace(s, temperature=2.0)))
    other = rc.recompute(mats, Settings(heads=4), previous=first)
    assert other.heads.scores is not first.heads.scores
    assert_same(other, run_pipeline(mats, Settings(heads=4)))


def test_small_softmax_blocks_give_the_same_weights(monkeypatch):
    monkeypatch.setattr(hs, "BLOCK_CELLS", 7)  # blocks of one row at L = 9
    mats, s = direct(9, 4, 4, seed=5), Settings(heads=2, causal=True)
    assert_same(rc.recompute(mats, s), run_pipeline(mats, s))


def test_a_cancelled_recompute_returns_none_and_the_order_does_not_matter():
    mats, s = direct(8, 6, 6, seed=2), Settings(heads=3)
    calls = []
    assert rc.recompute(mats, s, cancelled=lambda: calls.append(1) or len(calls) > 2) is None
    assert_same(rc.recompute(mats, s, order=[2, 0, 1], cancelled=lambda: False), run_pipeline(mats, s))


def test_a_fully_masked_row_gets_zero_weights_not_nan():
    mats, s = direct(4, 2, 2), Settings()
    inputs = rc.prepare(mats, s)
    mask = np.ones((4, 4), bool)
    mask[1] = False
    inputs = replace(inputs, mask=mask, masked_rows=~mask.any(axis=1))
    bufs = rc.buffers(inputs)
    assert rc.compute_head(inputs, bufs, 0)
    assert np.all(bufs.weights[0, 1] == 0) and np.all(bufs.head_outputs[0, 1] == 0)
    assert np.all(np.isfinite(bufs.weights))
    np.testing.assert_allclose(bufs.row_sums[0], [1, 0, 1, 1])


def test_overflow_is_a_clear_error_naming_the_head():
    mats, s = direct(3, 2, 2), Settings(heads=2, scale_mode="custom", scale=1e3)
    mats["Q"][1, 1] = mats["K"][2, 1] = 1e306  # the second head's column: head 2, as the window counts
    with pytest.raises(NonFiniteError, match="head 2,"):
        rc.recompute(mats, s)


@hyp_settings(max_examples=60, deadline=None)
@given(length=st.integers(1, 12), d_mult=st.integers(1, 3), dv_mult=st.integers(1, 3),
       heads=st.sampled_from([1, 2, 3]), causal=st.booleans(), rope=st.booleans(),
       temperature=st.sampled_from([0.3, 1.0, 4.0]), seed=st.integers(0, 10_000),
       edits=st.lists(st.tuples(st.sampled_from("QKV"), st.integers(0, 99), st.integers(0, 99),
                                st.integers(1, 3), st.integers(1, 3)), min_size=1, max_size=6))
def test_edits_applied_in_place_equal_a_whole_recompute(length, d_mult, dv_mult, heads, causal, rope, temperature,
                                                         seed, edits):
    d = heads * d_mult * (2 if rope else 1)
    dv = heads * dv_mult
    mats = direct(length, d, dv, seed)
    s = Settings(heads=heads, causal=causal, rope=rope, temperature=temperature, rope_offset=seed % 7)
    result = rc.recompute(mats, s)
    edit_and_compare(result, mats, s, edits, seed)


def test_costs_grow_with_the_work():
    small, big = direct(8, 8, 8), direct(64, 8, 8)
    s = Settings(heads=2)
    assert rc.full_cost(big, s) > 50 * rc.full_cost(small, s)
    r = rc.recompute(big, s)
    assert rc.edit_cost(r, "Q", [0], [0]) < rc.edit_cost(r, "K", [0], [0])
    assert rc.edit_cost(r, "Q", [0], [0]) < rc.edit_cost(r, "Q", [0], [0, 7])  # two heads
    assert head_count_options(8, 8) == [1, 2, 4, 8]


@pytest.mark.parametrize("lanes", [2, 3])
@pytest.mark.parametrize("causal", [False, True])
def test_heads_shared_out_between_threads_give_the_same_bits(lanes, causal):
    from concurrent.futures import ThreadPoolExecutor

    mats = direct(33, 16, 8, seed=lanes)
    s = Settings(heads=4, causal=causal, temperature=0.8)
    want = rc.recompute(mats, s)
    with ThreadPoolExecutor(lanes - 1) as pool:
        got = rc.recompute(mats, s, order=[2, 0, 3, 1], executor=pool, lanes=lanes)
        again = rc.recompute(mats, s, previous=got, executor=pool, lanes=lanes)  # into the same buffers
    for stage in STAGES:
        np.testing.assert_array_equal(getattr(got.heads, stage), getattr(want.heads, stage), err_msg=stage)
        np.testing.assert_array_equal(getattr(again.heads, stage), getattr(want.heads, stage), err_msg=stage)
    assert_same(got, run_pipeline(mats, s))


def test_threads_name_the_first_overflowing_head_in_order_and_stop_together_when_cancelled():
    from concurrent.futures import ThreadPoolExecutor

    mats, s = direct(3, 8, 4), Settings(heads=4, scale_mode="custom", scale=1e3)
    mats["Q"][1, 2:4] = mats["K"][2, 2:4] = 1e306  # index 1 overflows (the message counts from 1: head 2)
    mats["Q"][1, 6:8] = mats["K"][2, 6:8] = 1e306  # and index 3 (head 4)
    with ThreadPoolExecutor(1) as pool:
        for order, named in (([0, 1, 2, 3], "head 2,"), ([3, 2, 1, 0], "head 4,"), ([2, 1, 3, 0], "head 2,")):
            with pytest.raises(NonFiniteError, match=named):
                rc.recompute(mats, s, order=order, executor=pool, lanes=2)
        assert rc.recompute(direct(9, 8, 4), Settings(heads=4), executor=pool, lanes=2,
                            cancelled=lambda: True) is None


def test_row_sums_left_out_are_made_when_asked_and_kept():
    mats, s = direct(10, 8, 4, seed=5), Settings(heads=4, causal=True)
    got = rc.recompute(mats, s, order=[2, 0, 1, 3], summarise=[2])
    assert not np.isnan(got.heads.row_sums[2]).any() and np.isnan(got.heads.row_sums[0]).all()
    assert_same(got, run_pipeline(mats, s))  # asks every head: made on the spot
    assert not np.isnan(got.heads.row_sums).any()
    mats["Q"][3, 1] += 1.0  # an edit in place after a head was left unsummarised keeps them right
    fresh = rc.recompute(mats, s, summarise=[])
    mats["Q"][4, 5] -= 2.0
    rc.apply_edit(fresh, mats, s, "Q", [4], [5])
    assert_same(fresh, run_pipeline(mats, s))


def test_an_overflow_to_minus_infinity_is_caught_though_the_row_maximum_stays_finite():
    mats, s = direct(3, 2, 2), Settings(heads=1, scale_mode="custom", scale=1e3)
    mats["Q"][1] = [1e306, 0.0]
    mats["K"][2] = [-1e306, 0.0]  # q₁·k₂ = −∞
    with pytest.raises(NonFiniteError, match="head 1,"):
        rc.recompute(mats, s, summarise=[])


def test_a_failing_head_stops_the_other_lanes_after_it_but_not_before_it(monkeypatch):
    import threading
    from concurrent.futures import ThreadPoolExecutor

    mats, s = direct(6, 16, 8), Settings(heads=8, scale_mode="custom", scale=1e3)
    mats["Q"][1, 0:2] = mats["K"][2, 0:2] = 1e306  # head 0 overflows
    recorded, touched = threading.Event(), []

    class RecordingLock:  # the lanes' lock: released once head 0's failure is recorded
        def __init__(self):
            self.lock = threading.Lock()

        def __enter__(self):
            self.lock.acquire()

        def __exit__(self, *exc):
            self.lock.release()
            recorded.set()

    real = rc.compute_head

    def held_back(inputs, bufs, h, cancelled=None, summarise=True):
        touched.append(h)
        if h != 0:
            assert recorded.wait(10)  # the other lane starts its head only once head 0 has failed
        return real(inputs, bufs, h, cancelled, summarise)

    monkeypatch.setattr(rc, "Lock", RecordingLock)
    monkeypatch.setattr(rc, "compute_head", held_back)
    with ThreadPoolExecutor(1) as pool, pytest.raises(NonFiniteError, match="head 1,"):
        rc.recompute(mats, s, executor=pool, lanes=2)
    assert sorted(touched) == [0, 1]  # head 1 gave up at its first check; heads 3, 5, 7 never began
