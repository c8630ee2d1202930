"""A real head becomes an ordinary session whose scores and weights are the model's (within 1e-5):
projected mode, X the layer's normalized input, biases as a constant-1 column, RoPE from the config (with
Llama 3.1's scaling), only its K/V group under GQA, tokens with visible spaces; the session survives save
and load; heads of 13B and 70B widths fit, and one too large is refused before its matrices are made."""
from dataclasses import replace

import numpy as np
import pytest

from explorer.core.errors import CheckpointError
from explorer.core.pipeline import run_pipeline
from explorer.core.session import MAX_DIM, Session, Settings, load_session, save_session, validate_session
from explorer.models import config as config_module
from explorer.models import head_session, open_checkpoint
from explorer.models.architectures import LayerWeights
from explorer.models.head_session import build_head_session
from tests.core.checkpoint_factory import gpt2_checkpoint, llama_checkpoint, llama_config
from tests.core.models_reference import llama3_frequencies, reference_gpt2, reference_llama

TEXT = "the cat sat on the mat 猫 追 红色 激光点\nnew line"


def assert_every_head_matches(model, run, reference):
    scores, weights, _, _ = reference
    for layer in range(model.config.layers):
        for head in range(model.config.heads):
            session = model.head_session(run, layer, head)
            result = run_pipeline(session.matrices, session.settings)
            allowed = np.isfinite(scores[layer, head])     # the causal triangle
            np.testing.assert_allclose(result.heads.scores[0][allowed], scores[layer, head][allowed], atol=1e-5)
            np.testing.assert_allclose(result.heads.weights[0], weights[layer, head], atol=1e-5)
            np.testing.assert_allclose(result.heads.weights[0], run.attentions[layer, head], atol=1e-5)


def test_gpt2_heads_with_their_biases(tmp_path):
    cfg, tensors = gpt2_checkpoint(tmp_path)
    model = open_checkpoint(tmp_path)
    run = model.run(TEXT)
    assert_every_head_matches(model, run, reference_gpt2(tensors, cfg, run.ids))
    s = model.head_session(run, 1, 2)
    d, dh = cfg["n_embd"], cfg["n_embd"] // cfg["n_head"]
    assert s.settings.source == "projected" and s.settings.heads == 1 and s.settings.causal
    assert not s.settings.rope and s.settings.positions == "none" and s.settings.scale_mode == "inv_sqrt_d"
    x = s.matrices["X"]
    assert x.shape == (len(run.ids), d + 1) and np.all(x[:, -1] == 1)     # the bias column
    np.testing.assert_allclose(x[:, :-1], run.attn_inputs[1], atol=0)
    c_attn, bias = tensors["h.1.attn.c_attn.weight"], tensors["h.1.attn.c_attn.bias"]
    np.testing.assert_array_equal(s.matrices["Wk"][:, :-1], c_attn[:, d + 2 * dh:d + 3 * dh].T)
    np.testing.assert_array_equal(s.matrices["Wk"][:, -1], bias[d + 2 * dh:d + 3 * dh])
    np.testing.assert_array_equal(s.matrices["Wo"], tensors["h.1.attn.c_proj.weight"][2 * dh:3 * dh].T)
    assert s.tokens == tuple(run.labels) and "·cat" in s.tokens and "追" in s.tokens
    shown = "".join(s.tokens)
    assert "↵" in shown and "Ġ" not in shown and "\\xe7" in shown      # 猫's bytes, split across two tokens


def test_llama_heads_use_rope_and_only_their_kv_group(tmp_path):
    cfg, tensors = llama_checkpoint(tmp_path)
    model = open_checkpoint(tmp_path)
    run = model.run(TEXT)
    assert_every_head_matches(model, run, reference_llama(tensors, cfg, run.ids))
    s = model.head_session(run, 0, 3)            # 4 query heads share 2 K/V heads: head 3 reads K/V head 1
    assert s.settings.rope and s.settings.rope_style == "half" and s.settings.rope_base == 10000.0
    assert s.matrices["X"].shape[1] == cfg["hidden_size"]             # no biases: no extra column
    dh = cfg["head_dim"]
    np.testing.assert_array_equal(s.matrices["Wk"], tensors["model.layers.0.self_attn.k_proj.weight"][dh:2 * dh])
    np.testing.assert_array_equal(s.matrices["Wq"], tensors["model.layers.0.self_attn.q_proj.weight"][3 * dh:])
    assert s.matrices["Wo"].shape == (cfg["hidden_size"], dh)
    assert s.tokens[0] == "<s>" and s.tokens[1] == "·the"


