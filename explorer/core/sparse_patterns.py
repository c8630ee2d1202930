"""Sliding window and sparse/block attention: which cells of the (L, L) score table are computed.

The chapter: "滑动窗口注意力(Mistral 等)——每个词只看最近 w 个邻居,分数表变成带状稀疏矩阵 … L² 降到 L·w";
"稀疏/块状注意力——按预设模式(跳跃、全局锚点)只算部分格子". Every pattern is a boolean (Lq, Lk) table,
True = the cell is computed. Query i stands at key position i + (Lk − Lq) (queries aligned with the last keys,
as the causal mask aligns them); with ``causal`` no pattern reaches a later key. ``pattern_cells`` counts a
pattern's cells for a self-attention of length L from per-row formulas, without building the table (the cost
curves go to L = 8192).
"""
import numpy as np

PATTERNS = ("window", "global_window", "strided", "fixed")
BLOCK_CELLS = 1 << 20  # the table is built in bands of rows of about this many cells


def check_pattern(kind, window=1, stride=1, summary=1, global_tokens=0):
    """Raise ValueError naming the parameter when a pattern's parameters do not make one."""
    if kind not in PATTERNS:
        raise ValueError(f"pattern must be one of {', '.join(PATTERNS)}, got {kind!r}")
    for name, value, low in (("window w", window, 1), ("stride", stride, 1), ("summary c", summary, 1),
                             ("global tokens", global_tokens, 0)):
        if int(value) != value or value < low:
            raise ValueError(f"{name} must be a whole number ≥ {low}, got {value!r}")
    if kind == "fixed" and summary > stride:
        raise ValueError(f"summary c ({summary}) must not exceed the block length (stride {stride})")


def _cells(kind, qpos, kpos, causal, window, stride, summary, global_tokens):
    """The pattern on the grid of query positions ``qpos`` (column) × key positions ``kpos`` (row)."""
    diff = qpos - kpos  # how far back key j lies from query i (negative: a later key)
    far = np.abs(diff)
    if kind == "window":
        keep = far < window
    elif kind == "global_window":
        keep = (far < window) | (kpos < global_tokens) | (qpos < global_tokens)
    elif kind == "strided":
        keep = (far < stride) | (far % stride == 0)
    else:  # fixed: one's own block, and the last ``summary`` positions of every block
        keep = (qpos // stride == kpos // stride) | (kpos % stride >= stride - summary)
    if causal:
        keep &= diff >= 0
    return keep


def pattern_mask(kind, n_queries, n_keys=None, *, causal=False, window=1, stride=1, summary=1, global_tokens=0):
    """The (Lq, Lk) table of the cells a pattern computes (True = computed).

    ``window``: sliding window, |i − j| < w (causal: the w latest keys, i itself included) — "window" and
    "global_window". ``global_tokens``: the first g tokens are global anchors, seen by and seeing every
    token. ``stride`` (l) and ``summary`` (c): the Sparse Transformer's strided pattern (the l latest keys
    and every l-th one back) and fixed pattern (one's own block of l, and the last c positions of every
    block, its "summary").
    """
    check_pattern(kind, window, stride, summary, global_tokens)
    n_keys = n_queries if n_keys is None else n_keys
    kpos = np.arange(n_keys)[None, :]
    qpos_all = np.arange(n_queries) + (n_keys - n_queries)
    out = np.empty((n_queries, n_keys), dtype=bool)
    step = max(1, BLOCK_CELLS // max(n_keys, 1))
    for top in range(0, n_queries, step):
        rows = qpos_all[top:top + step, None]
        out[top:top + step] = _cells(kind, rows, kpos, causal, window, stride, summary, global_tokens)
    return out


def pattern_row_counts(kind, length, *, causal=False, window=1, stride=1, summary=1, global_tokens=0):
    """Cells per row of a pattern over a self-attention of ``length`` tokens, from per-row formulas (no table)."""
    check_pattern(kind, window, stride, summary, global_tokens)
    i = np.arange(length, dtype=np.int64)
    n = int(length)
    if kind in ("window", "global_window"):
        band = np.minimum(i + 1, window) if causal else (np.minimum(i, window - 1) + np.minimum(n - 1 - i, window - 1)
                                                         + 1)
        if kind == "window":
            return band
        g = min(global_tokens, n)
        outside = np.maximum(0, np.minimum(g, i - window + 1))  # global keys j < g further back than the band
        return np.where(i < g, i + 1 if causal else n, band + outside)
    if kind == "strided":
        if causal:
            return np.minimum(i + 1, stride) + i // stride
        local = np.minimum(i, stride - 1) + np.minimum(n - 1 - i, stride - 1) + 1
        return local + i // stride + (n - 1 - i) // stride
    block = i // stride  # fixed
    if causal:  # one's own block so far, and the c summary positions of every earlier (whole) block
        return i - block * stride + 1 + block * summary
    own = np.minimum(stride, n - block * stride)
    total_summary = (n // stride) * summary + max(0, n % stride - (stride - summary))
    own_summary = np.maximum(0, own - (stride - summary))
    return own + total_summary - own_summary


def pattern_cells(kind, length, **params):
    """How many cells of the (L, L) table a pattern computes (self-attention of ``length`` tokens)."""
    return int(pattern_row_counts(kind, length, **params).sum())
