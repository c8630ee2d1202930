"""Cross-checks against PyTorch (float64): SDPA, nn.MultiheadAttention, the Llama and GPT-J rotary conventions.

Skipped where torch is not installed (CI). Tolerance 1e-10 (the product promise); most checks also hold at 1e-12.

What torch does with a fully masked row (torch 2.13, CPU, float64), as pinned below:
- ``F.scaled_dot_product_attention`` (bool or -inf float mask, every backend reachable on CPU) returns a
  zero output row — the same as ours. (Older torch returned NaN there; the math backend now uses a "safe"
  softmax.)
- ``nn.MultiheadAttention`` returns NaN for that row (output and weights) when ``need_weights=True``, because
  that path runs a plain softmax over an all -inf row; with ``need_weights=False`` it goes through SDPA and
  returns zeros. Ours always gives zero weights, zero output, and reports the row in ``masked_rows``.
- ``torch.softmax`` of an all -inf row is NaN; ``explorer.core.softmax`` gives zeros.
- ``is_causal=True`` with Lq != Lk aligns the triangle top-left; ``explorer.core`` aligns it bottom-right
  (the KV-cache convention of ``torch.nn.attention.bias.causal_lower_right``).
"""
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

torch = pytest.importorskip("torch")
F = torch.nn.functional

from explorer.core import (attention, causal_mask, multi_head_attention, rope, rope_frequencies,  # noqa: E402
                           self_attention, sinusoidal_positions, softmax)
from explorer.core.rope import half_to_interleaved  # noqa: E402

TOL = dict(rtol=1e-10, atol=1e-10)
TIGHT = dict(rtol=1e-12, atol=1e-12)
PROPS = settings(max_examples=40, deadline=None, database=None)


def t(a):
    return torch.from_numpy(np.array(a, dtype=np.float64))


def n(x):
    return x.detach().numpy()


def sdpa(q, k, v, **kw):
    """torch SDPA on numpy arrays, float64, (…, L, d)."""
    if isinstance(kw.get("attn_mask"), np.ndarray):
        kw["attn_mask"] = torch.from_numpy(kw["attn_mask"])
    with torch.no_grad():
        return n(F.scaled_dot_product_attention(t(q), t(k), t(v), **kw))


def torch_weights(q, k, scale, mask=None):
    s = t(q) @ t(k).transpose(-1, -2) * scale
    if mask is not None:
        s = s.masked_fill(~torch.from_numpy(np.asarray(mask)), -math.inf)
    return n(torch.softmax(s, dim=-1))


@pytest.fixture
def rng():
    return np.random.default_rng(20240611)


# ---------------------------------------------------------------- softmax