@pytest.mark.parametrize("base", [1e6, 5e7])
def test_qwen2_biases_and_large_rope_bases_fit_a_session(tmp_path, base):
    cfg = llama_config(model_type="qwen2", rope_theta=base)
    _, tensors = llama_checkpoint(tmp_path, biases=True, config=cfg)
    model = open_checkpoint(tmp_path)
    run = model.run(TEXT)
    assert_every_head_matches(model, run, reference_llama(tensors, cfg, run.ids))
    s = model.head_session(run, 1, 0)
    assert s.settings.rope_base == base and s.matrices["X"].shape[1] == cfg["hidden_size"] + 1


def test_a_head_session_is_valid_and_survives_save_and_load(tmp_path):
    llama_checkpoint(tmp_path / "m", biases=True, config=llama_config(model_type="qwen2"))
    model = open_checkpoint(tmp_path / "m")
    run = model.run(TEXT)
    session = model.head_session(run, 1, 1)
    assert validate_session(session) == session
    assert "layer 2 head 2" in session.title          # indices from 0; the title counts from 1, as the window
    save_session(session, tmp_path / "head.json")
    assert load_session(tmp_path / "head.json") == session


def test_head_sessions_of_a_missing_head_are_refused(tmp_path):
    llama_checkpoint(tmp_path)
    model = open_checkpoint(tmp_path)
    run = model.run("the cat")
    with pytest.raises(ValueError, match="layer 2 head 0 does not exist"):
        model.head_session(run, 2, 0)


def test_the_limits_admit_todays_7b_8b_shapes():
    """One head of Llama 3 8B (D = 4096, d_h = 128, base 5e5) and of Qwen2.5 7B (D = 3584 + a bias column,
    base 1e6) fits a valid session, and so does a RoPE base of 1e8."""
    rng = np.random.default_rng(0)
    for width, base in ((4096, 5e5), (3585, 1e6), (4096, 1e8)):
        x, w = rng.standard_normal((6, width)), rng.standard_normal((128, width)) * 0.02
        mats = {"Q": x @ w.T, "K": x @ w.T, "V": x @ w.T, "X": x, "Wq": w, "Wk": w, "Wv": w,
                "Wo": rng.standard_normal((width, 128))}
        settings = Settings(source="projected", heads=1, causal=True, rope=True, rope_base=base)
        validate_session(Session(tokens=tuple("abcdef"), matrices=mats, settings=settings))


LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
          "original_max_position_embeddings": 64}


def test_llama3_scaled_heads_become_sessions_with_the_models_numbers(tmp_path):
    """Llama 3.1's rescaled frequencies (here: pair 0 kept, pair 1 blended, pairs 2–7 slowed 8×) go into the
    session's settings, and its scores and weights are the model's — which they are not without the scaling."""
    cfg = llama_config(rope_theta=500000.0, rope_scaling=LLAMA3, head_dim=16, hidden_size=32)
    _, tensors = llama_checkpoint(tmp_path / "m", config=cfg)
    model = open_checkpoint(tmp_path / "m")
    run = model.run(TEXT)
    freqs = llama3_frequencies(500000.0, 16, 8.0, 1.0, 4.0, 64)
    wavelengths = 2 * np.pi / (500000.0 ** (-np.arange(0, 16, 2) / 16))
    assert wavelengths[0] < 64 / 4 < wavelengths[1] < 64 < wavelengths[2]
    reference = reference_llama(tensors, cfg, run.ids, freqs=freqs)
    assert_every_head_matches(model, run, reference)
    s = model.head_session(run, 1, 2)
    assert (s.settings.rope, s.settings.rope_base, s.settings.rope_scaling) == (True, 500000.0, "llama3")
    assert (s.settings.rope_factor, s.settings.rope_low_freq_factor, s.settings.rope_high_freq_factor,
            s.settings.rope_original_max_position_embeddings) == (8.0, 1.0, 4.0, 64)
    unscaled = run_pipeline(s.matrices, replace(s.settings, rope_scaling="none")).heads.scores[0]
    allowed = np.isfinite(unscaled)
    assert np.abs(unscaled[allowed] - reference[0][1, 2][allowed]).max() > 1e-2    # the scaling matters here
    save_session(s, tmp_path / "head.json")
    assert load_session(tmp_path / "head.json") == s


