"""One head of a real model as an ordinary, editable explorer session with the model's own numbers.

The session is in projected mode: X is the layer's normalized attention input (L, D), W_q, W_k, W_v
are the head's rows of the projections (for a GQA model, the K/V head its group shares), W_o its
slice of the output projection, causal on, RoPE as the model has it (its base and llama3 scaling), one
head. Biases (GPT-2's, and Qwen2's q/k/v biases) are carried exactly by one extra column: X gets a last
column of ones and each W the bias as its last column, so X·Wᵀ = x·wᵀ + b. The session's output is the head's contribution
to the attention output, before the output bias (which no single head owns).
"""
from __future__ import annotations

from dataclasses import asdict

import numpy as np

from explorer.core.errors import CheckpointError, SessionError
from explorer.core.session import Session, Settings, validate_session
from explorer.core.session_check import check_size
from explorer.core.session_limits import MAX_CELLS, MAX_DIM
from explorer.core.settings_schema import check_value


def head_slices(config, head: int) -> tuple[slice, slice]:
    """The columns of the head's queries and of the K/V head it reads (HF's repeat_kv: head // group)."""
    d = config.head_dim
    kv = head // config.group
    return slice(head * d, (head + 1) * d), slice(kv * d, (kv + 1) * d)


def rope_settings(config) -> dict:
    """The settings of a session that turn q and k as the model does: RoPE's base and its llama3 scaling."""
    if config.rope_theta is None:
        return {"rope": False}
    settings = {"rope": True, "rope_base": float(config.rope_theta), "rope_style": "half"}
    if config.rope_scaling is not None:
        settings.update({"rope_scaling": "llama3", **{f"rope_{key}": value
                                                     for key, value in asdict(config.rope_scaling).items()}})
    return settings


def check_exact(config, length: int) -> None:
    """Refuse what a session cannot reproduce: RoPE values outside a session's ranges, a sliding window in use."""
    for name, value in rope_settings(config).items():
        try:
            check_value(name, value, place=f"this {config.model_type}'s RoPE setting {name}")
        except ValueError as exc:
            raise CheckpointError(f"config.json: {exc}, so its heads cannot be opened as sessions (the layers × "
                                  f"heads grid works)") from None
    if config.sliding_window is not None and length > config.sliding_window:
        raise CheckpointError(f"the text has {length} tokens, more than this {config.model_type}'s sliding "
                              f"window of {config.sliding_window}, which a session cannot hold")


def check_fits(weights, config, length: int, where: str) -> None:
    """Refuse, before X and the W are copied into float64, a head whose matrices are larger than a session
    holds: a width above MAX_DIM, or an X (L × D) of more than MAX_CELLS cells."""
    biased = any(b is not None for b in (weights.bq, weights.bk, weights.bv))
    width, d = config.hidden + biased, config.head_dim
    for name, shape in (("Wq", (d, width)), ("Wo", (config.hidden, d)), ("X", (length, width))):
        try:
            check_size(name, *shape, where)
        except SessionError as exc:
            wide = f"{config.hidden} wide" + (" plus the column of ones that carries its biases" if biased else "")
            fits = (f"a text of at most {MAX_CELLS // width} tokens would fit" if name == "X" else
                    f"a session holds widths up to {MAX_DIM}, and this {config.model_type} is {wide}")
            raise CheckpointError(f"{exc} (this head cannot be opened as a session: {fits})") from None


def head_matrices(weights, config, x: np.ndarray, head: int) -> dict[str, np.ndarray]:
    """X, W_q, W_k, W_v, W_o (float64, as a session holds them) and Q, K, V = X·Wᵀ before RoPE."""
    qs, kvs = head_slices(config, head)
    x = np.asarray(x, dtype=np.float64)
    ws = [np.asarray(w[:, cols], dtype=np.float64).T for w, cols in ((weights.wq, qs), (weights.wk, kvs),
                                                                     (weights.wv, kvs))]
    biases = [b if b is None else b[cols] for b, cols in ((weights.bq, qs), (weights.bk, kvs), (weights.bv, kvs))]
    if any(b is not None for b in biases):
        x = np.hstack([x, np.ones((x.shape[0], 1))])
        ws = [np.hstack([w, np.zeros((w.shape[0], 1)) if b is None else np.asarray(b, np.float64)[:, None]])
              for w, b in zip(ws, biases)]
    wq, wk, wv = ws
    wo = np.asarray(weights.wo[qs, :], dtype=np.float64).T          # (D, d_h): output = concat·W_oᵀ
    return {"Q": x @ wq.T, "K": x @ wk.T, "V": x @ wv.T, "X": x, "Wq": wq, "Wk": wk, "Wv": wv, "Wo": wo}


def build_head_session(weights, config, x, labels, layer: int, head: int, title: str) -> Session:
    """The session of ``head`` in ``layer``, validated; CheckpointError if it cannot be held exactly."""
    where = f"layer {layer + 1} head {head + 1}"   # as the window counts them (the arguments count from 0)
    check_exact(config, x.shape[0])
    check_fits(weights, config, x.shape[0], where)
    settings = Settings(source="projected", heads=1, causal=True, positions="none", scale_mode="inv_sqrt_d",
                        selected_row=x.shape[0] - 1, **rope_settings(config))
    matrices = head_matrices(weights, config, x, head)
    if matrices["X"].shape[1] > x.shape[1]:
        title += " · X's last column is 1: it carries the biases"
    session = Session(tokens=tuple(labels), matrices=matrices, settings=settings, title=title)
    try:
        return validate_session(session, where=where)
    except SessionError as exc:
        raise CheckpointError(f"{exc} (this head cannot be opened as a session)") from None
