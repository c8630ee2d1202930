"""The pipeline's stages recomputed the fast way: head by head into kept buffers, and only what an edit touched.

``run_pipeline`` is the plain reference (the chapter's formulas, fresh arrays). This module gives the
same numbers (to rounding) for the interactive model: full recomputes write into the buffers of the
previous result when the shapes are unchanged (no fresh gigabytes at L = 4096), the softmax runs in
row blocks so its temporaries stay small, finiteness is checked on row maxima rather than on every
cell, heads can be shared out between threads (NumPy releases the GIL), and an edit of a few Q rows
or V columns updates just those rows or columns. Cross-attention (Lq queries, Lk keys) and grouped K/V
heads (H query heads sharing H_kv K/V heads) run through the same code: a query head reads the
columns of its K/V head, ⌊h / (H / H_kv)⌋.
"""
from concurrent.futures import wait
from dataclasses import dataclass, field
from threading import Lock

import numpy as np

from .alibi import alibi_bias
from .head_steps import compute_head, mix_head, raise_overflow, score_head, softmax_rows
from .heads import MultiHeadResult, merge_heads
from .masks import combine_masks
from .pooling import refresh_overview_rows
from .pipeline import (PipelineResult, kv_heads_of, project, rope_positions, rotate, rotate_heads, scale_for,
                       slopes_for)
from .spare_buffers import results_array


@dataclass(frozen=True)
class Inputs:
    """Everything before step ①: Q, K, V as the scores use them, the scale, the mask (cheap, O(L·D))."""

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    q_in: np.ndarray
    k_in: np.ndarray
    x: np.ndarray | None
    pe: np.ndarray | None
    wo: np.ndarray | None
    n_heads: int
    scale: float
    temperature: float
    mask: np.ndarray | None  # (Lq, Lk), True = may attend
    masked_rows: np.ndarray  # (Lq,)
    slopes: np.ndarray | None = None  # ALiBi's per-head slopes, or None
    kv_heads: int | None = None  # H_kv, the K/V heads the query heads share (None: n_heads)
    x_src: np.ndarray | None = None  # projected cross-attention: the keys' token vectors, and their PE
    pe_src: np.ndarray | None = None

    def add_bias(self, s, h, rows):
        """Add head h's ALiBi bias, over the temperature, to the scores ``s`` of the query ``rows``
        (an index array, or a slice whose start is the first row of ``s``)."""
        if self.slopes is not None:
            if isinstance(rows, slice):
                rows = np.arange(rows.start or 0, (rows.start or 0) + s.shape[0])
            s += alibi_bias(self.slopes[h], rows, s.shape[-1]) / self.temperature

    @property
    def d_head(self):
        return self.q.shape[1] // self.n_heads

    @property
    def n_kv(self):
        return self.kv_heads or self.n_heads

    @property
    def dv_head(self):
        return self.v.shape[1] // self.n_kv

    def q_head(self, h):
        """Query head h's columns of q (width d_h)."""
        return self.q[:, h * self.d_head:(h + 1) * self.d_head]

    def kv_head(self, h):
        """The K/V head query head h reads: ⌊h / (H / H_kv)⌋."""
        return h // (self.n_heads // self.n_kv)

    def k_head(self, h):
        """The columns of k that query head h reads (its K/V head's, width d_h)."""
        g = self.kv_head(h)
        return self.k[:, g * self.d_head:(g + 1) * self.d_head]

    def v_head(self, h):
        """The columns of v that query head h mixes (its K/V head's, width V width / H_kv)."""
        g = self.kv_head(h)
        return self.v[:, g * self.dv_head:(g + 1) * self.dv_head]

    def query_heads(self, kv_heads):
        """Every query head that reads one of the K/V heads ``kv_heads``, in order."""
        group = self.n_heads // self.n_kv
        return [h for g in kv_heads for h in range(g * group, (g + 1) * group)]


