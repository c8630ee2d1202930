"""F24's corpus view (many sentences at once): each sentence's q and k equal those of its own forward pass in the
independent float64 reference (models_reference.py), the joint normalisation keeps every q·k up to a constant per
query row (checked by hand), the points know their sentence and position, and bad sentences or files are refused
with their place named. Tiny checkpoints are made here; nothing touches the network."""
import math

import numpy as np
import pytest

from explorer.core.errors import ShapeError
from explorer.core.qk_space import corpus_plane
from explorer.models import open_checkpoint
from explorer.models import qk_corpus
from explorer.models.qk_corpus import (CorpusError, gather, read_sentences, split_sentences, tokenize_sentences)
from tests.core.checkpoint_factory import gpt2_checkpoint, gpt2_tokenizer, llama_checkpoint, llama_tokenizer
from tests.core.models_reference import _rope_complex, reference_gpt2, reference_llama

SENTENCES = ["the cat sat on the mat", "the dog chased the red laser dot", "a cat and a dog sat together"]


def reference_qk_llama(tensors, cfg, ids, layer, head):
    """The head's q and k from the reference's layer input: a·Wᵀ (+ b), then RoPE as a complex turn."""
    _, weights, inputs, _ = reference_llama(tensors, cfg, ids)
    a, dh = inputs[layer], cfg["head_dim"]
    g = head // (cfg["num_attention_heads"] // cfg["num_key_value_heads"])
    p = f"model.layers.{layer}.self_attn."
    freqs = cfg["rope_theta"] ** (-np.arange(0, dh, 2) / dh)
    wq = np.asarray(tensors[p + "q_proj.weight"], np.float64)[head * dh:(head + 1) * dh]
    wk = np.asarray(tensors[p + "k_proj.weight"], np.float64)[g * dh:(g + 1) * dh]
    bq = np.asarray(tensors.get(p + "q_proj.bias", np.zeros(wq.shape[0] * cfg["num_attention_heads"])))
    bk = np.asarray(tensors.get(p + "k_proj.bias", np.zeros(wk.shape[0] * cfg["num_key_value_heads"])))
    q = _rope_complex(a @ wq.T + bq[head * dh:(head + 1) * dh], freqs)
    k = _rope_complex(a @ wk.T + bk[g * dh:(g + 1) * dh], freqs)
    return q, k, weights[layer, head]


def reference_qk_gpt2(tensors, cfg, ids, layer, head):
    """GPT-2's q and k: the reference's layer input times c_attn's columns of the head, plus their bias."""
    _, weights, inputs, _ = reference_gpt2(tensors, cfg, ids)
    d = cfg["n_embd"]
    dh = d // cfg["n_head"]
    w = np.asarray(tensors[f"h.{layer}.attn.c_attn.weight"], np.float64)
    b = np.asarray(tensors[f"h.{layer}.attn.c_attn.bias"], np.float64)
    qs, ks = slice(head * dh, (head + 1) * dh), slice(d + head * dh, d + (head + 1) * dh)
    a = inputs[layer]
    return a @ w[:, qs] + b[qs], a @ w[:, ks] + b[ks], weights[layer, head]


@pytest.mark.parametrize("family", ["llama", "qwen2", "gpt2"])
def test_each_sentences_q_and_k_are_those_of_its_own_forward_pass(tmp_path, family):
    if family == "gpt2":
        cfg, tensors = gpt2_checkpoint(tmp_path)
        tokenizer, reference, layer, head = gpt2_tokenizer(), reference_qk_gpt2, 1, 2
    else:
        cfg, tensors = llama_checkpoint(tmp_path, biases=family == "qwen2")
        tokenizer, reference, layer, head = llama_tokenizer(), reference_qk_llama, 1, 3  # K/V head 1 of 2 (GQA)
    model = open_checkpoint(tmp_path)
    tokenized = tokenize_sentences(model, SENTENCES)
    assert [ids for ids, _ in tokenized] == [tokenizer.encode(s).ids for s in SENTENCES]
    found = gather(model, SENTENCES, tokenized, layer, head)
    assert found.sentences == tuple(SENTENCES) and len(found.queries) == 3
    for s, sentence in enumerate(SENTENCES):
        q, k, w = reference(tensors, cfg, tokenizer.encode(sentence).ids, layer, head)
        np.testing.assert_allclose(found.queries[s], q, atol=2e-4, rtol=1e-4)
        np.testing.assert_allclose(found.keys[s], k, atol=2e-4, rtol=1e-4)
        np.testing.assert_allclose(found.weights[s], w, atol=1e-5)
        # the scores the head softmaxes are these q·k / √d_h (below the causal diagonal)
        scores = found.queries[s] @ found.keys[s].T / math.sqrt(q.shape[1])
        low = np.tril(np.ones_like(scores, bool))
        np.testing.assert_allclose(scores[low], (q @ k.T / math.sqrt(q.shape[1]))[low], atol=2e-4)


