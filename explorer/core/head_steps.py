"""One head's steps ① and ② (and ③) into kept buffers: the softmax in row blocks, shared out between lanes.

What ``recompute`` runs for each head, and first for the shown head of a recompute: QKᵀ whole (or kept
from the last temperature step), then the scale, the bias, the mask and the softmax block by block,
each block taken by the next lane free, its row sums and screen-sized overviews made on the way.
"""
from concurrent.futures import wait
from threading import Lock

import numpy as np

from .errors import NonFiniteError
from .pooling import needs_overview, overview_rows, overview_shape

BLOCK_CELLS = 1 << 19  # cells per softmax block: temporaries of ~4 MiB whatever L is
SHARED_CELLS = 1 << 18  # … when lanes share a head: blocks taken by whichever lane is free (one may be held up)


def compute_head(inputs, bufs, h, cancelled=None, summarise=True):
    """Steps ①②③ for head ``h`` into ``bufs``; False if ``cancelled()`` said stop (the head is then torn).

    ``summarise``: also fill the head's row sums and, larger than a screen, its overviews on the way;
    otherwise the row sums stay NaN and ``PipelineResult.row_sums`` makes them if a panel asks. The
    score range is always made: the Heads panel colours every head by it.
    """
    if not score_head(inputs, bufs, h, cancelled, summarise):
        return False
    mix_head(inputs, bufs.weights[h], bufs.head_outputs[h], h)
    return True


