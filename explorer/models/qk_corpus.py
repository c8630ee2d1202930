"""F24's corpus view (after AttentionViz, Yeh et al. 2023): one head's queries and keys over many sentences.

Each sentence runs through the model on its own (as a person would type it into the Model view); the
head's q and k are those it scores with — the layer's normalised input X projected by the head's rows of
W_q and W_k (biases added), then turned by RoPE at the sentence's own positions, before the 1/√d_h scale
(as a session's Q and K are). The sentences are a person's text or file, so every limit is checked and
named before anything runs.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.core.errors import ExplorerError
from explorer.core.plural import count

from .forward import project_rows, rope_at

MAX_SENTENCES = 100
MAX_LINE_CHARS = 2_000
MAX_TOKENS = 8_192  # queries in all; as many keys again: the plane's points stay quick to draw and hover
MAX_FILE_BYTES = 256 * 1024


class CorpusError(ExplorerError):
    """Sentences that cannot be placed: none, too many, too long, or a file that is not plain text."""


@dataclass(frozen=True)
class CorpusHead:
    """One head's queries and keys on each sentence, with what is needed to name and join the points."""

    layer: int  # counted from 0
    head: int
    sentences: tuple[str, ...]
    labels: tuple[tuple[str, ...], ...]  # each sentence's tokens as shown ("·cat")
    queries: tuple[np.ndarray, ...]  # (L_i, d_h) float64 per sentence
    keys: tuple[np.ndarray, ...]
    weights: tuple[np.ndarray, ...]  # (L_i, L_i): the head's attention weights on sentence i


def split_sentences(text: str) -> list[str]:
    """One sentence per line (blank lines skipped, ends' spaces removed); CorpusError when there are none, too
    many, or a line is too long (its number named, counted from 1)."""
    if "\x00" in text:
        raise CorpusError("the sentences hold a NUL character: this is not plain text")
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1)]
    sentences = [(n, s) for n, s in lines if s]
    if not sentences:
        raise CorpusError("no sentences: every line is empty (write one sentence per line)")
    if len(sentences) > MAX_SENTENCES:
        raise CorpusError(f"{count(len(sentences), 'sentence')}: at most {MAX_SENTENCES} are placed at once")
    for n, s in sentences:
        if len(s) > MAX_LINE_CHARS:
            raise CorpusError(f"line {n} has {len(s):,} characters: a sentence may have at most {MAX_LINE_CHARS:,}")
    return [s for _, s in sentences]


def read_sentences(path) -> str:
    """The text of a .txt file of sentences: at most MAX_FILE_BYTES, UTF-8 (a BOM allowed), no NUL bytes;
    CorpusError naming the file otherwise."""
    path = Path(path)
    name = path.name
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise CorpusError(f"{name}: {size:,} bytes, more than the {MAX_FILE_BYTES:,} a file of sentences "
                              f"may have")
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise CorpusError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:  # it grew after stat
        raise CorpusError(f"{name}: more than the {MAX_FILE_BYTES:,} bytes a file of sentences may have")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise CorpusError(f"{name}: a binary file (a NUL byte at offset {nul:,}), not text with one sentence per "
                          f"line")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{name}: not UTF-8 text (byte offset {exc.start:,}); save it as UTF-8") from None


def tokenize_sentences(model, sentences) -> list[tuple[list[int], list[str]]]:
    """Each sentence's token ids and labels; CorpusError when one is longer than the model reads or all together
    are more than MAX_TOKENS."""
    out, total = [], 0
    for n, s in enumerate(sentences, start=1):
        tokens, ids = model.tokenize(s)
        if not ids:
            raise CorpusError(f"sentence {n} has no tokens")
        if len(ids) > model.config.max_positions:
            raise CorpusError(f"sentence {n} has {len(ids):,} tokens; the model reads at most "
                              f"{model.config.max_positions:,}")
        total += len(ids)
        if total > MAX_TOKENS:
            raise CorpusError(f"the sentences have more than {MAX_TOKENS:,} tokens together (at sentence {n}): "
                              f"place fewer at once")
        out.append((list(ids), model.labels(tokens)))
    return out


def pass_cost(config, n_tokens: int) -> int:
    """≈ multiply-adds of forward passes over ``n_tokens`` tokens in all (projections, MLP and the output
    logits of each sentence, which dominate for short ones): what decides whether it runs off the GUI thread."""
    attn = config.hidden * config.head_dim * (2 * config.heads + 2 * config.kv_heads)
    per_layer = attn + 3 * config.hidden * config.intermediate
    return n_tokens * config.layers * per_layer + config.vocab * config.hidden


def head_queries_keys_of(model, x: np.ndarray, layer: int, head: int) -> tuple[np.ndarray, np.ndarray]:
    """The (L, d_h) queries and keys of ``head`` (its K/V head's keys) from the layer's normalised input ``x``
    (L, D), RoPE at positions 0 … L − 1, unscaled, in float64."""
    config = model.config
    q, k, _ = project_rows(np.asarray(x, np.float32), model.layout.layer(layer), config, rope_at(config, range(len(x))))
    return q[:, head].astype(np.float64), k[:, head // config.group].astype(np.float64)


def gather(model, sentences, tokenized, layer: int, head: int, cancelled=None) -> CorpusHead:
    """Run each sentence (``tokenized``: from ``tokenize_sentences``) and keep ``head``'s q, k and weights;
    RunCancelled when ``cancelled()`` turns true between layers."""
    queries, keys, weights = [], [], []
    for ids, _ in tokenized:
        run = model.run_ids(ids, cancelled=cancelled)
        q, k = head_queries_keys_of(model, run.attn_inputs[layer], layer, head)
        queries.append(q)
        keys.append(k)
        weights.append(np.asarray(run.attentions[layer, head], np.float64))
    return CorpusHead(layer=layer, head=head, sentences=tuple(sentences),
                      labels=tuple(tuple(labels) for _, labels in tokenized), queries=tuple(queries),
                      keys=tuple(keys), weights=tuple(weights))
