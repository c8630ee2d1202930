"""Grouped K/V heads (GQA; MQA with one K/V head) against a reference written from Hugging Face's
``repeat_kv``, by hand, and through the pipeline, the recompute and the settings' rules."""
import numpy as np
import pytest
from hypothesis import given, settings as hyp_settings, strategies as st

from explorer.core import multi_head_attention
from explorer.core.errors import ShapeError
from explorer.core.heads import kv_head_count, kv_head_of, kv_head_options
from explorer.core.lesson import lesson_checks
from explorer.core.pipeline import run_pipeline
from explorer.core.readout import row_readout
from explorer.core.session import Settings
from explorer.core.settings_schema import check_together, head_options, implied_kv_heads

PROPS = hyp_settings(max_examples=60, deadline=None, database=None)


def repeat_kv(x, n_rep):
    """Hugging Face's ``repeat_kv`` (modeling_llama.py) in NumPy, line for line:
    ``hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    .reshape(batch, num_key_value_heads * n_rep, slen, head_dim)``."""
    batch, num_key_value_heads, slen, head_dim = x.shape
    if n_rep == 1:
        return x
    x = np.broadcast_to(x[:, :, None, :, :], (batch, num_key_value_heads, n_rep, slen, head_dim))
    return x.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


def reference(q, k, v, n_heads, n_kv, scale, causal=False):
    """Llama's attention with plain NumPy: (L, H·d) → (1, H, L, d), repeat_kv, softmax(QKᵀ·scale)·V, concat."""
    lq, lk = len(q), len(k)
    d = q.shape[1] // n_heads
    dv = v.shape[1] // n_kv
    qh = q.reshape(1, lq, n_heads, d).transpose(0, 2, 1, 3)
    kh = repeat_kv(k.reshape(1, lk, n_kv, d).transpose(0, 2, 1, 3), n_heads // n_kv)
    vh = repeat_kv(v.reshape(1, lk, n_kv, dv).transpose(0, 2, 1, 3), n_heads // n_kv)
    s = qh @ kh.transpose(0, 1, 3, 2) * scale
    if causal:
        s = np.where(np.tril(np.ones((lq, lk), bool), k=lk - lq), s, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    o = w @ vh
    return s[0], w[0], o[0].transpose(1, 0, 2).reshape(lq, n_heads * dv)


@st.composite
def grouped_case(draw):
    """H, H_kv (a divisor), q (Lq, H·d_h), k (Lk, H_kv·d_h), v (Lk, H_kv·d_vh)."""
    n_heads = draw(st.sampled_from([1, 2, 3, 4, 6, 8]))
    n_kv = draw(st.sampled_from(kv_head_options(n_heads)))
    d, dv = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    lq, lk = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    return (n_heads, n_kv, rng.standard_normal((lq, n_heads * d)), rng.standard_normal((lk, n_kv * d)),
            rng.standard_normal((lk, n_kv * dv)))


@PROPS
@given(grouped_case(), st.booleans())
def test_grouped_heads_equal_the_repeat_kv_reference(case, causal):
    n_heads, n_kv, q, k, v = case
    causal = causal and len(q) <= len(k)  # bottom-right aligned: every query keeps a key
    d = q.shape[1] // n_heads
    r = multi_head_attention(q, k, v, n_heads, kv_heads=n_kv, causal=causal)
    s, w, concat = reference(q, k, v, n_heads, n_kv, 1 / np.sqrt(d), causal)
    np.testing.assert_allclose(r.scores, np.where(np.isinf(s), r.scores, s), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.weights, w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r.concat, concat, rtol=1e-12, atol=1e-12)
    assert r.concat.shape == (len(q), n_heads * (v.shape[1] // n_kv))


def test_two_query_heads_sharing_one_kv_head_by_hand():
    """H = 2, H_kv = 1, d_h = 1, scale 1: each query column meets the one K column and mixes the one V."""
    q = np.array([[1.0, 0.0], [0.0, 2.0]])   # head 0 asks with column 0, head 1 with column 1
    k = np.array([[1.0], [0.0]])
    v = np.array([[1.0], [3.0]])
    r = multi_head_attention(q, k, v, 2, kv_heads=1, scale=1.0)
    np.testing.assert_array_equal(r.scores, [[[1, 0], [0, 0]], [[0, 0], [2, 0]]])
    e, e2 = np.exp(1.0), np.exp(2.0)
    np.testing.assert_allclose(r.weights, [[[e / (e + 1), 1 / (e + 1)], [0.5, 0.5]],
                                           [[0.5, 0.5], [e2 / (e2 + 1), 1 / (e2 + 1)]]], rtol=1e-15)
    np.testing.assert_allclose(r.concat, [[1.5378828427399902, 2.0], [2.0, 1.2384058440442351]], rtol=1e-15)


def test_query_heads_read_kv_heads_in_repeat_kv_order_not_modulo():
    """H = 4, H_kv = 2: heads 0, 1 read K/V head 0 and heads 2, 3 read K/V head 1 (h mod 2 would not)."""
    rng = np.random.default_rng(1)
    q, k, v = rng.standard_normal((3, 4)), rng.standard_normal((5, 2)), rng.standard_normal((5, 4))
    r = multi_head_attention(q, k, v, 4, kv_heads=2)
    assert [kv_head_of(h, 4, 2) for h in range(4)] == [0, 0, 1, 1]
    for h, g in enumerate([0, 0, 1, 1]):
        alone = multi_head_attention(q[:, [h]], k[:, [g]], v[:, 2 * g:2 * g + 2], 1)
        np.testing.assert_allclose(r.weights[h], alone.weights[0], rtol=1e-14)
        np.testing.assert_allclose(r.head_outputs[h], alone.head_outputs[0], rtol=1e-14)


def test_multi_query_attention_shares_one_kv_head_with_every_query_head():
    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((4, 6)), rng.standard_normal((4, 2)), rng.standard_normal((4, 3))
    r = multi_head_attention(q, k, v, 3, kv_heads=1)
    for h in range(3):
        alone = multi_head_attention(q[:, 2 * h:2 * h + 2], k, v, 1)
        np.testing.assert_allclose(r.head_outputs[h], alone.output, rtol=1e-14)
    assert r.concat.shape == (4, 9)


def test_as_many_kv_heads_as_heads_is_ordinary_multi_head_bit_for_bit():
    rng = np.random.default_rng(3)
    q, k, v = rng.standard_normal((5, 6)), rng.standard_normal((5, 6)), rng.standard_normal((5, 3))
    plain, grouped = multi_head_attention(q, k, v, 3), multi_head_attention(q, k, v, 3, kv_heads=3)
    for stage in ("scores", "weights", "head_outputs", "concat"):
        np.testing.assert_array_equal(getattr(grouped, stage), getattr(plain, stage))
    assert kv_head_count(3) == kv_head_count(3, 0) == 3 and kv_head_count(4, 2) == 2


@pytest.mark.parametrize("shapes, kv_heads, words", [
    (((3, 8), (3, 4), (3, 4)), 3, ["kv_heads must divide the number of heads H = 4", "1, 2, 4", "got 3"]),
    (((3, 8), (3, 6), (3, 4)), 2, ["k must have kv_heads·d_h = 2·2 = 4 columns", "(3, 6)"]),
    (((3, 8), (3, 4), (3, 3)), 2, ["width of v (3)", "the number of K/V heads 2"]),
    (((3, 8), (3, 4), (2, 4)), 2, ["one row per key"]),
])
def test_shapes_that_do_not_fit_name_what_is_wrong(shapes, kv_heads, words):
    q, k, v = (np.ones(shape) for shape in shapes)
    with pytest.raises(ShapeError) as info:
        multi_head_attention(q, k, v, 4, kv_heads=kv_heads)
    for word in words:
        assert word in str(info.value)


# ----- the settings' rules ---------------------------------------------------------------------------

def values(**changes):
    return {**{name: getattr(Settings(), name) for name in Settings.__dataclass_fields__}, **changes}


@pytest.mark.parametrize("changes, widths, message", [
    (dict(heads=8, kv_heads=3), {"qk": 16, "kv": 4, "v": 4, "L": 2},
     "kv_heads is 3, which does not divide heads 8 (kv_heads is 0 for as many K/V heads as heads, or one of "
     "1, 2, 4, 8)"),
    (dict(heads=2, kv_heads=4), {"qk": 4, "kv": 8, "v": 4, "L": 2}, "one of 1, 2)"),
    (dict(heads=8, kv_heads=2), {"qk": 16, "kv": 8, "v": 4, "L": 2},
     "kv_heads is 2, but the K width is 8: 8 heads of d_h = 2 (the Q width 16 / 8) sharing 2 K/V heads need "
     "kv_heads·d_h = 4"),
    (dict(heads=8, kv_heads=2), {"qk": 16, "kv": 4, "v": 5, "L": 2},
     "kv_heads is 2, which does not divide the V width 5"),
    (dict(heads=4, kv_heads=2, source="projected"), {"qk": 8, "kv": 4, "v": 4, "o": 4, "L": 2},
     "the 4 heads' outputs side by side are heads·(V width / kv_heads) = 4·2 = 8 wide, but Wo has 4 columns"),
])
def test_kv_heads_rules_name_what_is_allowed(changes, widths, message):
    with pytest.raises(ValueError) as info:
        check_together(values(**changes), widths, projected_matrices=True)
    assert message in str(info.value)


def test_grouped_heads_need_not_divide_the_v_width():
    """8 heads over 2 K/V heads of V width 3 each: V is 6 wide, which 8 does not divide, and that is fine."""
    check_together(values(heads=8, kv_heads=2), {"qk": 16, "kv": 4, "v": 6, "L": 3}, projected_matrices=False)


def test_head_options_with_a_narrower_k():
    # K must hold whole heads of d_h = 16/H (not so for H = 1, 2), H_kv = 4·H/16 dividing H and V's width
    assert head_options(16, 4, kv_width=4) == [4, 8, 16]
    assert head_options(16, 4, kv_width=4, rope=True) == [4, 8]   # d_h = 1 cannot be rotated
    assert head_options(6, 6) == head_options(6, 6, kv_width=6) == [1, 2, 3, 6]
    assert implied_kv_heads(8, 16, 4) == 2 and implied_kv_heads(3, 16, 4) is None


# ----- the pipeline, the recompute and what reads a result -------------------------------------------

def grouped(length=6, heads=4, kv=2, d=2, dv=3, seed=0):
    rng = np.random.default_rng(seed)
    return {"Q": rng.standard_normal((length, heads * d)), "K": rng.standard_normal((length, kv * d)),
            "V": rng.standard_normal((length, kv * dv))}


@pytest.mark.parametrize("positions, rope, causal", [("none", False, True), ("alibi", False, False),
                                                     ("none", True, False), ("alibi", True, True)])
def test_the_pipeline_equals_the_reference_with_rope_and_alibi_off(positions, rope, causal):
    mats = grouped()
    r = run_pipeline(mats, Settings(heads=4, kv_heads=2, causal=causal, rope=rope, positions=positions))
    assert (r.n_heads, r.kv_heads, r.d_head) == (4, 2, 2)
    if positions == "none" and not rope:
        _, w, concat = reference(mats["Q"], mats["K"], mats["V"], 4, 2, 1 / np.sqrt(2), causal)
        np.testing.assert_allclose(r.heads.weights, w, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(r.heads.concat, concat, rtol=1e-12)
    dot, *_ = r.score_parts(3, 1, 2)   # head 3 reads K/V head 1: columns 2–3 of k
    assert dot == pytest.approx(r.q[1, 6:8] @ r.k[2, 2:4], rel=1e-15)
    assert r.v_columns(3) == slice(3, 6)
    readout = row_readout(r.heads, r.v, row=4, head=3)
    np.testing.assert_array_equal(readout.columns, [3, 4, 5])
    np.testing.assert_allclose(readout.weights @ readout.values, readout.output, rtol=1e-12, atol=1e-15)
    checks = lesson_checks(r)
    assert checks.rows_sum_to_one and checks.outputs_in_hull


def test_projected_grouped_heads_with_wo():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, 6))
    wq, wk, wv = rng.standard_normal((8, 6)), rng.standard_normal((2, 6)), rng.standard_normal((2, 6))
    wo = rng.standard_normal((6, 8))   # the concat is H·(V width / H_kv) = 4·2 = 8 wide
    s = Settings(source="projected", heads=4, kv_heads=1, positions="sinusoidal")
    r = run_pipeline({"X": x, "Wq": wq, "Wk": wk, "Wv": wv, "Wo": wo}, s)
    xp = x + r.pe
    _, _, concat = reference(xp @ wq.T, xp @ wk.T, xp @ wv.T, 4, 1, 1 / np.sqrt(2))
    np.testing.assert_allclose(r.heads.output, concat @ wo.T, rtol=1e-12)
