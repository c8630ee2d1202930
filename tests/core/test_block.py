"""The Transformer block (F17) against PyTorch's TransformerEncoderLayer and Llama's block, written out in
tests/core/block_reference.py from their definitions, and against tiny cases worked by hand (L = 2, D = 2)."""
import math
from dataclasses import replace

import numpy as np
import pytest

from explorer.core.block import BlockSettings, BlockWeights, block_weights
from explorer.core.block_stack import BlockUnavailable, session_block
from explorer.core.pipeline import run_pipeline
from explorer.core.session import Settings
from tests.core import block_reference as ref

TIGHT = dict(rtol=1e-12, atol=1e-12)
EPS = 1e-5


def session_matrices(length, width, seed):
    rng = np.random.default_rng(seed)
    return {"X": rng.standard_normal((length, width)),
            **{name: rng.standard_normal((width, width)) / math.sqrt(width) for name in ("Wq", "Wk", "Wv", "Wo")}}


@pytest.mark.parametrize("placement", ["pre", "post"])
@pytest.mark.parametrize("activation", ["relu", "gelu", "gelu_tanh"])
@pytest.mark.parametrize("heads, causal", [(1, False), (2, True), (4, False)])
def test_equals_torch_encoder_layer(placement, activation, heads, causal):
    m = session_matrices(5, 8, seed=heads * 7 + causal)
    block = BlockSettings(placement=placement, activation=activation, norm="layernorm", ffn_mult=2, seed=3, blocks=3)
    w = block_weights(8, block)
    settings = Settings(source="projected", heads=heads, causal=causal)
    stack = session_block(m, settings, block)
    p = ref.torch_parameters(m, w)
    x = m["X"]
    norms = [np.linalg.norm(x, axis=1)]
    for n in range(3):
        x = ref.torch_encoder_layer(x, p, norm_first=placement == "pre", activation=activation, n_heads=heads,
                                    causal=causal, eps=EPS)
        if n == 0:
            np.testing.assert_allclose(stack.first.output, x, **TIGHT)
        norms.append(np.linalg.norm(x, axis=1))
    np.testing.assert_allclose(stack.norms, np.array(norms), **TIGHT)


@pytest.mark.parametrize("placement", ["pre", "post"])
def test_every_node_of_the_block(placement):
    """The nodes in the chapter's order, each the formula of its step on the one before."""
    m = session_matrices(4, 6, seed=11)
    block = BlockSettings(placement=placement, activation="relu", ffn_mult=4, seed=5, blocks=1)
    w = block_weights(6, block)
    settings = Settings(source="projected", heads=3)
    nodes = session_block(m, settings, block).first
    p = ref.torch_parameters(m, w)
    attend = lambda y: ref.multihead_attention(y, p["self_attn.in_proj_weight"], np.zeros(18), m["Wo"],  # noqa: E731
                                               np.zeros(6), 3, False)
    n1 = lambda y: ref.layer_norm(y, w.gain1, w.bias1, EPS)  # noqa: E731
    n2 = lambda y: ref.layer_norm(y, w.gain2, w.bias2, EPS)  # noqa: E731
    x = m["X"]
    if placement == "pre":
        keys = ["x", "norm1", "attn", "h", "norm2", "hidden", "ffn", "out"]
        h = x + attend(n1(x))
        hidden = ref.relu(ref.linear(n2(h), w.w1, w.b1))
        expected = [x, n1(x), attend(n1(x)), h, n2(h), hidden, ref.linear(hidden, w.w2, w.b2),
                    h + ref.linear(hidden, w.w2, w.b2)]
    else:
        keys = ["x", "attn", "sum1", "h", "hidden", "ffn", "sum2", "out"]
        h = n1(x + attend(x))
        hidden = ref.relu(ref.linear(h, w.w1, w.b1))
        f = ref.linear(hidden, w.w2, w.b2)
        expected = [x, attend(x), x + attend(x), h, hidden, f, h + f, n2(h + f)]
    assert [node.key for node in nodes.nodes] == keys
    assert nodes.nodes[-1].matrix is nodes.output
    for key, want in zip(keys, expected):
        np.testing.assert_allclose(nodes[key], want, **TIGHT, err_msg=key)
    assert nodes["hidden"].shape == (4, 24)


@pytest.mark.parametrize("causal", [False, True])
def test_llama_block_rmsnorm_swiglu(causal):
    m = session_matrices(6, 8, seed=2)
    block = BlockSettings(placement="pre", norm="rmsnorm", activation="swiglu", ffn_mult=2, seed=9, blocks=2)
    w = block_weights(8, block)
    assert w.bias1 is None and w.bias2 is None and w.b1 is None and w.b2 is None and w.w3.shape == (16, 8)
    settings = Settings(source="projected", heads=2, causal=causal)
    stack = session_block(m, settings, block)
    p = ref.torch_parameters(m, w)
    attend = lambda y: ref.multihead_attention(y, p["self_attn.in_proj_weight"], np.zeros(24), m["Wo"],  # noqa: E731
                                               np.zeros(8), 2, causal)
    once = ref.llama_block(m["X"], attend, w.gain1, w.gain2, w.w1, w.w3, w.w2, EPS)
    twice = ref.llama_block(once, attend, w.gain1, w.gain2, w.w1, w.w3, w.w2, EPS)
    np.testing.assert_allclose(stack.first.output, once, **TIGHT)
    np.testing.assert_allclose(stack.norms[2], np.linalg.norm(twice, axis=1), **TIGHT)
    np.testing.assert_allclose(stack.first["norm1"], ref.rms_norm(m["X"], w.gain1, EPS), **TIGHT)


