"""The mathematics of the chapter in pure NumPy (no Qt): usable from a notebook, tested with plain pytest.

Names are imported from their modules on first use, so ``import explorer.core.session`` (the
app's start-up) does not load the lesson, readout and RoPE mathematics too.
"""
from importlib import import_module

# Functions named like their module are bound now: a later ``import explorer.core.rope`` would
# otherwise leave the module, not the function, under that name.
from .attention import AttentionResult, attend, attention, default_scale, scores
from .errors import CheckpointError, ExplorerError, MatrixFileError, NonFiniteError, SessionError, ShapeError
from .heads import (MultiHeadResult, head_count_options, kv_head_count, kv_head_of, kv_head_options, merge_heads,
                    multi_head_attention, split_heads)
from .rope import rope, rope_frequencies
from .softmax import softmax

_HOMES = {
    **dict.fromkeys(('GuessVerdict', 'LessonChecks', 'darkest_in_row', 'hull_check', 'judge_guess',
                     'lesson_checks', 'row_sum_check'), "lesson"),
    **dict.fromkeys(('strongest_edges', 'top_k_edges'), "lines"),
    **dict.fromkeys(('alibi_bias', 'alibi_slopes'), "alibi"),
    **dict.fromkeys(('causal_mask',), "masks"),
    **dict.fromkeys(('sinusoidal_positions',), "positions"),
    **dict.fromkeys(('self_attention',), "projections"),
    **dict.fromkeys(('contributions', 'convex_hull_2d', 'in_convex_hull'), "readout"),
    **dict.fromkeys(('diagonal_deviation', 'pair_vectors', 'pair_view', 'rotated_pair', 'score_vs_offset'),
                    "rope_lesson"),
    **dict.fromkeys(('random_scores', 'score_spread', 'sharpness_curve', 'softmax_sharpness', 'sqrt_d_point'),
                    "scaling"),
}

__all__ = [
    "AttentionResult", "MultiHeadResult", "alibi_bias", "alibi_slopes", "attend", "attention", "causal_mask", "default_scale",
    "head_count_options", "kv_head_count", "kv_head_of", "kv_head_options", "merge_heads", "multi_head_attention",
    "rope", "rope_frequencies", "scores",
    "self_attention", "sinusoidal_positions", "softmax", "split_heads", "strongest_edges", "top_k_edges",
    "contributions", "convex_hull_2d", "in_convex_hull",
    "GuessVerdict", "LessonChecks", "darkest_in_row", "hull_check", "judge_guess", "lesson_checks", "row_sum_check",
    "diagonal_deviation", "pair_vectors", "pair_view", "rotated_pair", "score_vs_offset",
    "random_scores", "score_spread", "sharpness_curve", "softmax_sharpness", "sqrt_d_point",
    "CheckpointError", "ExplorerError", "MatrixFileError", "NonFiniteError", "SessionError", "ShapeError",
]


def __getattr__(name):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_HOMES))
