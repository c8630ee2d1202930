"""Generation with a K/V cache: stacked decode rows equal full causal attention; costs by hand."""
import math
from dataclasses import replace

import numpy as np
import pytest

from explorer.core.errors import ShapeError
from explorer.core.kv_cache import (DecodeShape, Decoder, cache_bytes_per_token, cost_curves, decode_steps,
                                    step_cost)
from explorer.core.pipeline import run_pipeline
from explorer.core.presets import demo_session
from explorer.core.session import Settings


def naive_causal(q, k, v, heads):
    """Full causal attention, one query at a time, written from the definition."""
    L, d = q.shape
    dh, dv = d // heads, v.shape[1] // heads
    out = np.zeros((L, v.shape[1]))
    for h in range(heads):
        for i in range(L):
            s = [q[i, h * dh:(h + 1) * dh] @ k[j, h * dh:(h + 1) * dh] / math.sqrt(dh) for j in range(i + 1)]
            e = np.exp(np.array(s) - max(s))
            w = e / e.sum()
            out[i, h * dv:(h + 1) * dv] = w @ v[:i + 1, h * dv:(h + 1) * dv]
    return out


@pytest.mark.parametrize("heads, prefill", [(1, 1), (2, 3), (4, 7)])
def test_stacked_decode_rows_equal_causal_attention(heads, prefill):
    rng = np.random.default_rng(heads)
    mats = {n: rng.standard_normal((7, 8)) for n in "QKV"}
    decoder = Decoder(mats, Settings(heads=heads), prefill=prefill)  # not causal: decoding is anyway
    want = naive_causal(mats["Q"], mats["K"], mats["V"], heads)
    np.testing.assert_allclose(decoder.outputs(), want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("changes", [dict(rope=True), dict(positions="alibi"), dict(rope=True, positions="alibi"),
                                     dict(temperature=0.5, scale_mode="none")])
def test_rope_alibi_and_scale_decode_like_the_full_pipeline(changes):
    rng = np.random.default_rng(3)
    mats = {n: rng.standard_normal((6, 8)) for n in "QKV"}
    settings = Settings(heads=2, **changes)
    full = run_pipeline(mats, replace(settings, causal=True))
    decoder = Decoder(mats, settings, prefill=2)
    np.testing.assert_allclose(decoder.outputs(), full.heads.output, rtol=0, atol=1e-12)
    last = decoder.step(decoder.n_steps - 1)  # the last query's 1 × L rows are the full heatmap's last row
    np.testing.assert_allclose(last.weights[:, 0], full.heads.weights[:, -1], rtol=0, atol=1e-12)


def test_projected_sessions_decode_through_w_o():
    from explorer.core.presets import PRESETS
    projected = [p() for p in PRESETS.values() if p().settings.source == "projected"][0]
    full = run_pipeline(projected.matrices, replace(projected.settings, causal=True))
    np.testing.assert_allclose(Decoder(projected.matrices, projected.settings).outputs(), full.heads.output,
                               rtol=0, atol=1e-12)


def test_a_step_holds_views_into_the_cache_not_copies():
    demo = demo_session()
    decoder = Decoder(demo.matrices, demo.settings, prefill=2)
    step = decoder.step(1)  # the cache goes from 2 to 3 tokens
    assert (step.start, step.stop) == (2, 3) and step.weights.shape == (1, 1, 3)
    assert np.shares_memory(step.k_cache, decoder.k_cache) and step.k_cache.base is not None
    assert step.k_cache.shape == (3, 3) and np.isclose(step.weights.sum(), 1.0)
    assert decoder.step_at(1).index == 0 and decoder.step_at(4).index == 2


def test_bad_steps_say_what_is_allowed():
    demo = demo_session()
    decoder = Decoder(demo.matrices, demo.settings)
    with pytest.raises(IndexError, match=r"step 4 is out of range: this decode has steps 0\.\.3"):
        decoder.step(4)
    with pytest.raises(IndexError, match=r"t = 0 is out of range: the cache holds 1\.\.4 tokens"):
        decoder.step_at(0)
    with pytest.raises(ShapeError, match="the prefill must hold 1 to 4 tokens"):
        decode_steps(4, prefill=5)


def test_costs_by_hand():
    shape = DecodeShape(heads=1, q_width=2, k_width=2, v_width=2)  # Q, K, V edited directly, d = 2
    # step 1 → 2 with the cache: query 1 dots keys 0, 1 (2 × 2) and mixes 2 rows of V (2 × 2)
    assert step_cost(shape, 1, 2, cached=True) == (8, (1 * 6 + 2 * 4) * 4)
    # without: queries 0 and 1 again (1 + 2 pairs × 4) and every input row again
    assert step_cost(shape, 1, 2, cached=False) == (12, (2 * 6 + 2 * 4) * 4)
    curves = cost_curves(shape, decode_steps(3))
    np.testing.assert_array_equal(curves["cached"]["macs"], [4, 8, 12])
    np.testing.assert_array_equal(curves["recomputed"]["macs"], [4, 12, 24])
    np.testing.assert_array_equal(curves["recomputed"]["total_macs"], [4, 16, 40])


def test_costs_of_projected_and_grouped_shapes_by_hand():
    # D = 4 → H = 2 heads of d_h = 2, one K/V head (k, v widths 2), W_o back to 4
    shape = DecodeShape(heads=2, q_width=4, k_width=2, v_width=2, d_model=4, d_out=4)
    macs, read = step_cost(shape, 0, 1)
    # projections 1 × 4 × (4 + 2 + 2) = 32; attention 2 heads × 1 pair × (2 + 2) = 8; W_o 1 × 4 × 4 = 16
    assert macs == 32 + 8 + 16
    # X row 4, weights 4 × 8 + 4 × 4 = 48, cache 1 × (2 + 2) = 4 numbers, 4 bytes each
    assert read == (4 + 48 + 4) * 4


def test_cache_size_per_token_of_real_models():
    assert cache_bytes_per_token(32, 32, 128, 2) == 512 * 1024  # Llama-2-7B in float16: 0.5 MiB a token
    assert cache_bytes_per_token(32, 8, 128, 2) == 128 * 1024   # Llama-3-8B, 8 K/V heads: 4× less


def test_grouped_kv_heads_decode_like_the_full_pipeline():
    from explorer.core.presets import grouped_query_session
    g = grouped_query_session()
    full = run_pipeline(g.matrices, g.settings)  # causal already
    decoder = Decoder(g.matrices, g.settings, prefill=2)
    assert decoder.k_cache.shape == (6, 4)  # 2 K/V heads of d_h = 2 cached, not 8
    np.testing.assert_allclose(decoder.outputs(), full.heads.output, rtol=0, atol=1e-12)


def test_cross_attention_decodes_queries_against_a_fixed_encoder_cache():
    from explorer.core.presets import translation_session
    t = translation_session()
    full = run_pipeline(t.matrices, t.settings)  # no causal mask: cross-attention has none
    decoder = Decoder(t.matrices, t.settings, cross=True)
    first, last = decoder.step(0), decoder.step(decoder.n_steps - 1)
    assert first.k_cache.shape == last.k_cache.shape == (4, 4)  # every step reads all four source rows
    assert decoder.n_steps == 7 and last.weights.shape == (1, 1, 4)
    np.testing.assert_allclose(decoder.outputs(), full.heads.output, rtol=0, atol=1e-12)


def test_cross_costs_by_hand():
    # 1 head, d = 2, 3 encoder keys; Q, K, V edited directly
    shape = DecodeShape(heads=1, q_width=2, k_width=2, v_width=2, cross_keys=3)
    # the first step with the cache: query 0 reads 3 keys (3 × 4 MACs); inputs: its q (2) and the 3 K, V rows (12)
    assert step_cost(shape, 0, 1, cached=True) == (12, (2 + 12 + 3 * 4) * 4)
    # a later step: only the new query's row is new; the encoder's K, V stay cached
    assert step_cost(shape, 1, 2, cached=True) == (12, (2 + 3 * 4) * 4)
    # without the cache: both queries again, and K, V again
    assert step_cost(shape, 1, 2, cached=False) == (24, (4 + 12 + 3 * 4) * 4)