def test_the_joint_normalisation_by_hand_keeps_every_product_and_weight():
    # sentence 1: q (4, 0), k (1, 0); sentence 2: q (0, 4), k (0, 1). Mean ‖q‖ = 4, mean ‖k‖ = 1:
    # s = √(1/4) = 1/2, so s·q = (2, 0), (0, 2) and k/s = (2, 0), (0, 2); both centroids (1, 1): c = 0.
    p = corpus_plane([np.array([[4.0, 0.0]]), np.array([[0.0, 4.0]])], [np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])])
    assert p.plane.scale == pytest.approx(0.5)
    np.testing.assert_allclose(p.plane.shift, [0.0, 0.0], atol=1e-15)
    # (s·q)·(k/s) = (2, 0)·(2, 0) = 4 = (4, 0)·(1, 0): the product itself is kept
    # sentence 1: q (2, 0), k (1, 0); sentence 2: q (0, 2), k (0, 3). Mean norms 2 and 2: s = 1;
    # centroids (1, 1) and (0.5, 1.5): c = (0.5, −0.5). q·(k + c) − q·k = q·c: +1 for (2, 0), −1 for (0, 2),
    # the same for every key of the row, which softmax ignores.
    qs, ks = [np.array([[2.0, 0.0]]), np.array([[0.0, 2.0]])], [np.array([[1.0, 0.0]]), np.array([[0.0, 3.0]])]
    p = corpus_plane(qs, ks)
    assert p.plane.scale == pytest.approx(1.0)
    np.testing.assert_allclose(p.plane.shift, [0.5, -0.5], atol=1e-15)
    q_all, k_all = np.vstack(qs), np.vstack(ks)
    moved = (q_all * p.plane.scale) @ (k_all / p.plane.scale + p.plane.shift).T - q_all @ k_all.T
    np.testing.assert_allclose(moved, [[1.0, 1.0], [-1.0, -1.0]], atol=1e-12)


def test_random_sentences_keep_each_sentences_weights():
    rng = np.random.default_rng(5)
    lengths = [3, 5, 2]
    qs = [rng.standard_normal((n, 4)) * 3 for n in lengths]
    ks = [rng.standard_normal((n, 4)) + 1 for n in lengths]
    p = corpus_plane(qs, ks)
    for q, k in zip(qs, ks):
        before = q @ k.T
        after = (q * p.plane.scale) @ (k / p.plane.scale + p.plane.shift).T
        diff = after - before  # row i moves by the constant q_i·c (times s)
        np.testing.assert_allclose(diff, np.repeat(diff[:, :1], len(k), axis=1), atol=1e-10)
    assert p.plane.queries.shape == (10, 2) and p.plane.keys.shape == (10, 2)


def test_each_point_knows_its_sentence_and_position():
    qs = [np.ones((2, 3)), np.zeros((3, 3)) + 2]
    ks = [np.ones((2, 3)) * 3, np.arange(9.0).reshape(3, 3)]
    p = corpus_plane(qs, ks)
    assert p.query_sentence.tolist() == [0, 0, 1, 1, 1] and p.query_position.tolist() == [0, 1, 0, 1, 2]
    assert p.key_sentence.tolist() == [0, 0, 1, 1, 1] and p.key_position.tolist() == [0, 1, 0, 1, 2]
    assert p.query_index(1, 2) == 4 and p.key_index(0, 1) == 1 and p.key_index(1, 0) == 2
    with pytest.raises(ShapeError, match="same width"):
        corpus_plane([np.ones((2, 3))], [np.ones((2, 4))])
    with pytest.raises(ShapeError, match="same sentences"):
        corpus_plane([np.ones((2, 3))], [])


def test_sentences_one_per_line_and_what_is_refused(monkeypatch):
    assert split_sentences("  the cat \n\n\tthe dog\r\n") == ["the cat", "the dog"]
    with pytest.raises(CorpusError, match="every line is empty"):
        split_sentences("\n  \n\t\n")
    with pytest.raises(CorpusError, match=r"101 sentences: at most 100"):
        split_sentences("a\n" * 101)
    with pytest.raises(CorpusError, match="line 3 has 2,001 characters"):
        split_sentences("a\n\n" + "b" * 2001)
    with pytest.raises(CorpusError, match="NUL"):
        split_sentences("a\x00b")


def test_files_are_size_checked_and_decoded_safely(tmp_path, monkeypatch):
    good = tmp_path / "good.txt"
    good.write_bytes("\ufeffthe cat\n猫 追\n".encode("utf-8"))  # a BOM is dropped
    assert read_sentences(good) == "the cat\n猫 追\n"
    binary = tmp_path / "image.txt"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(CorpusError, match=r"image.txt: a binary file \(a NUL byte at offset 8\)"):
        read_sentences(binary)
    latin = tmp_path / "latin.txt"
    latin.write_bytes("café\n".encode("latin-1"))
    with pytest.raises(CorpusError, match=r"latin.txt: not UTF-8 text \(byte offset 3\)"):
        read_sentences(latin)
    monkeypatch.setattr(qk_corpus, "MAX_FILE_BYTES", 10)
    with pytest.raises(CorpusError, match="good.txt: 19 bytes, more than the 10 a file"):
        read_sentences(good)
    with pytest.raises(CorpusError, match="missing.txt: cannot be read"):
        read_sentences(tmp_path / "missing.txt")


def test_sentences_longer_than_the_model_reads_or_too_many_tokens(tmp_path, monkeypatch):
    from tests.core.checkpoint_factory import llama_config
    llama_checkpoint(tmp_path, config=llama_config(max_position_embeddings=5))
    model = open_checkpoint(tmp_path)
    with pytest.raises(CorpusError, match="sentence 2 has 7 tokens; the model reads at most 5"):
        tokenize_sentences(model, ["the cat", "the cat sat on the mat"])
    monkeypatch.setattr(qk_corpus, "MAX_TOKENS", 5)
    with pytest.raises(CorpusError, match=r"more than 5 tokens together \(at sentence 2\)"):
        tokenize_sentences(model, ["the cat", "the cat"])  # 3 tokens each (<s> the cat)
