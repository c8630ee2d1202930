"""A checkpoint opened for the explorer: tokenize, run the forward pass, turn any head into a session.

``open_checkpoint(folder)`` checks everything that can be checked before a run (config, every header,
every tensor's name and shape, the tokenizer), so later failures are not file failures.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

import numpy as np

from explorer.core.errors import CheckpointError, ShapeError
from explorer.core.translatable import QT_TRANSLATE_NOOP
from explorer.core.session import Session

from .architectures import Layout
from .config import ModelConfig, read_config
from .forward import forward
from .head_roles import (HeadScores, NotableHead, induction_scores, previous_token_scores, read_notable_heads,
                         repeated_random_ids)
from .head_session import build_head_session, check_exact
from .hf_cache import find_cached, hub_cache_dir, repo_id
from .tensor_store import TensorStore
from .tokens import is_byte_level, label, load_tokenizer


@dataclass
class Run:
    """What one forward pass produced, for the text it was given."""

    tokens: list[str]            # as the tokenizer split the text ("Ġcat")
    ids: list[int]
    labels: list[str]            # the tokens as shown ("·cat")
    attentions: np.ndarray       # (layers, heads, L, L) float32: every head's attention weights
    attn_inputs: np.ndarray      # (layers, L, D) float32: each layer's normalized attention input X
    last_logits: np.ndarray      # (vocab,) float32: what the model says comes next
    edits: Mapping = field(default_factory=dict)   # (layer, head) → Session the run used instead

    def next_token_probabilities(self) -> np.ndarray:
        """softmax(last_logits): the probability of each vocabulary entry coming next."""
        z = self.last_logits.astype(np.float64)
        p = np.exp(z - z.max())
        return p / p.sum()


class Model:
    """An opened checkpoint. Geometry: ``config`` (layers, heads, kv_heads, head_dim, hidden, vocab, …)."""

    def __init__(self, folder: str | Path, *, cache_weights: bool | None = None):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise CheckpointError(QT_TRANSLATE_NOOP("Checkpoint", "{folder}: not a folder (a checkpoint is a folder "
                                                    "with config.json, model.safetensors and tokenizer.json)").format(
                                      folder=self.folder))
        self.config: ModelConfig = read_config(self.folder)
        self.store = TensorStore(self.folder, cache=cache_weights)
        self.layout = Layout(self.config, self.store)
        self.tokenizer = load_tokenizer(self.folder)
        self._byte_level = is_byte_level(self.tokenizer)
        in_cache = self.folder.parent.name == "snapshots" and self.folder.parents[1].name.startswith("models--")
        self.name = repo_id(self.folder.parents[1].name) if in_cache else self.folder.name
        self.notable_heads: list[NotableHead] | None = read_notable_heads(self.folder)

    def __repr__(self):
        c = self.config
        return (f"<Model {self.name}: {c.model_type}, {c.layers} layers × {c.heads} heads "
                f"({c.kv_heads} K/V), d_h = {c.head_dim}, D = {c.hidden}>")

    def tokenize(self, text: str) -> tuple[list[str], list[int]]:
        """The text as the tokenizer splits it (special tokens such as BOS added as the model expects)."""
        encoding = self.tokenizer.encode(text)
        return list(encoding.tokens), list(encoding.ids)

    def labels(self, tokens) -> list[str]:
        """Tokens as a person reads them: bytes decoded, spaces "·", newlines "↵"."""
        return [label(t, self._byte_level) for t in tokens]

    def run(self, text: str, *, progress: Callable[[str], None] | None = None,
            cancelled: Callable[[], bool] | None = None, edits: Mapping[tuple[int, int], Session] | None = None
            ) -> Run:
        """Tokenize ``text`` and run the model; see ``run_ids``."""
        tokens, ids = self.tokenize(text)
        return self.run_ids(ids, tokens=tokens, progress=progress, cancelled=cancelled, edits=edits)

    def run_ids(self, ids, *, tokens=None, progress=None, cancelled=None, edits=None) -> Run:
        """The forward pass on token ids. ``progress("layer k of N")`` is called before each layer; when
        ``cancelled()`` turns true it stops there with RunCancelled. ``edits`` maps (layer, head) to a session
        (from ``head_session``, then edited) whose weights and output replace that head's (F25)."""
        ids = [int(i) for i in ids]
        if tokens is None:
            tokens = [self.tokenizer.id_to_token(i) or f"<{i}>" for i in ids]
        replaced = {key: self._edited_head(key, session, len(ids)) for key, session in (edits or {}).items()}
        self.layout.store.check_unchanged()
        result = forward(self.layout, ids, progress=progress, cancelled=cancelled, head_outputs=replaced)
        return Run(tokens=list(tokens), ids=ids, labels=self.labels(tokens), attentions=result.attentions,
                   attn_inputs=result.attn_inputs, last_logits=result.last_logits, edits=dict(edits or {}))

    def generate(self, text: str, n_new: int, *, progress=None, cancelled=None):
        """Greedy generation of ``n_new`` tokens after ``text`` with a K/V cache in every layer
        (``generate.Generation``: the new ids, each one's 1 × t weights per layer and head)."""
        from .generate import generate
        _, ids = self.tokenize(text)
        self.layout.store.check_unchanged()
        return generate(self.layout, ids, n_new, progress=progress, cancelled=cancelled)

    def text_of(self, ids) -> str:
        """The text these token ids spell, special tokens (BOS) left out: what was typed to get them."""
        return self.tokenizer.decode([int(i) for i in ids], skip_special_tokens=True)

    def token_label(self, token_id: int) -> str:
        return label(self.tokenizer.id_to_token(int(token_id)) or f"<{token_id}>", self._byte_level)

    def _check_head(self, layer: int, head: int) -> None:
        c = self.config
        if not (0 <= layer < c.layers and 0 <= head < c.heads):
            raise ShapeError(f"layer {layer} head {head} does not exist: the model has {c.layers} layers "
                             f"(0…{c.layers - 1}) of {c.heads} heads (0…{c.heads - 1})")

    def _edited_head(self, key, session: Session, length: int):
        """An edited head's weights (L, L) and output contribution (L, D), computed as the explorer does."""
        from .flow_back import head_contribution
        layer, head = key
        self._check_head(layer, head)
        weights, output = head_contribution(session.matrices, session.settings)
        if output.shape != (length, self.config.hidden):
            raise ShapeError(f"the session for layer {layer} head {head} gives one head's output of shape "
                             f"{output.shape}; the model needs ({length}, {self.config.hidden}) with one head")
        return weights.astype(np.float32), output.astype(np.float32)

    def head_session(self, run: Run, layer: int, head: int) -> Session:
        """Head ``head`` of ``layer`` (indices from 0; the title counts from 1, as the window does) in ``run``
        as an editable session whose scores and weights are the model's (projected mode; biases carried
        by a constant-1 last column of X — see head_session.py)."""
        self._check_head(layer, head)
        title = f"{self.name} · layer {layer + 1} head {head + 1}"  # counted from 1, as the window counts
        return build_head_session(self.layout.layer(layer), self.config, run.attn_inputs[layer], run.labels,
                                  layer, head, title)

    def can_open_heads(self, length: int = 1) -> str | None:
        """None when heads can become sessions, else why not (RoPE scaling, a sliding window in use)."""
        try:
            check_exact(self.config, length)
        except CheckpointError as exc:
            return str(exc)
        return None

    def top_next_tokens(self, run: Run, k: int = 10) -> list[tuple[str, float]]:
        """The k likeliest next tokens (as labels) and their probabilities."""
        p = run.next_token_probabilities()
        best = np.argsort(-p)[:k]
        return [(label(self.tokenizer.id_to_token(int(i)) or f"<{i}>", self._byte_level), float(p[i]))
                for i in best]

    def head_scores(self, half: int = 32, samples: int = 8, seed: int = 0) -> HeadScores:
        """Previous-token and induction scores of every head on random token blocks repeated twice."""
        special = set(self.tokenizer.get_added_tokens_decoder())
        candidates = [i for i in range(min(self.config.vocab, self.tokenizer.get_vocab_size())) if i not in special]
        prefix = self.tokenizer.encode("").ids      # BOS where the tokenizer adds one
        prev, induction = [], []
        for s in range(samples):
            ids = repeated_random_ids(candidates, half, seed + s, prefix)
            attentions = self.run_ids(ids).attentions
            prev.append(previous_token_scores(attentions[..., len(prefix):, len(prefix):]))
            induction.append(induction_scores(attentions, half, start=len(prefix)))
        return HeadScores(previous_token=np.mean(prev, axis=0), induction=np.mean(induction, axis=0), half=half,
                          samples=samples, seed=seed)


def open_checkpoint(folder: str | Path, *, cache_weights: bool | None = None) -> Model:
    """Open a Hugging Face checkpoint folder, or a repo id ("gpt2") already in the local HF cache.

    ``cache_weights``: keep float32 weights after their first read (default: when they fit in 2 GiB)."""
    path = Path(folder)
    if not path.exists() and isinstance(folder, str) and not path.is_absolute():
        cached = find_cached(folder)
        if cached is None:
            raise CheckpointError(QT_TRANSLATE_NOOP("Checkpoint", "{folder}: no such folder, and no such model in "
                                                    "the Hugging Face cache ({cache}); download it first, e.g. `hf "
                                                    "download {folder}`").format(folder=folder, cache=hub_cache_dir()))
        path = cached
    return Model(path, cache_weights=cache_weights)
