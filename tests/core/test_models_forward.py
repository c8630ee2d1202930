"""explorer.models' NumPy forward pass against the independent float64 reference (models_reference.py),
on tiny checkpoints made here: GPT-2 and distilgpt2's prefix, Llama with GQA and a head_dim unequal to
hidden / heads, Qwen2's biases, tied embeddings, float16, bfloat16, shards, RoPE bases and scaling."""
import json

import numpy as np
import pytest

from explorer.core.errors import CheckpointError
from explorer.models import RunCancelled, open_checkpoint
from tests.core.checkpoint_factory import (gpt2_checkpoint, gpt2_config, gpt2_tensors, gpt2_tokenizer,
                                           llama_checkpoint, llama_config, write_checkpoint)
from tests.core.models_reference import llama3_frequencies, reference_gpt2, reference_llama

TEXT = "the cat sat on the mat and the dog chased the red laser dot"


def assert_matches(run, reference):
    scores, weights, inputs, logits = reference
    assert run.attentions.shape == weights.shape and run.attentions.dtype == np.float32
    np.testing.assert_allclose(run.attentions, weights, atol=1e-5)
    np.testing.assert_allclose(run.attn_inputs, inputs, atol=1e-4, rtol=1e-5)
    np.testing.assert_allclose(run.last_logits, logits, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("prefix", ["", "transformer."])
def test_gpt2_and_distilgpt2_layouts_match_the_reference(tmp_path, prefix):
    cfg, tensors = gpt2_checkpoint(tmp_path, prefix=prefix)
    model = open_checkpoint(tmp_path)
    run = model.run(TEXT)
    assert run.tokens == gpt2_tokenizer().encode(TEXT).tokens and run.tokens[1] == "Ġcat"
    assert run.ids == gpt2_tokenizer().encode(TEXT).ids
    assert run.labels[1] == "·cat"
    assert_matches(run, reference_gpt2(tensors, cfg, run.ids, prefix))
    np.testing.assert_allclose(run.attentions.sum(-1), 1, atol=1e-5)
    assert np.all(np.triu(run.attentions, 1) == 0)     # causal


def test_gpt2_with_an_lm_head_and_its_own_epsilon(tmp_path):
    cfg = gpt2_config(layer_norm_epsilon=1e-3, activation_function="gelu_pytorch_tanh")
    tensors = gpt2_tensors(np.random.default_rng(3), cfg)
    tensors["lm_head.weight"] = np.random.default_rng(4).standard_normal((320, 32)).astype(np.float32)
    stored = write_checkpoint(tmp_path, cfg, tensors, gpt2_tokenizer())
    run = open_checkpoint(tmp_path).run(TEXT)
    assert_matches(run, reference_gpt2(stored, cfg, run.ids))


@pytest.mark.parametrize("dtype,shards", [("F32", 1), ("F16", 1), ("BF16", 1), ("BF16", 3), ("F32", 2)])
def test_llama_with_gqa_in_every_dtype_and_sharded(tmp_path, dtype, shards):
    cfg, tensors = llama_checkpoint(tmp_path, dtype=dtype, shards=shards)
    assert cfg["head_dim"] * cfg["num_attention_heads"] != cfg["hidden_size"]     # head_dim from the config
    model = open_checkpoint(tmp_path)
    assert model.config.group == 2 and len(model.store.files) == shards
    run = model.run(TEXT)
    assert run.tokens[0] == "<s>" and run.tokens[1] == "▁the" and run.labels[1] == "·the"
    assert_matches(run, reference_llama(tensors, cfg, run.ids))


def test_bfloat16_is_read_memory_mapped_and_widened_exactly(tmp_path):
    _, stored = llama_checkpoint(tmp_path, dtype="BF16")
    model = open_checkpoint(tmp_path, cache_weights=False)
    name = "model.layers.1.self_attn.q_proj.weight"
    assert model.store.info(name).dtype == "BF16"
    assert np.array_equal(model.store.get(name), stored[name])


def test_qwen2_biases_tied_embeddings_and_a_large_rope_base(tmp_path):
    cfg = llama_config(model_type="qwen2", rope_theta=1e6, num_key_value_heads=1)
    _, tensors = llama_checkpoint(tmp_path, biases=True, tied=True, config=cfg)
    model = open_checkpoint(tmp_path)
    assert not model.layout.has("lm_head")
    run = model.run(TEXT)
    assert_matches(run, reference_llama(tensors, cfg, run.ids))


def test_rope_parameters_as_transformers_5_writes_them(tmp_path):
    cfg = llama_config()
    del cfg["rope_theta"]
    cfg["rope_parameters"] = {"rope_type": "default", "rope_theta": 50000.0}
    _, tensors = llama_checkpoint(tmp_path, config=cfg)
    model = open_checkpoint(tmp_path)
    assert model.config.rope_theta == 50000.0
    run = model.run(TEXT)
    assert_matches(run, reference_llama(tensors, dict(cfg, rope_theta=50000.0), run.ids))


def test_llama3_rope_scaling_runs_as_the_reference(tmp_path):
    scaling = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
               "original_max_position_embeddings": 64}
    cfg = llama_config(rope_theta=500000.0, rope_scaling=scaling, head_dim=16, hidden_size=32)
    _, tensors = llama_checkpoint(tmp_path, config=cfg)
    model = open_checkpoint(tmp_path)
    run = model.run(TEXT)
    freqs = llama3_frequencies(500000.0, 16, 8.0, 1.0, 4.0, 64)
    assert_matches(run, reference_llama(tensors, cfg, run.ids, freqs=freqs))
    assert model.can_open_heads() is None       # its heads become sessions (test_models_session.py)


