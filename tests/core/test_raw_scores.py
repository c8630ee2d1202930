"""The shown head's QKᵀ kept from one recompute to the next (``RawScores``, issue 18): a temperature or
scale step reuses it and the results are still the plain pipeline's bit for bit; anything that changes
the head's q or k (an edit, RoPE, positions, another head) makes it again; nothing is kept above
KEEP_CELLS. The reference is ``run_pipeline``, the chapter's formulas in fresh arrays."""
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import pytest

from explorer.core import raw_scores
from explorer.core import head_steps as hs, recompute as rc
from explorer.core.pipeline import run_pipeline
from explorer.core.raw_scores import RawScores
from explorer.core.session import Settings
from tests.core.recompute_checks import assert_same


def direct(length, d, dv, seed=0, kv_width=None):
    rng = np.random.default_rng(seed)
    return {"Q": rng.standard_normal((length, d)), "K": rng.standard_normal((length, kv_width or d)),
            "V": rng.standard_normal((length, dv))}


def projected(length, width, d, seed=0):
    rng = np.random.default_rng(seed)
    return {"X": rng.standard_normal((length, width)), "Wq": rng.standard_normal((d, width)),
            "Wk": rng.standard_normal((d, width)), "Wv": rng.standard_normal((d, width)),
            "Wo": rng.standard_normal((width, d))}


def shown_first(mats, settings, raw, sharing, previous=None):
    """A recompute as the worker runs it: the selected head first, handed over, then the rest."""
    first = settings.selected_head
    order = [first] + [h for h in range(settings.heads) if h != first]
    partials = []
    got = rc.recompute(mats, settings, previous=previous, order=order, summarise=order[:1],
                       on_shown=partials.append, raw=raw, **sharing)
    assert len(partials) == 1 and partials[0].partial_head == first
    return got


SESSIONS = {
    "plain": (direct(23, 8, 8, seed=1), Settings(heads=2, selected_head=1)),
    "causal, RoPE": (direct(23, 8, 8, seed=2), Settings(heads=2, causal=True, rope=True)),
    "ALiBi": (direct(23, 8, 8, seed=3), Settings(heads=4, positions="alibi", selected_head=2)),
    "grouped K/V": (direct(23, 8, 8, seed=4, kv_width=4), Settings(heads=4, kv_heads=2, selected_head=3)),
    "projected": (projected(19, 8, 8, seed=5), Settings(source="projected", heads=2, positions="sinusoidal")),
}


@pytest.mark.parametrize("session", SESSIONS, ids=str)
def test_a_temperature_and_scale_drag_reuses_the_product_and_keeps_every_bit(session, sharing):
    mats, settings = SESSIONS[session]
    raw = RawScores()
    steps = [{"temperature": t} for t in (1.0, 0.37, 2.9, 1e-3)]
    steps += [{"scale_mode": "custom", "scale": 0.61}, {"scale_mode": "none"}, {"temperature": 7.0}]
    previous = None
    for k, step in enumerate(steps):
        settings = replace(settings, **step)
        got = shown_first(mats, settings, raw, sharing, previous=previous)
        assert raw.reused == (k > 0), step  # the first step makes it; every later one only multiplies
        assert_same(got, run_pipeline(mats, settings), exact=True)
        previous = got


def test_what_changes_the_shown_heads_q_or_k_makes_the_product_again(sharing):
    mats, settings = direct(21, 8, 8, seed=7), Settings(heads=2, temperature=0.8)
    raw = RawScores()

    def step(expect_reuse, what):
        got = shown_first(mats, settings, raw, sharing)
        assert raw.reused == expect_reuse, what
        assert_same(got, run_pipeline(mats, settings), exact=True)

    step(False, "first")
    mats["Q"][3, 6] += 0.25  # a cell of head 2's columns: head 1's q is the same
    step(True, "Q of another head")
    mats["Q"][3, 1] += 0.25
    step(False, "Q of the shown head")
    mats["K"][5, 0] = 0.0
    step(False, "K of the shown head")
    mats["K"][5, 0] = -0.0  # equal as numbers, not as bits: made again
    step(False, "−0.0 for 0.0")
    mats["V"][:, :] *= 2.0
    step(True, "V")  # V is not in QKᵀ
    settings = replace(settings, causal=True)
    step(True, "a mask")  # masked after the product
    settings = replace(settings, rope=True)
    step(False, "RoPE on")
    settings = replace(settings, rope_offset=3)
    step(False, "RoPE's positions")
    settings = replace(settings, selected_head=1)
    step(False, "another head shown")
    settings = replace(settings, temperature=1.7)
    step(True, "the temperature")


def test_a_recompute_without_the_shown_head_first_keeps_nothing():
    mats, settings = direct(16, 8, 8), Settings(heads=2)
    raw = RawScores()
    rc.recompute(mats, settings, raw=raw)  # no on_shown: every head alike, nothing kept
    assert raw.kept_bytes == 0 and not raw.reused


def test_nothing_is_kept_above_keep_cells_and_what_was_kept_is_freed(sharing, monkeypatch):
    small, settings = direct(10, 8, 8, seed=8), Settings(heads=2, temperature=0.5)
    raw = RawScores()
    shown_first(small, settings, raw, sharing)
    assert raw.kept_bytes == 10 * 10 * 8  # one head's product, float64
    monkeypatch.setattr(raw_scores, "KEEP_CELLS", 20 * 20 - 1)
    large = direct(20, 8, 8, seed=9)
    for temperature in (0.5, 0.9):
        settings = replace(settings, temperature=temperature)
        got = shown_first(large, settings, raw, sharing)
        assert not raw.reused and raw.kept_bytes == 0
        assert_same(got, run_pipeline(large, settings), exact=True)


def test_a_cancelled_recompute_after_the_product_leaves_a_product_that_is_still_right(sharing):
    """A job stopped once its product was made (a newer request) keeps it: the next job may use it."""
    mats, settings = direct(17, 8, 8, seed=10), Settings(heads=2, temperature=0.9)
    raw = RawScores()
    calls = []

    def cancelled():
        calls.append(1)
        return len(calls) > 1  # yes from the check after QKᵀ on

    assert rc.recompute(mats, settings, order=[0, 1], cancelled=cancelled, on_shown=lambda p: None, raw=raw,
                        **sharing) is None
    settings = replace(settings, temperature=1.1)
    got = shown_first(mats, settings, raw, sharing)
    assert raw.reused
    assert_same(got, run_pipeline(mats, settings), exact=True)


def test_a_recompute_overtaken_while_it_showed_its_head_gives_the_lanes_nothing_more(monkeypatch):
    """The worker's job is superseded as it hands its head over: it returns at once, no lane begun."""
    monkeypatch.setattr(hs, "BLOCK_CELLS", 64)  # the shown head in several bands, shared with the lane
    class Counting(ThreadPoolExecutor):
        submitted = 0

        def submit(self, *args, **kwargs):
            Counting.submitted += 1
            return super().submit(*args, **kwargs)

    shown = []  # how many tasks the lanes had been given when the head was shown (its bands, first touch)
    with Counting(1) as pool:
        got = rc.recompute(direct(16, 8, 8), Settings(heads=2), order=[1, 0], cancelled=lambda: bool(shown),
                           on_shown=lambda p: shown.append(Counting.submitted), raw=RawScores(), executor=pool,
                           lanes=2)
    assert got is None and len(shown) == 1
    assert shown[0] > 0 and Counting.submitted == shown[0]  # nothing submitted after it was shown
