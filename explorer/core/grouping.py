"""Changing how many K/V heads the query heads share (GQA, Ainslie et al. 2023): going to fewer K/V
heads mean-pools the heads of each group — the paper's way of turning multi-head into grouped-query
attention — and going to more repeats them (Hugging Face's ``repeat_kv``), which changes no output."""
import numpy as np

from .heads import kv_head_count

KV_MATRICES = {"direct": (("K", 1), ("V", 1)), "projected": (("Wk", 0), ("Wv", 0))}  # (name, axis of heads)


def regroup(array, axis, old_kv, new_kv, n_heads):
    """``array`` with ``old_kv`` K/V heads side by side along ``axis`` made into ``new_kv``: repeated to
    one per query head, then each group of ``n_heads / new_kv`` mean-pooled."""
    array = np.moveaxis(np.asarray(array, dtype=np.float64), axis, 0)
    width = array.shape[0] // old_kv
    blocks = array.reshape(old_kv, width, *array.shape[1:])
    per_head = np.repeat(blocks, n_heads // old_kv, axis=0)              # (H, width, …)
    pooled = per_head.reshape(new_kv, n_heads // new_kv, width, *array.shape[1:]).mean(axis=1)
    return np.moveaxis(pooled.reshape(new_kv * width, *array.shape[1:]), 0, axis)


def regroup_matrices(matrices, source, n_heads, old_setting, new_setting):
    """The matrices with K and V (or W_k and W_v) holding ``new_setting`` K/V heads instead of
    ``old_setting`` (0 = as many as heads)."""
    old_kv, new_kv = kv_head_count(n_heads, old_setting), kv_head_count(n_heads, new_setting)
    out = dict(matrices)
    if old_kv != new_kv:
        for name, axis in KV_MATRICES[source]:
            out[name] = regroup(matrices[name], axis, old_kv, new_kv, n_heads)
    return out
