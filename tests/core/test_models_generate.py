"""Greedy generation with a K/V cache equals the full forward pass on the growing text."""
import numpy as np

from explorer.models import open_embedded_model


def test_cached_generation_matches_full_passes():
    model = open_embedded_model()
    gen = model.generate("a red fox ran over the hill a red fox", 4)
    assert len(gen.new_ids) == 4 and gen.cache_tokens == len(gen.prompt_ids) + 4
    ids = list(gen.prompt_ids)
    for k, token in enumerate(gen.new_ids):
        full = model.run_ids(ids)  # the whole text again, no cache
        assert token == int(np.argmax(full.last_logits))  # greedy: the likeliest next token
        ids.append(token)
        again = model.run_ids(ids)
        row = gen.rows[k]  # (layers, heads, t): the new token's weights over every cached token
        assert row.shape == (2, 4, len(ids))
        np.testing.assert_allclose(row, again.attentions[:, :, -1, :], rtol=0, atol=1e-5)
    # the induction heads complete the repeated phrase
    assert [model.token_label(t) for t in gen.new_ids[:3]] == ["ran", "over", "the"]


def test_the_cache_size_is_2_layers_kv_heads_head_dim_tokens():
    model = open_embedded_model()
    gen = model.generate("the cat", 2)
    c = model.config
    assert gen.cache_bytes(c) == 2 * c.layers * c.kv_heads * c.head_dim * gen.cache_tokens * 4


def test_generation_stops_after_the_models_end_of_text_token(tmp_path):
    import json

    from explorer.models import open_checkpoint
    from tests.core.checkpoint_factory import gpt2_checkpoint
    gpt2_checkpoint(tmp_path)
    free = open_checkpoint(tmp_path).generate("the cat sat on the mat", 3)
    assert not free.ended and len(free.new_ids) == 3
    config = json.loads((tmp_path / "config.json").read_text())
    for eos in (free.new_ids[1], [7, free.new_ids[1]]):   # one id, or a list of them (Llama 3 gives several)
        config["eos_token_id"] = eos
        (tmp_path / "config.json").write_text(json.dumps(config))
        gen = open_checkpoint(tmp_path).generate("the cat sat on the mat", 3)
        first = free.new_ids.index(free.new_ids[1])   # its first time among the free run's tokens
        assert gen.ended and gen.new_ids == free.new_ids[:first + 1]  # the end token is kept, as HF's generate does


def test_cached_generation_keeps_a_sliding_window(tmp_path):
    """Mistral's sliding window: a generated token sees only the last `window` positions, as in the full pass."""
    from explorer.models import open_checkpoint
    from tests.core.checkpoint_factory import llama_checkpoint, llama_config
    llama_checkpoint(tmp_path, config=llama_config(model_type="mistral", architectures=["MistralForCausalLM"],
                                                   sliding_window=3))
    model = open_checkpoint(tmp_path)
    gen = model.generate("the cat sat on the mat", 3)
    ids = list(gen.prompt_ids)
    for k, token in enumerate(gen.new_ids):
        ids.append(token)
        row = gen.rows[k]
        np.testing.assert_allclose(row, model.run_ids(ids).attentions[:, :, -1, :], rtol=0, atol=1e-5)
        assert np.all(row[:, :, :-3] == 0)   # only the window's 3 newest keys carry weight
