"""The mathematics of the chapter in pure NumPy (no Qt): usable from a notebook, tested with plain pytest."""
from .attention import AttentionResult, attend, attention, default_scale, scores
from .errors import ExplorerError, MatrixFileError, NonFiniteError, SessionError, ShapeError
from .heads import MultiHeadResult, head_count_options, merge_heads, multi_head_attention, split_heads
from .lesson import GuessVerdict, LessonChecks, darkest_in_row, hull_check, judge_guess, lesson_checks, row_sum_check
from .lines import strongest_edges, top_k_edges
from .masks import causal_mask
from .positions import sinusoidal_positions
from .projections import self_attention
from .readout import contributions, convex_hull_2d, in_convex_hull
from .rope import rope, rope_frequencies
from .rope_lesson import diagonal_deviation, pair_vectors, pair_view, rotated_pair, score_vs_offset
from .scaling import random_scores, score_spread, sharpness_curve, softmax_sharpness, sqrt_d_point
from .softmax import softmax

__all__ = [
    "AttentionResult", "MultiHeadResult", "attend", "attention", "causal_mask", "default_scale",
    "head_count_options", "merge_heads", "multi_head_attention", "rope", "rope_frequencies", "scores",
    "self_attention", "sinusoidal_positions", "softmax", "split_heads", "strongest_edges", "top_k_edges",
    "contributions", "convex_hull_2d", "in_convex_hull",
    "GuessVerdict", "LessonChecks", "darkest_in_row", "hull_check", "judge_guess", "lesson_checks", "row_sum_check",
    "diagonal_deviation", "pair_vectors", "pair_view", "rotated_pair", "score_vs_offset",
    "random_scores", "score_spread", "sharpness_curve", "softmax_sharpness", "sqrt_d_point",
    "ExplorerError", "MatrixFileError", "NonFiniteError", "SessionError", "ShapeError",
]
