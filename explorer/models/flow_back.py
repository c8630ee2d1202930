"""Edits flow back into the model (F25): a session made from a real head stands in for that head, the
rest of the forward pass runs again, and what the model says next is compared with what it said.

The session's own pipeline (``core.pipeline.run_pipeline``: X·Wᵀ with the biases in X's column of
ones, RoPE, scale, temperature, mask, softmax) gives the head's weights A (L, L) and its share of the
attention output O·W_oᵀ (L, D), before the output bias that no single head owns. ``forward`` puts
both in place of the model's head (``Model.run_ids(edits=…)``). Layers and heads are counted from 0
here, as in Python; the window shows them from 1. A session file keeps the head's ``HeadSource`` without
its logits (``saved``, ``from_saved``); ``with_logits`` computes them again, and ``checkpoint_misfit`` says
when the checkpoint no longer is the one the head came from.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np

from explorer.core.errors import ShapeError
from explorer.core.pipeline import run_pipeline
from explorer.core.plural import count
from explorer.core.session_data import ModelHead
from explorer.core.translatable import QT_TRANSLATE_NOOP


@dataclass(frozen=True, eq=False)
class HeadSource:
    """Which head of which checkpoint a session was made from, on which token ids, and what the model
    said next before any edit (its last logits). Small: undo steps keep it with the session."""

    folder: Path
    name: str
    ids: tuple[int, ...]
    layer: int
    head: int
    # (vocab,) float32, read-only: the unedited model's next-token logits; None for a source read from a
    # session file, until ``with_logits`` computes them again
    logits: np.ndarray | None
    hidden: int  # D, the width a head's output is carried back into
    learned_positions: bool = False  # GPT-2: position vectors (wpe) are already added into X

    @classmethod
    def from_saved(cls, saved: ModelHead) -> "HeadSource":
        """The source a session file names (``Session.model_head``), without logits. Its folder is resolved as the
        open model's is (``Checkpoints.serves`` compares them); one written on another system stays as written."""
        folder = Path(saved.folder)
        from explorer.models import EMBEDDED_MODEL
        if saved.name == EMBEDDED_MODEL.name and not folder.is_dir():   # the shipped model, saved by another install
            folder = EMBEDDED_MODEL
        return cls(folder=folder.resolve() if folder.is_absolute() else folder, name=saved.name, ids=tuple(saved.ids), layer=saved.layer,
                   head=saved.head, logits=None, hidden=saved.hidden, learned_positions=saved.learned_positions)

    def saved(self) -> ModelHead:
        """What a session file keeps of it: everything but the logits (they are computed again)."""
        return ModelHead(folder=str(self.folder), name=self.name, layer=self.layer, head=self.head,
                         hidden=self.hidden, learned_positions=self.learned_positions, ids=self.ids)

    def same_head(self, other) -> bool:
        """The same head of the same checkpoint on the same token ids."""
        return (isinstance(other, HeadSource) and (self.folder, self.ids, self.layer, self.head)
                == (other.folder, other.ids, other.layer, other.head))

    def describe(self) -> str:
        """"layer 2 head 1 of tiny-induction", counted from 1 as the window counts."""
        return QT_TRANSLATE_NOOP("ModelView", "layer {layer} head {head} of {name}").format(
            layer=self.layer + 1, head=self.head + 1, name=self.name)


def head_source(model, run, layer: int, head: int) -> HeadSource:
    """The source of ``model.head_session(run, layer, head)``."""
    logits = np.array(run.last_logits, dtype=np.float32)
    logits.flags.writeable = False
    return HeadSource(folder=Path(model.folder).resolve(), name=model.name, ids=tuple(int(i) for i in run.ids),
                      layer=int(layer), head=int(head), logits=logits, hidden=model.config.hidden,
                      learned_positions=model.config.rope_theta is None)


def checkpoint_misfit(config, source: HeadSource) -> str | None:
    """Why a checkpoint of ``config`` (a ModelConfig) is no longer the one ``source`` came from, or None: the
    head's layer or head beyond it, another hidden width, a vocabulary without the text's ids, other positions."""
    if source.layer >= config.layers or source.head >= config.heads:
        return (f"it has {count(config.layers, 'layer')} of {count(config.heads, 'head')}, and the session came "
                f"from layer {source.layer + 1} head {source.head + 1}")
    if config.hidden != source.hidden:
        return f"its hidden width is {config.hidden}; the head's output was {source.hidden} wide"
    highest = max(source.ids)
    if highest >= config.vocab:
        return f"its vocabulary has {config.vocab:,} entries, and the text has token id {highest:,}"
    if (config.rope_theta is None) != source.learned_positions:
        now = "learned position vectors" if config.rope_theta is None else "RoPE"
        return f"it places tokens with {now} now, not as the model the head came from did"
    return None


def with_logits(model, source: HeadSource, *, progress: Callable[[str], None] | None = None,
                cancelled: Callable[[], bool] | None = None) -> tuple[HeadSource, np.ndarray]:
    """The original forward pass on the source's token ids, unedited: the source with that pass's next-token
    logits (a source read from a session file has none), and the pass's weights of the layers after the head's."""
    run = model.run_ids(source.ids, progress=progress, cancelled=cancelled)
    logits = np.array(run.last_logits, dtype=np.float32)
    logits.flags.writeable = False
    return replace(source, logits=logits), run.attentions[source.layer + 1:]