def test_llama3_values_a_session_cannot_hold_are_named_before_a_run(tmp_path):
    cfg = llama_config(rope_scaling=dict(LLAMA3, factor=0.5))     # HF warns below 1; a session holds 1..1000
    llama_checkpoint(tmp_path, config=cfg)
    model = open_checkpoint(tmp_path)
    problem = model.can_open_heads()
    assert problem == ("config.json: this llama's RoPE setting rope_factor is 0.5; it must lie in 1..1000, so its "
                       "heads cannot be opened as sessions (the layers × heads grid works)")
    with pytest.raises(CheckpointError, match="rope_factor is 0.5"):
        model.head_session(model.run("the cat"), 0, 0)


@pytest.mark.parametrize("hidden, bias", [(5120, False), (8192, False), (8192, True), (16384, False)])
def test_heads_of_13b_70b_and_405b_widths_become_sessions(hidden, bias):
    """Llama 2 13B is 5120 wide, Llama 3 70B 8192, Qwen2.5 72B 8192 with q/k/v biases (X one column wider),
    Llama 3.1 405B 16384."""
    rng = np.random.default_rng(1)
    config = _config(llama_config(hidden_size=hidden, num_attention_heads=4, num_key_value_heads=2, head_dim=128))
    weights = _head_weights(rng, config, bias)
    x = rng.standard_normal((5, hidden)).astype(np.float32)
    s = build_head_session(weights, config, x, list("abcde"), 0, 3, "wide")
    assert s.matrices["X"].shape == (5, hidden + bias) and s.matrices["Wo"].shape == (hidden, 128)


def test_a_head_too_large_for_a_session_is_refused_before_its_matrices_are_made(monkeypatch):
    """At 8192 wide a session holds 2048 tokens (2²⁴ cells of X); one more is refused with what would fit,
    before X is copied; a model wider than MAX_DIM is refused for its width."""
    rng = np.random.default_rng(2)
    config = _config(llama_config(hidden_size=8192, num_attention_heads=2, num_key_value_heads=1, head_dim=128))
    weights = _head_weights(rng, config, False)
    made = []
    monkeypatch.setattr(head_session, "head_matrices", lambda *a: made.append(a))
    x = np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), (2049, 8192), (0, 0))   # 2049 rows, no memory
    with pytest.raises(CheckpointError) as info:
        build_head_session(weights, config, x, ["t"] * 2049, 3, 1, "too long")
    assert str(info.value) == ("layer 4 head 2: matrices.X has 2049×8192 = 16785408 cells; the most is 16777216 "
                               "(this head cannot be opened as a session: a text of at most 2048 tokens would fit)")
    wide = _config(llama_config(hidden_size=MAX_DIM, num_attention_heads=2, num_key_value_heads=1, head_dim=128))
    with pytest.raises(CheckpointError) as info:
        build_head_session(_head_weights(rng, wide, True), wide, x[:4], ["t"] * 4, 0, 0, "too wide")
    assert str(info.value) == (f"layer 1 head 1: matrices.Wq has {MAX_DIM + 1} columns; the most is {MAX_DIM} (this "
                               f"head cannot be opened as a session: a session holds widths up to {MAX_DIM}, and "
                               f"this llama is {MAX_DIM} wide plus the column of ones that carries its biases)")
    assert made == []


def _config(cfg):
    """The ModelConfig of a config.json dict, without a checkpoint behind it."""
    return config_module._llama(cfg)


def _head_weights(rng, config, bias):
    """A layer's attention weights in the forward pass's layout (x @ W), float32, only what a head reads."""
    d, kv_width, q_width = config.hidden, config.kv_heads * config.head_dim, config.heads * config.head_dim

    def w(*shape):
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    return LayerWeights(norm1_w=None, norm1_b=None, wq=w(d, q_width), wk=w(d, kv_width), wv=w(d, kv_width),
                        bq=w(q_width) if bias else None, bk=w(kv_width) if bias else None,
                        bv=w(kv_width) if bias else None, wo=w(q_width, d), bo=None, norm2_w=None, norm2_b=None,
                        mlp={})