def prepare(matrices, settings):
    """The inputs of the attention proper: projections, RoPE, scale and mask."""
    p = wo = None
    if settings.source == "projected":
        p = project(matrices, settings)
        q, k, v, wo = p.q, p.k, p.v, matrices["Wo"]
    else:  # copies: results updated in place (``apply_edit``) must never write into the inputs
        q, k, v = (np.array(matrices[n], dtype=np.float64) for n in "QKV")
    q_in, k_in = q, k
    if settings.rope:
        q, k = rotate_heads(q, k, settings)
    heads = settings.heads
    scale = float(scale_for(settings, q.shape[1] // heads))
    mask = combine_masks(None, settings.causal, (q.shape[0], k.shape[0]))
    masked_rows = np.zeros(q.shape[0], bool) if mask is None else ~mask.any(axis=-1)
    return Inputs(q=q, k=k, v=v, q_in=q_in, k_in=k_in, x=getattr(p, "x", None), pe=getattr(p, "pe", None),
                  wo=wo, n_heads=heads, scale=scale, temperature=float(settings.temperature), mask=mask,
                  masked_rows=masked_rows, slopes=slopes_for(settings), kv_heads=kv_heads_of(settings),
                  x_src=getattr(p, "x_src", None), pe_src=getattr(p, "pe_src", None))


@dataclass(frozen=True)
class Buffers:
    """Where a recompute writes: the (H, Lq, Lk) stages and, made on the way, what panels summarise."""

    scores: np.ndarray
    weights: np.ndarray
    head_outputs: np.ndarray
    row_sums: np.ndarray  # (H, Lq): Σ_j weights — shown beside each row (each is 1); NaN until made
    score_range: np.ndarray  # (H, 2): min and max score of each head — the colour levels
    overviews: dict = field(default_factory=dict)  # ("scores" | "weights", head) → screen-sized overview
    fresh: bool = False  # new arrays (their memory not yet touched), not the previous result's
    warm: tuple = (None, 0)  # (head, rows): of fresh arrays, the first rows of that head's scores already touched


def buffers(inputs, previous=None, spare=None):
    """Buffers to write into: the previous result's (H, Lq, Lk) arrays when the shapes still fit, else
    ``spare``'s (``SpareBuffers``, made while the file was read) when they fit, else new ones."""
    h, lq, lk, dv = inputs.n_heads, inputs.q.shape[0], inputs.k.shape[0], inputs.dv_head
    small = np.full((h, lq), np.nan), np.empty((h, 2))  # row sums: NaN until made (see pipeline)
    if previous is not None:
        p = previous.heads
        if (p.scores.shape == (h, lq, lk) and p.head_outputs.shape == (h, lq, dv)
                and p.scores.flags.writeable and p.scores.flags.c_contiguous):
            if spare is not None:
                spare.release()
            return Buffers(p.scores, p.weights, p.head_outputs, *small)
    taken = spare.take((h, lq, lk)) if spare is not None else None
    if taken is not None:  # its thread has stopped: these arrays are this recompute's alone
        return Buffers(*taken, np.empty((h, lq, dv)), *small, fresh=True, warm=(spare.head, spare.touched_rows))
    return Buffers(results_array((h, lq, lk)), results_array((h, lq, lk)), np.empty((h, lq, dv)), *small, fresh=True)


def of_result(result):
    """The Buffers a finished result holds (to update it in place)."""
    heads = result.heads
    return Buffers(heads.scores, heads.weights, heads.head_outputs, heads.row_sums, heads.score_range,
                   result.overviews if result.overviews is not None else {})


def finish(inputs, bufs):
    """Concatenate the heads and apply W_o: the PipelineResult of these buffers."""
    concat = merge_heads(bufs.head_outputs)
    output = concat
    if inputs.wo is not None:
        with np.errstate(over="ignore", invalid="ignore"):
            output = concat @ inputs.wo.T
        if not np.isfinite(output).all():
            raise_overflow("output concat·W_oᵀ", output, 0, 0)
    return _result(inputs, bufs, concat, output)


def _result(inputs, bufs, concat, output, partial_head=None):
    heads = MultiHeadResult(scores=bufs.scores, weights=bufs.weights, head_outputs=bufs.head_outputs, concat=concat,
                            output=output, mask=inputs.mask, masked_rows=inputs.masked_rows, scale=inputs.scale,
                            row_sums=bufs.row_sums, score_range=bufs.score_range)
    return PipelineResult(q=inputs.q, k=inputs.k, v=inputs.v, heads=heads, scale=inputs.scale,
                          temperature=inputs.temperature, x=inputs.x, pe=inputs.pe, q_in=inputs.q_in,
                          k_in=inputs.k_in, wo=inputs.wo, slopes=inputs.slopes, x_src=inputs.x_src,
                          pe_src=inputs.pe_src, overviews=bufs.overviews, partial_head=partial_head)


def recompute(matrices, settings, previous=None, order=None, cancelled=None, summarise=None, executor=None,
              lanes=1, on_shown=None, spare=None, raw=None):
    """Every stage, head by head (in ``order``), reusing ``previous``'s buffers; None if cancelled.

    ``summarise``: the heads whose row sums are made on the way (default all; the others are made
    when asked). ``lanes`` > 1 with a ``concurrent.futures`` ``executor``: heads are
    dealt out in turn to this thread and ``lanes − 1`` tasks on the executor, each writing only its
    own heads — the same numbers, sooner on a machine with cores to spare.
    ``on_shown(partial)``: the first head of ``order`` comes first, on every lane, and as soon as its
    ① and ② are made they are handed over, on this thread, as a partial result (``partial_head``; ③
    None): nothing writes them again in this call, while the other heads follow.
    ``spare``: ``SpareBuffers`` to write into when ``previous``'s do not fit (taken, or released).
    ``raw``: a ``RawScores`` that keeps that head's QKᵀ for the next call (see ``score_head``).
    """
    inputs = prepare(matrices, settings)
    bufs = buffers(inputs, previous, spare)
    order = list(range(inputs.n_heads)) if order is None else list(order)
    summarise = set(order if summarise is None else summarise)
    scored = set()  # heads whose ① and ② are made: only ③ is left
    if on_shown is not None and order:
        if not score_head(inputs, bufs, order[0], cancelled, order[0] in summarise, executor, lanes, raw):
            return None
        on_shown(_result(inputs, bufs, None, None, partial_head=order[0]))
        if cancelled is not None and cancelled():  # overtaken already: no lane need start to find it out
            return None
        scored.add(order[0])
    lanes = max(1, min(lanes if executor is not None else 1, len(order)))

    failed, lock = [len(order)], Lock()  # the first position in order known to fail

    def lane(start):
        """Compute every ``lanes``-th head from ``start``; None, or (position, error or None) where it stopped.
        A head after one that failed elsewhere is not worth computing; one before it still is (it may
        fail first, and a single thread would have named it)."""
        for position in range(start, len(order), lanes):
            h = order[position]

            def stop():
                return failed[0] < position or (cancelled is not None and cancelled())

            if failed[0] < position:
                return None
            try:
                if h in scored and not stop():
                    mix_head(inputs, bufs.weights[h], bufs.head_outputs[h], h)
                elif h in scored or not compute_head(inputs, bufs, h, stop, summarise=h in summarise):
                    return None if failed[0] < position else (position, None)
            except (ArithmeticError, MemoryError, ValueError) as exc:
                with lock:
                    failed[0] = min(failed[0], position)
                return position, exc
        return None

    futures = []
    try:
        futures += [executor.submit(lane, start) for start in range(1, lanes)]
        first = lane(0)
    finally:
        wait(futures)  # no lane may still be writing when this returns
    stops = sorted((stop for stop in [first, *(f.result() for f in futures)] if stop is not None),
                   key=lambda stop: stop[0])
    if stops:  # where a single thread would have stopped first: an error, or a cancel
        _, exc = stops[0]
        if exc is not None:
            raise exc
        return None
    return finish(inputs, bufs)


def inputs_of(result):
    """The Inputs a finished result was computed from (to update it in place after a small edit)."""
    heads = result.heads
    return Inputs(q=result.q, k=result.k, v=result.v, q_in=result.q_in, k_in=result.k_in, x=result.x,
                  pe=result.pe, wo=result.wo, n_heads=result.n_heads, scale=result.scale,
                  temperature=result.temperature, mask=heads.mask, masked_rows=heads.masked_rows,
                  slopes=result.slopes, kv_heads=result.kv_heads, x_src=result.x_src, pe_src=result.pe_src)


def apply_edit(result, matrices, settings, name, rows, cols):
    """Bring ``result`` up to date, in place, after ``name``[rows, cols] changed (direct mode only).

    Q: only those rows of the heads owning ``cols``; K: the heads reading those columns, whole (every
    row's softmax moves); V: only those output columns of the heads reading them, no softmax at all.
    ``rows`` are query rows for Q and key rows for K and V.
    """
    rows = np.asarray(sorted(set(rows)), dtype=np.intp)
    inputs = inputs_of(result)
    if name == "V":
        result.v[:, cols] = matrices["V"][:, cols]
        for h in inputs.query_heads(_heads_of(cols, inputs.dv_head)):
            mix_head(inputs, result.heads.weights[h], result.heads.head_outputs[h], h)
            _refresh_concat(result, h)
        return
    raw, turned = (result.q_in, result.q) if name == "Q" else (result.k_in, result.k)
    new = matrices[name][rows]
    raw[rows] = new
    if settings.rope:
        new = rotate(new, rope_positions(settings, len(turned))[rows], inputs.d_head, settings)
    turned[rows] = new
    bufs = of_result(result)
    heads = _heads_of(cols, inputs.d_head)
    for h in (heads if name == "Q" else inputs.query_heads(heads)):
        if name == "K":
            compute_head(inputs, bufs, h)
            _refresh_concat(result, h)
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            s = inputs.q_head(h)[rows] @ inputs.k_head(h).T
            s *= inputs.scale / inputs.temperature
        inputs.add_bias(s, h, rows)
        w = np.empty_like(s)
        new_lo, new_hi = softmax_rows(None if inputs.mask is None else inputs.mask[rows], s, w, 0, h)
        with np.errstate(over="ignore", invalid="ignore"):
            o = w @ inputs.v_head(h)
        if not np.isfinite(o).all():
            raise_overflow("output weights·v", o, 0, h)
        lo, hi = bufs.score_range[h]
        held_extreme = bufs.scores[h, rows].min() <= lo or bufs.scores[h, rows].max() >= hi
        bufs.scores[h, rows], bufs.weights[h, rows], bufs.head_outputs[h, rows] = s, w, o
        for stage, matrix in (("scores", bufs.scores[h]), ("weights", bufs.weights[h])):
            if (stage, h) in bufs.overviews:
                refresh_overview_rows(bufs.overviews[(stage, h)], matrix, rows)
        bufs.row_sums[h, rows] = w.sum(axis=1)
        # the old rows held an extreme: look at the whole head again; else the range only widens
        bufs.score_range[h] = ((bufs.scores[h].min(), bufs.scores[h].max()) if held_extreme
                               else (min(lo, new_lo), max(hi, new_hi)))
        _refresh_concat(result, h, rows=rows)


def edit_cost(result, name, rows, cols):
    """Roughly how many multiply-adds ``apply_edit`` will take (to decide: now, or on the worker)."""
    n_heads, n_queries, n_keys = result.heads.scores.shape
    group = n_heads // result.kv_heads
    if name == "Q":
        width = result.d_head
        return len(_heads_of(cols, width)) * len(set(rows)) * n_keys * (2 * width + 10)
    width = result.d_head if name == "K" else result.heads.head_outputs.shape[2]
    heads = group * len(_heads_of(cols, width))
    return heads * n_queries * n_keys * (2 * width + 10 if name == "K" else width)


def _heads_of(cols, width):
    cols = list(cols)
    return sorted({c // width for c in cols})


def _refresh_concat(result, h, rows=None):
    heads = result.heads
    dv = heads.head_outputs.shape[2]
    block = heads.head_outputs[h] if rows is None else heads.head_outputs[h, rows]
    if rows is None:
        heads.concat[:, h * dv:(h + 1) * dv] = block
    else:
        heads.concat[rows, h * dv:(h + 1) * dv] = block


def full_cost(matrices, settings):
    """Roughly how many multiply-adds a whole recompute takes."""
    if settings.source == "projected":
        n_queries, width = matrices["X"].shape
        n_keys = len(matrices["X_src"]) if matrices.get("X_src") is not None else n_queries
        d, dk, dv = matrices["Wq"].shape[0], matrices["Wk"].shape[0], matrices["Wv"].shape[0]
        projecting = width * (n_queries * d + n_keys * (dk + dv))
    else:
        (n_queries, d), n_keys, dv = matrices["Q"].shape, len(matrices["K"]), matrices["V"].shape[1]
        projecting = 0
    d_vh = dv // kv_heads_of(settings)  # what one query head mixes; the concat has H of them
    return projecting + n_queries * n_keys * (2 * d + settings.heads * (d_vh + 10))