def test_softmax_matches_torch(rng):
    x = rng.standard_normal((6, 9)) * 30
    np.testing.assert_allclose(softmax(x), n(torch.softmax(t(x), -1)), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(softmax(x, axis=0), n(torch.softmax(t(x), 0)), rtol=1e-13, atol=1e-15)
    x[2, [1, 4]] = -np.inf
    np.testing.assert_allclose(softmax(x), n(torch.softmax(t(x), -1)), rtol=1e-13, atol=1e-15)


def test_all_minus_inf_row_torch_gives_nan_we_give_zeros():
    x = np.array([[-np.inf, -np.inf], [0.0, 1.0]])
    assert torch.isnan(torch.softmax(t(x), -1)[0]).all()  # documented difference
    np.testing.assert_array_equal(softmax(x)[0], [0.0, 0.0])


# ---------------------------------------------------------------- scaled_dot_product_attention

@pytest.mark.parametrize("lq, lk, d, dv", [(1, 1, 1, 1), (4, 4, 3, 3), (3, 7, 8, 2), (9, 2, 5, 6), (64, 64, 32, 32)])
def test_sdpa_default_scale(rng, lq, lk, d, dv):
    q, k, v = rng.standard_normal((lq, d)), rng.standard_normal((lk, d)), rng.standard_normal((lk, dv))
    r = attention(q, k, v)
    np.testing.assert_allclose(r.output, sdpa(q, k, v), **TIGHT)
    np.testing.assert_allclose(r.weights, torch_weights(q, k, 1 / math.sqrt(d)), **TIGHT)


@pytest.mark.parametrize("scale, temperature", [(1.0, 1.0), (0.05, 1.0), (3.0, 1.0), (0.5, 2.5), (1.0, 0.1)])
def test_sdpa_custom_scale_and_temperature(rng, scale, temperature):
    q, k, v = rng.standard_normal((5, 4)), rng.standard_normal((6, 4)), rng.standard_normal((6, 3))
    r = attention(q, k, v, scale=scale, temperature=temperature)
    np.testing.assert_allclose(r.output, sdpa(q, k, v, scale=scale / temperature), **TIGHT)


def test_sdpa_boolean_mask_same_convention(rng):
    q, k, v = rng.standard_normal((5, 4)), rng.standard_normal((7, 4)), rng.standard_normal((7, 3))
    mask = rng.random((5, 7)) < 0.6
    mask[:, 0] = True  # no fully masked row here
    r = attention(q, k, v, mask=mask)
    np.testing.assert_allclose(r.output, sdpa(q, k, v, attn_mask=mask), **TIGHT)
    np.testing.assert_allclose(r.weights, torch_weights(q, k, 0.5, mask), **TIGHT)
    # a key-padding mask (Lk,) broadcasts the same way in both
    pad = np.array([True, True, False, True, False, True, True])
    np.testing.assert_allclose(attention(q, k, v, mask=pad).output, sdpa(q, k, v, attn_mask=pad), **TIGHT)


def test_sdpa_is_causal_square(rng):
    q, k, v = rng.standard_normal((6, 4)), rng.standard_normal((6, 4)), rng.standard_normal((6, 5))
    np.testing.assert_allclose(attention(q, k, v, causal=True).output, sdpa(q, k, v, is_causal=True), **TIGHT)


def test_sdpa_causal_and_mask_together(rng):
    q, k, v = rng.standard_normal((6, 4)), rng.standard_normal((6, 4)), rng.standard_normal((6, 5))
    mask = rng.random((6, 6)) < 0.7
    np.fill_diagonal(mask, True)
    ours = attention(q, k, v, mask=mask, causal=True)
    np.testing.assert_allclose(ours.output, sdpa(q, k, v, attn_mask=mask & np.tril(np.ones((6, 6), bool))), **TIGHT)


@pytest.mark.parametrize("lq, lk", [(2, 5), (1, 4), (5, 5)])
def test_causal_rectangular_is_torchs_lower_right(rng, lq, lk):
    from torch.nn.attention.bias import causal_lower_right

    q, k, v = rng.standard_normal((lq, 4)), rng.standard_normal((lk, 4)), rng.standard_normal((lk, 3))
    np.testing.assert_array_equal(causal_mask(lq, lk), n(causal_lower_right(lq, lk)._materialize()))
    with torch.no_grad():
        ref = F.scaled_dot_product_attention(t(q)[None, None], t(k)[None, None], t(v)[None, None],
                                             attn_mask=causal_lower_right(lq, lk))[0, 0]
    np.testing.assert_allclose(attention(q, k, v, causal=True).output, n(ref), **TIGHT)


def test_is_causal_rectangular_is_top_left_unlike_ours(rng):
    # documented difference: torch's is_causal with Lq != Lk keeps the upper-left triangle
    q, k, v = rng.standard_normal((2, 4)), rng.standard_normal((5, 4)), rng.standard_normal((5, 3))
    torch_causal = sdpa(q, k, v, is_causal=True)
    top_left = np.tril(np.ones((2, 5), dtype=bool))
    np.testing.assert_allclose(attention(q, k, v, mask=top_left).output, torch_causal, **TIGHT)
    assert not np.allclose(attention(q, k, v, causal=True).output, torch_causal)


def test_fully_masked_row_torch_sdpa_gives_zeros_like_ours(rng):
    q, k, v = rng.standard_normal((4, 3)), rng.standard_normal((5, 3)), rng.standard_normal((5, 2)) + 5
    mask = np.ones((4, 5), dtype=bool)
    mask[2] = False
    ours = attention(q, k, v, mask=mask)
    ref = sdpa(q, k, v, attn_mask=mask)
    assert not np.isnan(ref).any(), "this torch returns NaN for a fully masked row (torch < 2.5 did)"
    np.testing.assert_array_equal(ref[2], [0.0, 0.0])
    np.testing.assert_array_equal(ours.output[2], [0.0, 0.0])
    np.testing.assert_allclose(ours.output, ref, **TIGHT)
    assert ours.masked_rows.tolist() == [False, False, True, False]
    # the same with an additive -inf float mask, and with 4-D (B, H, L, d) inputs
    fmask = np.where(mask, 0.0, -np.inf)
    np.testing.assert_allclose(sdpa(q, k, v, attn_mask=t(fmask)), ours.output, **TIGHT)
    ref4 = sdpa(q[None, None], k[None, None], v[None, None], attn_mask=mask)[0, 0]
    np.testing.assert_allclose(ref4, ours.output, **TIGHT)


def test_fully_masked_rows_from_lower_right_causal_with_more_queries(rng):
    from torch.nn.attention.bias import causal_lower_right

    q, k, v = rng.standard_normal((5, 3)), rng.standard_normal((2, 3)), rng.standard_normal((2, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Lower right causal bias will produce NaNs ..."
        bias = causal_lower_right(5, 2)
    with torch.no_grad():
        ref = n(F.scaled_dot_product_attention(t(q)[None, None], t(k)[None, None], t(v)[None, None],
                                               attn_mask=bias)[0, 0])
    ours = attention(q, k, v, causal=True)
    assert ours.masked_rows.tolist() == [True, True, True, False, False]
    np.testing.assert_allclose(ours.output, ref, **TIGHT)  # torch 2.13: zeros, not the NaNs it warns about


def test_math_backend_weights_equal_ours(rng):
    op = getattr(torch.ops.aten, "_scaled_dot_product_attention_math", None)
    if op is None:
        pytest.skip("private aten op not available")
    q, k, v = rng.standard_normal((4, 3)), rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    mask = rng.random((4, 5)) < 0.6
    mask[1] = False
    # the private op wants an additive float mask (a bool mask would be *added* as 0/1)
    fmask = torch.from_numpy(np.where(mask, 0.0, -np.inf))
    with torch.no_grad():
        out, w = op(t(q), t(k), t(v), fmask, 0.0, False, scale=0.7)
    ours = attention(q, k, v, mask=mask, scale=0.7)
    np.testing.assert_allclose(ours.weights, n(w), **TIGHT)
    np.testing.assert_allclose(ours.output, n(out), **TIGHT)


def test_sdpa_batched_heads(rng):
    q, k, v = rng.standard_normal((2, 3, 5, 4)), rng.standard_normal((2, 3, 6, 4)), rng.standard_normal((2, 3, 6, 4))
    mask = rng.random((5, 6)) < 0.7
    np.testing.assert_allclose(attention(q, k, v, mask=mask).output, sdpa(q, k, v, attn_mask=mask), **TIGHT)


@pytest.mark.parametrize("magnitude, scale", [(1e6, None), (1e150, 1.0), (1.0, 1e300), (1e-200, 1e300)])
def test_sdpa_extreme_but_finite(rng, magnitude, scale):
    q, k = rng.standard_normal((4, 3)) * magnitude, rng.standard_normal((4, 3)) * magnitude
    v = rng.standard_normal((4, 2))
    ours = attention(q, k, v, scale=scale, causal=True)
    assert np.isfinite(ours.output).all()
    np.testing.assert_allclose(ours.output, sdpa(q, k, v, is_causal=True, scale=scale), **TOL)


@st.composite
def sdpa_case(draw):
    lq, lk, d, dv = (draw(st.integers(1, 6)) for _ in range(4))
    el = st.floats(-20, 20, allow_nan=False)
    q = draw(hnp.arrays(np.float64, (lq, d), elements=el))
    k = draw(hnp.arrays(np.float64, (lk, d), elements=el))
    v = draw(hnp.arrays(np.float64, (lk, dv), elements=el))
    mask = draw(st.one_of(st.none(), hnp.arrays(bool, (lq, lk))))
    scale = draw(st.one_of(st.none(), st.floats(0.01, 10)))
    return q, k, v, mask, scale


@PROPS
@given(sdpa_case())
def test_sdpa_agrees_on_random_cases(case):
    q, k, v, mask, scale = case
    ours = attention(q, k, v, mask=mask, scale=scale)
    ref = sdpa(q, k, v, attn_mask=mask, scale=scale)
    np.testing.assert_allclose(ours.output, ref, rtol=1e-10, atol=1e-10 * (1 + np.abs(v).max()))


# ---------------------------------------------------------------- nn.MultiheadAttention

def torch_mha(wq, wk, wv, wo, heads):
    dim = wq.shape[1]
    mha = torch.nn.MultiheadAttention(dim, heads, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([t(wq), t(wk), t(wv)]))
        mha.out_proj.weight.copy_(t(wo))
    return mha.eval()


@pytest.mark.parametrize("length, dim, heads", [(5, 8, 2), (7, 12, 3), (4, 6, 1), (6, 16, 16), (32, 64, 8)])
def test_multihead_attention_matches_torch(rng, length, dim, heads):
    x = rng.standard_normal((length, dim))
    wq, wk, wv, wo = (rng.standard_normal((dim, dim)) / math.sqrt(dim) for _ in range(4))
    ours = multi_head_attention(x @ wq.T, x @ wk.T, x @ wv.T, heads, wo=wo)
    mha = torch_mha(wq, wk, wv, wo, heads)
    with torch.no_grad():
        out, w = mha(t(x)[None], t(x)[None], t(x)[None], need_weights=True, average_attn_weights=False)
    np.testing.assert_allclose(ours.output, n(out[0]), **TIGHT)
    np.testing.assert_allclose(ours.weights, n(w[0]), **TIGHT)
    with torch.no_grad():
        _, w_mean = mha(t(x)[None], t(x)[None], t(x)[None])  # default: weights averaged over heads
    np.testing.assert_allclose(ours.weights.mean(axis=0), n(w_mean[0]), **TIGHT)


def test_multihead_attention_causal_and_masked(rng):
    length, dim, heads = 6, 8, 4
    x = rng.standard_normal((length, dim))
    wq, wk, wv, wo = (rng.standard_normal((dim, dim)) for _ in range(4))
    mha = torch_mha(wq, wk, wv, wo, heads)
    allowed = rng.random((length, length)) < 0.7
    np.fill_diagonal(allowed, True)
    ours = multi_head_attention(x @ wq.T, x @ wk.T, x @ wv.T, heads, wo=wo, mask=allowed, causal=True)
    # nn.MultiheadAttention's boolean attn_mask has the opposite meaning: True = may NOT attend
    blocked = torch.from_numpy(~(allowed & causal_mask(length)))
    with torch.no_grad():
        out, w = mha(t(x)[None], t(x)[None], t(x)[None], attn_mask=blocked, average_attn_weights=False)
        out_fast, _ = mha(t(x)[None], t(x)[None], t(x)[None], attn_mask=blocked, need_weights=False)
    np.testing.assert_allclose(ours.output, n(out[0]), **TIGHT)
    np.testing.assert_allclose(ours.weights, n(w[0]), **TIGHT)
    np.testing.assert_allclose(ours.output, n(out_fast[0]), **TIGHT)


def test_multihead_cross_attention(rng):
    dim, heads = 8, 2
    x, y = rng.standard_normal((3, dim)), rng.standard_normal((5, dim))  # queries from x, keys/values from y
    wq, wk, wv, wo = (rng.standard_normal((dim, dim)) for _ in range(4))
    ours = multi_head_attention(x @ wq.T, y @ wk.T, y @ wv.T, heads, wo=wo)
    with torch.no_grad():
        out, w = torch_mha(wq, wk, wv, wo, heads)(t(x)[None], t(y)[None], t(y)[None], average_attn_weights=False)
    np.testing.assert_allclose(ours.output, n(out[0]), **TIGHT)
    np.testing.assert_allclose(ours.weights, n(w[0]), **TIGHT)


def test_multihead_fully_masked_row_torch_nan_with_weights_zero_without(rng):
    length, dim, heads = 5, 8, 2
    x = rng.standard_normal((length, dim))
    wq, wk, wv, wo = (rng.standard_normal((dim, dim)) for _ in range(4))
    mha = torch_mha(wq, wk, wv, wo, heads)
    allowed = np.ones((length, length), dtype=bool)
    allowed[3] = False
    ours = multi_head_attention(x @ wq.T, x @ wk.T, x @ wv.T, heads, wo=wo, mask=allowed)
    blocked = torch.from_numpy(~allowed)
    with torch.no_grad():
        out_w, w = mha(t(x)[None], t(x)[None], t(x)[None], attn_mask=blocked, average_attn_weights=False)
        out_fast, _ = mha(t(x)[None], t(x)[None], t(x)[None], attn_mask=blocked, need_weights=False)
    assert ours.masked_rows.tolist() == [False, False, False, True, False]
    np.testing.assert_array_equal(ours.output[3], np.zeros(dim))
    np.testing.assert_array_equal(ours.weights[:, 3], np.zeros((heads, length)))
    ok = ~ours.masked_rows
    np.testing.assert_allclose(ours.output[ok], n(out_w[0])[ok], **TIGHT)
    np.testing.assert_allclose(ours.output, n(out_fast[0]), **TIGHT)  # the SDPA path: zeros, like ours
    row = n(out_w[0])[3]
    # torch 2.13 gives NaN here (the need_weights path softmaxes an all -inf row); zeros would also be fine
    assert np.isnan(row).all() or (row == 0).all()


# ---------------------------------------------------------------- RoPE: Llama (rotate_half) and GPT-J (every two)

def llama_rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def llama_apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos, sin = cos.unsqueeze(unsqueeze_dim), sin.unsqueeze(unsqueeze_dim)
    return q * cos + llama_rotate_half(q) * sin, k * cos + llama_rotate_half(k) * sin


def llama_cos_sin(position_ids, dim, base):
    """LlamaRotaryEmbedding.forward, in float64: (B, L) positions → cos, sin of shape (B, L, d)."""
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).double() / dim))
    freqs = position_ids[:, :, None].double() * inv_freq[None, None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def gptj_rotate_every_two(x):
    x1 = x[:, :, :, ::2]
    x2 = x[:, :, :, 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def gptj_apply_rotary_pos_emb(tensor, sin, cos):
    sin = torch.repeat_interleave(sin[:, :, None, :], 2, 3)
    cos = torch.repeat_interleave(cos[:, :, None, :], 2, 3)
    return tensor * cos + gptj_rotate_every_two(tensor) * sin


def gptj_sin_cos(positions, dim, base):
    """GPT-J's create_sinusoidal_positions, in float64: (L,) positions → sin, cos of shape (L, d/2)."""
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).double() / dim))  # HF: int64 / int → float32
    sinusoid_inp = torch.einsum("i , j -> i j", positions.double(), inv_freq.double())
    return torch.sin(sinusoid_inp), torch.cos(sinusoid_inp)


