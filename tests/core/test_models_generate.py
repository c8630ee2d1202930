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
