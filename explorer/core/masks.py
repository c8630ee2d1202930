"""Masks: the chapter's lower-triangular "通行证". ``True`` means the query may attend to the key."""
import numpy as np

from .errors import ShapeError


def causal_mask(n_queries, n_keys=None):
    """Boolean (Lq, Lk) lower-triangular mask: query i may see keys j <= i (no peeking at the future).

    For Lq != Lk the queries are aligned with the *last* Lq keys, as PyTorch's bottom-right
    causal mask does for decoding with a KV cache.
    """
    n_keys = n_queries if n_keys is None else n_keys
    return np.tril(np.ones((n_queries, n_keys), dtype=bool), k=n_keys - n_queries)


def combine_masks(mask, causal, shape):
    """The mask actually applied: ``mask`` (broadcast to ``shape``) and, if ``causal``, the lower triangle.

    Returns ``None`` when nothing is masked, so callers can skip the work.
    """
    result = None
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype != bool:
            raise ShapeError(f"mask must be boolean (True = may attend), got dtype {mask.dtype}")
        try:
            result = np.broadcast_to(mask, shape)
        except ValueError:
            raise ShapeError(f"mask of shape {mask.shape} does not fit scores of shape {shape}") from None
    if causal:
        tri = causal_mask(shape[-2], shape[-1])
        result = tri if result is None else (result & tri)
    return result