def test_rope_frequencies_match_llama_inv_freq():
    for dim, base in [(2, 10000.0), (64, 10000.0), (128, 500000.0), (8, 10.0)]:
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).double() / dim))
        np.testing.assert_allclose(rope_frequencies(dim, base), n(inv_freq), rtol=1e-15, atol=0)


@pytest.mark.parametrize("dim, base, start", [(2, 10000.0, 0), (8, 10000.0, 0), (64, 10000.0, 0),
                                              (128, 500000.0, 37), (16, 10.0, 1000)])
def test_rope_half_is_llamas_rotate_half(rng, dim, base, start):
    heads, length = 3, 9
    q, k = rng.standard_normal((1, heads, length, dim)), rng.standard_normal((1, heads, length, dim))
    position_ids = torch.arange(start, start + length)[None]  # (B, L), e.g. continuing after a KV cache
    cos, sin = llama_cos_sin(position_ids, dim, base)
    q_ref, k_ref = llama_apply_rotary_pos_emb(t(q), t(k), cos, sin)
    pos = np.arange(start, start + length)
    np.testing.assert_allclose(rope(q[0], pos, base=base, style="half"), n(q_ref[0]), **TIGHT)
    np.testing.assert_allclose(rope(k[0], pos, base=base, style="half"), n(k_ref[0]), **TIGHT)