def test_rmsnorm_with_layernorm_activations_and_post_ln():
    """RMSNorm in a post-LN block with GELU: the same formulas, the other norm."""
    m = session_matrices(3, 4, seed=4)
    block = BlockSettings(placement="post", norm="rmsnorm", activation="gelu", ffn_mult=1, seed=1, blocks=1)
    w = block_weights(4, block)
    p = ref.torch_parameters(m, w)
    attend = lambda y: ref.multihead_attention(y, p["self_attn.in_proj_weight"], np.zeros(12), m["Wo"],  # noqa: E731
                                               np.zeros(4), 1, False)
    h = ref.rms_norm(m["X"] + attend(m["X"]), w.gain1, EPS)
    want = ref.rms_norm(h + ref.linear(ref.gelu(ref.linear(h, w.w1, w.b1)), w.w2, w.b2), w.gain2, EPS)
    got = session_block(m, Settings(source="projected"), block).first.output
    np.testing.assert_allclose(got, want, **TIGHT)


def plain_weights(swiglu=False):
    """γ = 1, β = 0 and identity W1, W2 (F = D = 2), no biases: the block's own steps are easy to follow."""
    one, zero, eye = np.ones(2), np.zeros(2), np.eye(2)
    return BlockWeights(one, zero, one, zero, eye, zero, eye, zero, eye if swiglu else None)


def averaging_matrices():
    """X = [[1, 3], [3, 1]]; W_q = W_k = 0 so every score is 0 and each token takes the mean of the V rows;
    W_v = W_o = I, so attention gives every token the mean of x: [2, 2]."""
    zero, eye = np.zeros((2, 2)), np.eye(2)
    return {"X": np.array([[1.0, 3.0], [3.0, 1.0]]), "Wq": zero, "Wk": zero, "Wv": eye, "Wo": eye}


def test_by_hand_post_ln():
    block = BlockSettings(placement="post", activation="relu", ffn_mult=1, blocks=1)
    got = session_block(averaging_matrices(), Settings(source="projected"), block, weights=plain_weights()).first
    s = math.sqrt(1 + EPS)  # LayerNorm of [a − 1, a + 1]-like rows: mean removed, variance 1
    np.testing.assert_allclose(got["attn"], [[2, 2], [2, 2]], **TIGHT)
    np.testing.assert_allclose(got["sum1"], [[3, 5], [5, 3]], **TIGHT)
    np.testing.assert_allclose(got["h"], np.array([[-1, 1], [1, -1]]) / s, **TIGHT)
    np.testing.assert_allclose(got["hidden"], np.array([[0, 1], [1, 0]]) / s, **TIGHT)  # ReLU cuts the −1
    np.testing.assert_allclose(got["sum2"], np.array([[-1, 2], [2, -1]]) / s, **TIGHT)
    # [−1, 2]/s: mean 1/(2s), centred ∓1.5/s, variance 2.25/s²
    r = 1.5 / s / math.sqrt(2.25 / s ** 2 + EPS)
    np.testing.assert_allclose(got.output, [[-r, r], [r, -r]], **TIGHT)


def test_by_hand_pre_ln():
    block = BlockSettings(placement="pre", activation="relu", ffn_mult=1, blocks=2)
    stack = session_block(averaging_matrices(), Settings(source="projected"), block, weights=plain_weights())
    got, s = stack.first, math.sqrt(1 + EPS)
    np.testing.assert_allclose(got["norm1"], np.array([[-1, 1], [1, -1]]) / s, **TIGHT)
    np.testing.assert_allclose(got["attn"], [[0, 0], [0, 0]], atol=1e-15)  # the mean of ±1/s is 0
    np.testing.assert_allclose(got["h"], [[1, 3], [3, 1]], **TIGHT)
    np.testing.assert_allclose(got.output, [[1, 3 + 1 / s], [3 + 1 / s, 1]], **TIGHT)
    # block 2 on [1, 3 + 1/s]: norm1 is again [−1, 1]/√(1 + eps/c²) with c the half-gap (1 + 1/(2s))
    c = 1 + 1 / (2 * s)
    t = 1 / math.sqrt(1 + EPS / c ** 2)
    second = [1, 3 + 1 / s + t]
    np.testing.assert_allclose(stack.norms[0], [math.sqrt(10)] * 2, **TIGHT)
    np.testing.assert_allclose(stack.norms[1], [math.hypot(1, 3 + 1 / s)] * 2, **TIGHT)
    np.testing.assert_allclose(stack.norms[2], [math.hypot(*second)] * 2, **TIGHT)