def test_llama3_scaling_with_its_bands_crossed_is_refused_at_opening(tmp_path):
    scaling = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 4.0, "high_freq_factor": 4.0,
               "original_max_position_embeddings": 64}
    llama_checkpoint(tmp_path, config=llama_config(rope_scaling=scaling))
    with pytest.raises(CheckpointError, match="config.json: rope_scaling's high_freq_factor 4 is not above its "
                                              "low_freq_factor 4"):
        open_checkpoint(tmp_path)


def test_other_rope_scalings_are_refused_at_opening(tmp_path):
    llama_checkpoint(tmp_path, config=llama_config(rope_scaling={"type": "yarn", "factor": 4.0}))
    with pytest.raises(CheckpointError, match="config.json: rope_scaling 'yarn' is not supported"):
        open_checkpoint(tmp_path)


def test_progress_reports_each_layer_and_cancel_stops(tmp_path):
    llama_checkpoint(tmp_path)
    model = open_checkpoint(tmp_path)
    seen = []
    model.run(TEXT, progress=seen.append, cancelled=lambda: False)
    assert seen == ["layer 1 of 2", "layer 2 of 2"]
    seen.clear()
    with pytest.raises(RunCancelled):
        model.run(TEXT, progress=seen.append, cancelled=lambda: len(seen) >= 1)
    assert seen == ["layer 1 of 2"]


def test_an_edited_head_flows_into_the_rest_of_the_model(tmp_path):
    """F25: a head's session, passed back unedited, changes nothing; edited, it changes what comes next."""
    llama_checkpoint(tmp_path)
    model = open_checkpoint(tmp_path)
    run = model.run(TEXT)
    session = model.head_session(run, 0, 1)
    same = model.run(TEXT, edits={(0, 1): session})
    np.testing.assert_allclose(same.last_logits, run.last_logits, atol=1e-4)
    from explorer.core.session import Session
    mats = dict(session.matrices)
    mats["Wk"] = np.zeros_like(mats["Wk"])          # keys all zero: the head attends uniformly
    edited = model.run(TEXT, edits={(0, 1): Session(session.tokens, mats, session.settings)})
    length = len(run.ids)
    np.testing.assert_allclose(edited.attentions[0, 1, -1], 1 / length, atol=1e-6)
    np.testing.assert_allclose(edited.attentions[0, 0], run.attentions[0, 0])
    assert not np.allclose(edited.last_logits, run.last_logits, atol=1e-3)
    assert abs(sum(p for _, p in model.top_next_tokens(edited, k=len(run.last_logits))) - 1) < 1e-6


def test_a_text_longer_than_the_positions_is_refused(tmp_path):
    gpt2_checkpoint(tmp_path)
    model = open_checkpoint(tmp_path)
    with pytest.raises(ValueError, match="reads at most 64"):
        model.run(" ".join(["cat"] * 100))


@pytest.fixture
def two_lanes(monkeypatch):
    """Lanes on for the tiny checkpoints too: two of them, every block a few rows, counted."""
    from explorer.models import lanes
    shared = []
    real_share = lanes._share
    monkeypatch.setattr(lanes, "cores", lambda: 2)
    for name, value in (("PARALLEL_CELLS", 1), ("PARALLEL_PRODUCTS", 1), ("BLOCK_CELLS", 40), ("MIN_DENSE_ROWS", 3)):
        monkeypatch.setattr(lanes, name, value)
    monkeypatch.setattr(lanes, "_share", lambda work, items: (shared.append(len(items)), real_share(work, items)))
    return shared


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_lanes_share_rows_and_heads_and_keep_the_numbers(tmp_path, two_lanes, family):
    from threadpoolctl import threadpool_info, threadpool_limits
    if family == "gpt2":
        cfg, tensors = gpt2_checkpoint(tmp_path)
    else:
        cfg, tensors = llama_checkpoint(tmp_path)
    model = open_checkpoint(tmp_path)
    with threadpool_limits(limits=2):
        run = model.run(TEXT)
        after = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
    assert after == [2] * len(after)    # the pass's one BLAS thread did not outlive it
    layers = cfg.get("n_layer", cfg.get("num_hidden_layers"))
    assert len(two_lanes) == 3 * layers and min(two_lanes) >= 2   # per layer: rows, heads, rows again
    reference = reference_gpt2(tensors, cfg, run.ids, "") if family == "gpt2" else reference_llama(tensors, cfg, run.ids)
    assert_matches(run, reference)


def test_head_scores_on_repeated_random_tokens(tmp_path):
    llama_checkpoint(tmp_path)
    scores = open_checkpoint(tmp_path).head_scores(half=8, samples=2)
    assert scores.previous_token.shape == scores.induction.shape == (2, 4)
    assert np.all((0 <= scores.induction) & (scores.induction <= 1))
    json.dumps(scores.to_json())