def score_head(inputs, bufs, h, cancelled=None, summarise=True, executor=None, lanes=1, raw=None):
    """Steps ① and ② for head ``h`` into ``bufs``, its summaries made block by block on the way (see
    ``compute_head``); False if ``cancelled()`` said stop. With ``lanes`` > 1 and an ``executor`` the
    blocks after QKᵀ are shared out, each taken by the next lane free: the same numbers (each row's softmax
    is its own, an overview block is its extreme), sooner — what the shown head of a recompute needs first.
    ``raw``: a ``RawScores`` whose kept QKᵀ is used when q and k are unchanged (a temperature step).
    """
    scores, weights = bufs.scores, bufs.weights
    if cancelled is not None and cancelled():  # before QKᵀ, which cannot stop half way (~0.1 s at L = 4096)
        return False
    n_rows, n_keys = scores.shape[1:]
    views = summarise and needs_overview(scores.shape)
    (view_shape, tall) = overview_shape((n_rows, n_keys)) if views else ((0, 0), 1)
    lanes = max(1, lanes if executor is not None else 1)
    cells = min(BLOCK_CELLS, SHARED_CELLS) if lanes > 1 else BLOCK_CELLS
    step = max(tall, cells // n_keys // tall * tall)  # a block starts where an overview block does
    tops = list(range(0, n_rows, step))
    lanes = min(lanes, len(tops))

    warm = bufs.warm[1] if bufs.warm[0] == h else 0  # rows touched while the file was read

    def touch(j):
        scores[h, warm + j * (n_rows - warm) // lanes:warm + (j + 1) * (n_rows - warm) // lanes] = 0.0

    if bufs.fresh and lanes > 1 and warm < n_rows:  # new memory: the kernel maps it at first touch (~0.1 s
        _share(executor, lanes, touch)  # per 128 MiB on a VM), and QKᵀ would meet it all on one thread
    product = None if raw is None else raw.product(inputs.q_head(h), inputs.k_head(h))
    if product is None:
        with np.errstate(over="ignore", invalid="ignore"):
            np.matmul(inputs.q_head(h), inputs.k_head(h).T, out=scores[h])  # whole: bands would change the bits
        product = scores[h]
    if cancelled is not None and cancelled():
        return False
    factor = inputs.scale / inputs.temperature  # times q·kᵀ, cell by cell: in bands, the same bits
    shown = {stage: np.empty(view_shape, np.float32) for stage in ("scores", "weights")} if views else {}
    blocks, taking = iter(range(len(tops))), Lock()  # taken in order, each by the next lane free
    failed = {}  # block → its error: a block after one of them is not begun, one before it goes on (it may fail first)

    def band(j):
        lo, hi = np.inf, -np.inf
        while True:
            with taking:
                b = next(blocks, None)
            if b is None:
                return lo, hi
            if any(f < b for f in list(failed)) or (cancelled is not None and cancelled()):
                return None
            top = tops[b]
            rows = slice(top, top + step)
            try:
                with np.errstate(over="ignore", invalid="ignore"):
                    np.multiply(product[rows], factor, out=scores[h, rows])
                inputs.add_bias(scores[h, rows], h, rows)
                block_lo, block_hi = softmax_rows(inputs.mask, scores[h, rows], weights[h, rows], top, h)
            except (ArithmeticError, ValueError) as exc:
                failed[b] = exc
                raise
            lo, hi = min(lo, block_lo), max(hi, block_hi)
            if summarise:
                bufs.row_sums[h, rows] = weights[h, rows].sum(axis=1)
            if views:
                at = slice(top // tall, -(-min(top + step, n_rows) // tall))
                shown["scores"][at] = overview_rows(scores[h, rows], (n_rows, n_keys))
                shown["weights"][at] = overview_rows(weights[h, rows], (n_rows, n_keys), signed=False)  # ≥ 0
        return lo, hi

    outcomes = _share(executor, lanes, band)
    if failed:  # the first block's error is the one a single thread would have met
        raise failed[min(failed)]
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    if any(outcome is None for outcome in outcomes):
        return False
    bufs.score_range[h] = min(lo for lo, _ in outcomes), max(hi for _, hi in outcomes)
    for stage, view in shown.items():
        bufs.overviews[(stage, h)] = view
    return True


def _share(executor, lanes, work):
    """``work(j)`` for j = 0 … lanes − 1, j = 0 on this thread and the rest on ``executor``; returns
    each one's outcome (its value, or the ArithmeticError or ValueError it raised) once all are done."""
    futures = []
    try:
        futures += [executor.submit(work, j) for j in range(1, lanes)]
        outcomes = [_outcome(work, 0)]
    finally:
        wait(futures)  # no band may still be writing when this returns
    return outcomes + [_outcome(f.result) for f in futures]


def _outcome(call, *args):
    """``call(*args)``, or the ArithmeticError or ValueError it raised."""
    try:
        return call(*args)
    except (ArithmeticError, ValueError) as exc:
        return exc


def softmax_rows(mask, s, w, top, h):
    """Step ② for a block of rows: the core's softmax (max-shift, exp, divide), written into ``w``.
    Returns the block's smallest and largest score (checked finite on the way)."""
    m = s.max(axis=1, keepdims=True)
    block_lo = float(s.min())
    if not (np.isfinite(m).all() and np.isfinite(block_lo)):  # NaN and ±∞ reach the extremes
        raise_overflow("scores q·kᵀ·scale", s, top, h)
    np.subtract(s, m, out=w)
    if mask is not None:  # rows top … of the (Lq, Lk) mask (True = may attend)
        allowed = mask[top:top + s.shape[0]]
        np.copyto(w, -np.inf, where=~allowed)
        if not allowed.all(axis=1).all():  # the shift must use the max over allowed keys only
            m2 = np.where(allowed, s, -np.inf).max(axis=1, keepdims=True)
            m2 = np.where(np.isfinite(m2), m2, 0.0)
            np.subtract(s, m2, out=w)
            np.copyto(w, -np.inf, where=~allowed)
    with np.errstate(over="ignore", under="ignore"):
        np.exp(w, out=w)
    total = w.sum(axis=1, keepdims=True)
    positive = total > 0
    if positive.all():
        np.divide(w, total, out=w)  # the same numbers as with ``where``, without its slower loop
    else:
        np.divide(w, total, out=w, where=positive)  # a fully masked row stays all exp(−∞) = 0
    return block_lo, float(m.max())


def mix_head(inputs, w, out, h):
    """Step ③ for one head: out = w·v_h, checked for overflow on its column maxima."""
    with np.errstate(over="ignore", invalid="ignore"):
        np.matmul(w, inputs.v_head(h), out=out)
    if not np.isfinite(np.abs(out).max(axis=0)).all():
        raise_overflow("output weights·v", out, 0, h)


def raise_overflow(what, block, top, h):
    bad = tuple(int(i) for i in np.argwhere(~np.isfinite(block))[0])
    raise NonFiniteError(f"{what} overflowed at head {h + 1}, ({top + bad[0]}, {bad[1]}): "  # heads count from 1
                         f"the values are too large to multiply")