def misfit(source: HeadSource, session) -> str | None:
    """Why ``session`` (a Session, or anything with its tokens, cross, settings and matrices) cannot stand
    in for its head, or None when it can."""
    s, m = session.settings, session.matrices
    if session.cross:
        return "it reads a second sequence (cross-attention); the model's head reads the text itself"
    if s.heads != 1:
        return f"it has {s.heads} heads; it stands in for one head of the model (set Heads to 1)"
    rows, length = len(session.tokens), len(source.ids)
    if rows != length:
        return (f"it has {rows} tokens and the model's text {length}: a head reads one row per token of the "
                f"text (change the text in the Model view, then open the head again)")
    wo = m.get("Wo")
    if wo is None:
        return f"it has no W_o to carry its output back into the model's {source.hidden} dimensions"
    if wo.shape[0] != source.hidden:
        return f"its W_o has {wo.shape[0]} rows; the model's attention output has {source.hidden} dimensions"
    return None


def head_contribution(matrices, settings) -> tuple[np.ndarray, np.ndarray]:
    """The head's weights A (L, L) and its contribution O·W_oᵀ (L, D) from the session's own pipeline.
    Projected: the pipeline applies W_o itself. Direct (Q, K, V edited by hand): A·V, then the W_o the
    head came with."""
    result = run_pipeline(matrices, settings)
    if result.n_heads != 1:
        raise ShapeError(f"the session has {result.n_heads} heads; it stands in for one head of the model")
    output = result.heads.output
    if settings.source != "projected":
        wo = matrices.get("Wo")
        if wo is None or wo.shape[1] != output.shape[1]:
            raise ShapeError(f"in direct mode the output A·V has {output.shape[1]} columns and needs a W_o with as "
                             f"many to reach the model's width; the session's W_o is "
                             f"{'missing' if wo is None else '×'.join(map(str, wo.shape))}")
        output = output @ np.asarray(wo).T
    return result.heads.weights[0], output


def probabilities(logits: np.ndarray) -> np.ndarray:
    """softmax(logits) in float64."""
    z = np.asarray(logits, dtype=np.float64)
    p = np.exp(z - z.max())
    return p / p.sum()


@dataclass(frozen=True)
class NextToken:
    """A vocabulary entry: its label (spaces shown as ·) and its probability before and after the edit."""

    token_id: int
    label: str
    before: float
    after: float

    @property
    def change(self) -> float:
        return self.after - self.before


@dataclass(frozen=True)
class NextTokenChange:
    """What the model says next after the last token, without and with the edited head."""

    before_top: tuple[NextToken, ...]  # the k likeliest before the edit (with each one's probability after)
    after_top: tuple[NextToken, ...]   # the k likeliest with the edited head (with each one's before)
    moved: float                       # ½·Σ|p_after − p_before|: the share of probability that moved
    later_heads: tuple[tuple[int, int, float], ...]  # (layer, head, change), most changed first
    last_token: str                    # the label of the token the prediction follows
    layers: int                        # how many layers the model has (to say whether any come later)


def later_head_changes(before: np.ndarray, after: np.ndarray, first_layer: int, top: int = 4):
    """The heads of ``first_layer`` onwards whose weights changed most: (layer, head, c), c the mean over
    query rows of ½·Σ_j |a_after − a_before| (0: the same weights, 1: all weight moved elsewhere).
    ``before`` and ``after`` hold those layers only, (layers, heads, L, L)."""
    if before.shape[0] == 0:
        return ()
    change = 0.5 * np.abs(after.astype(np.float64) - before).sum(axis=-1).mean(axis=-1)   # (layers, heads)
    order = np.argsort(-change, axis=None, kind="stable")[:top]
    return tuple((first_layer + int(i // change.shape[1]), int(i % change.shape[1]), float(change.flat[i]))
                 for i in order)


def next_token_change(model, source: HeadSource, session, *, k: int = 8,
                      progress: Callable[[str], None] | None = None, cancelled: Callable[[], bool] | None = None,
                      baseline: np.ndarray | None = None) -> tuple[NextTokenChange, np.ndarray]:
    """Run ``model`` on the source's token ids with ``session`` in place of its head and compare the
    next-token probabilities with the unedited model's. ``baseline``: the unedited run's weights of the
    layers after the head's (computed here when None). Returns the change and that baseline."""
    problem = misfit(source, session)
    if problem is not None:
        raise ShapeError(f"the session cannot stand in for {source.describe()}: {problem}")
    if source.logits is None:
        raise ShapeError(f"what {source.describe()} said before any edit is not known yet (with_logits computes it)")
    first = source.layer + 1
    if baseline is None:
        baseline = model.run_ids(source.ids, progress=progress, cancelled=cancelled).attentions[first:]
    run = model.run_ids(source.ids, progress=progress, cancelled=cancelled,
                        edits={(source.layer, source.head): session})
    before, after = probabilities(source.logits), run.next_token_probabilities()

    def entries(ids):
        return tuple(NextToken(int(i), model.token_label(int(i)), float(before[i]), float(after[i])) for i in ids)

    change = NextTokenChange(
        before_top=entries(np.argsort(-before, kind="stable")[:k]),
        after_top=entries(np.argsort(-after, kind="stable")[:k]),
        moved=float(0.5 * np.abs(after - before).sum()),
        later_heads=later_head_changes(baseline, run.attentions[first:], first),
        last_token=model.token_label(source.ids[-1]), layers=model.config.layers)
    return change, baseline