def test_rope_half_with_long_positions(rng):
    dim, length = 64, 4096
    q = rng.standard_normal((length, dim))
    cos, sin = llama_cos_sin(torch.arange(length)[None], dim, 10000.0)
    q_ref, _ = llama_apply_rotary_pos_emb(t(q)[None, None], t(q)[None, None], cos, sin)
    np.testing.assert_allclose(rope(q, np.arange(length)), n(q_ref[0, 0]), **TOL)


@pytest.mark.parametrize("dim, base, start", [(2, 10000.0, 0), (8, 10000.0, 0), (64, 10000.0, 5), (16, 10.0, 300)])
def test_rope_interleaved_is_gptjs_rotate_every_two(rng, dim, base, start):
    heads, length = 2, 7
    x = rng.standard_normal((1, length, heads, dim))  # GPT-J rotates in (B, L, H, d) layout
    positions = torch.arange(start, start + length)
    sin, cos = gptj_sin_cos(positions, dim, base)
    ref = gptj_apply_rotary_pos_emb(t(x), sin[None], cos[None])
    ours = rope(x[0].transpose(1, 0, 2), np.arange(start, start + length), base=base, style="interleaved")
    np.testing.assert_allclose(ours.transpose(1, 0, 2), n(ref[0]), **TIGHT)


