"""A real head becomes an ordinary session whose scores and weights are the model's (within 1e-5):
projected mode, X the layer's normalized input, biases as a constant-1 column, RoPE from the config,
only its K/V group under GQA, tokens with visible spaces; the session survives save and load."""
import numpy as np
import pytest

from explorer.core.pipeline import run_pipeline
from explorer.core.session import Session, Settings, load_session, save_session, validate_session
from explorer.models import open_checkpoint
from tests.core.checkpoint_factory import gpt2_checkpoint, llama_checkpoint, llama_config
from tests.core.models_reference import reference_gpt2, reference_llama

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