def test_by_hand_swiglu_and_gelu_values():
    """SwiGLU with W1 = W3 = W2 = I: hidden = silu(y)·y; GELU(1) = Φ(1) = 0.8413447460685429…"""
    block = BlockSettings(placement="pre", norm="rmsnorm", activation="swiglu", ffn_mult=1, blocks=1)
    w = plain_weights(swiglu=True)
    w = replace(w, bias1=None, bias2=None, b1=None, b2=None)
    got = session_block(averaging_matrices(), Settings(source="projected"), block, weights=w).first
    np.testing.assert_allclose(got["norm1"], np.array([[1, 3], [3, 1]]) / math.sqrt(5 + EPS), **TIGHT)  # RMS √5
    np.testing.assert_allclose(got["attn"], np.full((2, 2), 2 / math.sqrt(5 + EPS)), **TIGHT)  # the rows' mean
    y = got["norm2"]
    np.testing.assert_allclose(got["hidden"], y / (1 + np.exp(-y)) * y, **TIGHT)
    from explorer.core.block import gelu
    np.testing.assert_allclose(gelu(np.array([1.0, -1.0, 0.0])), [0.8413447460685429, -0.15865525393145707, 0.0],
                               rtol=1e-15, atol=0)


def test_post_ln_reuses_the_sessions_own_attention_with_positions():
    """Post-LN's first attention is the session's own result — the pipeline's, PE included when it is on."""
    m = session_matrices(5, 8, seed=8)
    for positions in ("none", "sinusoidal", "alibi"):
        settings = Settings(source="projected", heads=2, positions=positions, rope=positions == "none")
        own = run_pipeline(m, settings)
        block = BlockSettings(placement="post", blocks=2)
        fresh = session_block(m, settings, block)
        reused = session_block(m, settings, block, first_attention=own.heads.output)
        np.testing.assert_array_equal(fresh.first["attn"], own.heads.output)
        np.testing.assert_array_equal(fresh.first["x"], own.x)  # X + PE when on
        np.testing.assert_array_equal(reused.norms, fresh.norms)


def test_pre_and_post_ln_residual_norms_differ_as_the_chapter_says():
    """Post-LN ends every block in a norm: the stream stays near √D·γ; pre-LN keeps adding to it."""
    m = session_matrices(6, 8, seed=1)
    settings = Settings(source="projected", heads=2)
    post = session_block(m, settings, BlockSettings(placement="post", blocks=12)).mean_norms
    pre = session_block(m, settings, BlockSettings(placement="pre", blocks=12)).mean_norms
    assert post.shape == pre.shape == (13,)
    assert np.ptp(post[1:]) < 0.5 and pre[-1] > pre[1] > pre[0] * 0.5


def test_weights_are_made_from_the_seed():
    a = block_weights(4, BlockSettings(seed=7))
    b = block_weights(4, BlockSettings(seed=7))
    c = block_weights(4, BlockSettings(seed=8))
    np.testing.assert_array_equal(a.w1, b.w1)
    assert not np.array_equal(a.w1, c.w1)
    assert a.w1.shape == (16, 4) and a.w2.shape == (4, 16) and a.b1.shape == (16,)


@pytest.mark.parametrize("why, matrices, settings, cross", [
    ("projected mode", session_matrices(3, 4, 0), Settings(), False),
    ("cross-attention", session_matrices(3, 4, 0), Settings(source="projected"), True),
    ("W_o gives back 2 columns", {**session_matrices(3, 4, 0), "Wo": np.ones((2, 4))},
     Settings(source="projected"), False),
])
def test_refusals_say_why(why, matrices, settings, cross):
    with pytest.raises(BlockUnavailable, match=why):
        session_block(matrices, settings, BlockSettings(), cross=cross)


def test_a_block_beyond_the_free_memory_is_refused_naming_the_size():
    """400 tokens, 2 heads: its scores and weights are 2 · 2 · 400² · 8 bytes = 5 120 000 bytes ≈ 4.9 MiB."""
    m = session_matrices(400, 64, 0)
    settings = Settings(source="projected", heads=2)
    with pytest.raises(BlockUnavailable, match=r"400 tokens with 2 heads needs 4\.9 MiB .* only 4\.9 MiB"):
        session_block(m, settings, BlockSettings(blocks=64), memory=5_119_999)
    assert session_block(m, settings, BlockSettings(blocks=1), memory=5_120_000) is not None


def test_a_cancelled_stack_stops_between_blocks():
    m = session_matrices(6, 4, 0)
    asked = []

    def cancelled():
        asked.append(1)
        return len(asked) > 3

    assert session_block(m, Settings(source="projected"), BlockSettings(blocks=64), cancelled=cancelled) is None
    assert len(asked) < 64


def test_bad_block_settings_are_refused():
    with pytest.raises(ValueError, match="activation"):
        BlockSettings(activation="tanh")
    with pytest.raises(ValueError, match="1..64"):
        BlockSettings(blocks=0)
