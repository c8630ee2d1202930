"""The mathematics of the chapter in pure NumPy (no Qt): usable from a notebook, tested with plain pytest."""
from .attention import AttentionResult, attend, attention, default_scale, scores
from .errors import ExplorerError, MatrixFileError, NonFiniteError, SessionError, ShapeError
from .heads import MultiHeadResult, head_count_options, merge_heads, multi_head_attention, split_heads
from .lines import strongest_edges, top_k_edges
from .masks import causal_mask
from .positions import sinusoidal_positions
from .projections import self_attention
from .rope import rope, rope_frequencies
from .softmax import softmax

__all__ = [
    "AttentionResult", "MultiHeadResult", "attend", "attention", "causal_mask", "default_scale",
    "head_count_options", "merge_heads", "multi_head_attention", "rope", "rope_frequencies", "scores",
    "self_attention", "sinusoidal_positions", "softmax", "split_heads", "strongest_edges", "top_k_edges",
    "ExplorerError", "MatrixFileError", "NonFiniteError", "SessionError", "ShapeError",
]