def test_rope_interleaved_is_metas_complex_rotation(rng):
    # The original Llama / RoFormer code: view consecutive pairs as complex numbers, multiply by e^{i m θ}.
    dim, length = 16, 10
    x = rng.standard_normal((length, dim))
    freqs = torch.outer(torch.arange(length).double(), t(rope_frequencies(dim)))
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)
    ref = torch.view_as_real(torch.view_as_complex(t(x).reshape(length, dim // 2, 2)) * freqs_cis).flatten(-2)
    np.testing.assert_allclose(rope(x, np.arange(length), style="interleaved"), n(ref), **TIGHT)


def test_hf_weight_permutation_is_half_to_interleaved(rng):
    # convert_llama_weights_to_hf permutes each head's rows of W_q, W_k so that Meta's interleaved
    # checkpoint works with rotate_half: w.view(H, d/2, 2, D).transpose(1, 2).reshape(H·d, D).
    heads, d, width = 2, 8, 16
    w = rng.standard_normal((heads * d, width))
    permuted = n(t(w).view(heads, d // 2, 2, width).transpose(1, 2).reshape(heads * d, width))
    p = half_to_interleaved(d)
    x = rng.standard_normal((5, width))
    q_meta = (x @ w.T).reshape(5, heads, d).transpose(1, 0, 2)  # (H, L, d), interleaved layout
    q_hf = (x @ permuted.T).reshape(5, heads, d).transpose(1, 0, 2)  # (H, L, d), half layout
    np.testing.assert_array_equal(q_hf[..., p], q_meta)  # x_interleaved = x_half[..., p]
    pos = np.arange(5)
    np.testing.assert_allclose(rope(q_hf, pos, style="half")[..., p], rope(q_meta, pos, style="interleaved"),
                               rtol=0, atol=0)
    # and the attention scores are the same either way
    s_hf = rope(q_hf, pos, style="half") @ rope(q_hf, pos, style="half").transpose(0, 2, 1)
    s_meta = rope(q_meta, pos, style="interleaved") @ rope(q_meta, pos, style="interleaved").transpose(0, 2, 1)
    np.testing.assert_allclose(s_hf, s_meta, **TIGHT)


# ---------------------------------------------------------------- the real transformers functions, if present

def test_transformers_llama_rotary_if_installed(rng):
    llama = pytest.importorskip("transformers.models.llama.modeling_llama")
    dim, length = 32, 6
    q, k = rng.standard_normal((1, 2, length, dim)), rng.standard_normal((1, 2, length, dim))
    cos, sin = llama_cos_sin(torch.arange(length)[None], dim, 10000.0)
    np.testing.assert_array_equal(n(llama.rotate_half(t(q))), n(llama_rotate_half(t(q))))
    q_ref, k_ref = llama.apply_rotary_pos_emb(t(q), t(k), cos, sin, unsqueeze_dim=1)
    np.testing.assert_allclose(rope(q[0], np.arange(length), style="half"), n(q_ref[0]), **TIGHT)
    np.testing.assert_allclose(rope(k[0], np.arange(length), style="half"), n(k_ref[0]), **TIGHT)


def test_transformers_gptj_rotary_if_installed(rng):
    gptj = pytest.importorskip("transformers.models.gptj.modeling_gptj")
    dim, length = 16, 6
    x = rng.standard_normal((1, length, 2, dim))
    sin, cos = gptj_sin_cos(torch.arange(length), dim, 10000.0)
    np.testing.assert_array_equal(n(gptj.rotate_every_two(t(x))), n(gptj_rotate_every_two(t(x))))
    ref = gptj.apply_rotary_pos_emb(t(x), sin[None], cos[None])
    ours = rope(x[0].transpose(1, 0, 2), np.arange(length), style="interleaved").transpose(1, 0, 2)
    np.testing.assert_allclose(ours, n(ref[0]), **TIGHT)


# ---------------------------------------------------------------- sinusoidal positions, the chapter's ten lines

def test_sinusoidal_matches_the_pytorch_tutorial_encoding():
    length, dim = 50, 16
    position = torch.arange(length).double().unsqueeze(1)
    div_term = torch.exp(torch.arange(0, dim, 2).double() * (-math.log(10000.0) / dim))
    pe = torch.zeros(length, dim, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    np.testing.assert_allclose(sinusoidal_positions(length, dim), n(pe), **TIGHT)


@pytest.mark.parametrize("causal", [False, True])
def test_chapters_self_attention_matches_sdpa(rng, causal):
    x = rng.standard_normal((6, 8))
    wq, wk, wv = rng.standard_normal((4, 8)), rng.standard_normal((4, 8)), rng.standard_normal((5, 8))
    ref = sdpa(x @ wq.T, x @ wk.T, x @ wv.T, is_causal=causal)
    np.testing.assert_allclose(self_attention(x, wq, wk, wv, causal=causal), ref, **TIGHT)
