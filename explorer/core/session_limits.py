"""What a session file may hold: its format name and version, its size limits, its matrices and axes.

The one table of numbers every other ``session_*`` module checks against (the settings' own ranges
live with the settings, in ``session_settings``).
"""
from __future__ import annotations

from .translatable import QT_TRANSLATE_NOOP

FORMAT_NAME = "attention-explorer-session"
VERSION = 6

MAX_TOKENS = 8192               # tokens (and query tokens) per session (= rows of a matrix)
MAX_DIM = 16384                 # a width: columns of a matrix, rows of a W (Llama 3.1 405B's hidden size)
MAX_CELLS = 2 ** 24             # cells of one matrix (4096 x 4096; 2048 tokens of an 8192-wide X): bounds memory
MAX_FILE_BYTES = 256 * 2 ** 20  # a session file is refused above this size, before it is read
ZIP_SIGNATURE = b"PK\x03\x04"  # the binary form's (a zip's) first bytes; no JSON text starts with them
MAX_TOKEN_CHARS = 100           # characters of one token
MAX_ABS_VALUE = 1e6             # |cell| bound, the same cap as the matrix editor's
MAX_TITLE_CHARS = 200           # characters of the title (may be empty)
MAX_LAYOUT_BYTES = 2 ** 20      # UTF-8 bytes of all layout keys and values together
MAX_NUMBER_CHARS = 100          # a JSON number literal longer than this is refused while parsing
# model_head (version 6): the real model's head a session was made from
MAX_FOLDER_CHARS = 4096         # characters of the checkpoint folder's path (PATH_MAX on Linux)
MAX_MODEL_NAME_CHARS = 200      # characters of the model's name ("meta-llama/Llama-3.2-1B")
MAX_MODEL_LAYERS = 1000         # layers of a model: explorer.models reads no config with more
MAX_VOCAB = 2 ** 24             # token ids lie below this: explorer.models reads no larger vocabulary

# The matrices and their axes. "L" is the number of tokens (the keys' and values' side) and "Lq" the
# number of query tokens; any other axis must have the same length in every matrix that names it.
# Q, K, V are always there; the projection group (token vectors X and W_q, W_k, W_v, W_o: Q = X·W_qᵀ …,
# output = concat·W_oᵀ) is there as a whole or not at all, and must be there when settings.source is
# "projected"; a projected cross-attention session adds X_src, the keys' token vectors (K = X_src·W_kᵀ).
MATRIX_AXES: dict[str, tuple[str, str]] = {
    "Q": ("Lq", "d_k"),
    "K": ("L", "d_kv"),
    "V": ("L", "d_v"),
    "X": ("Lq", "D"),
    "X_src": ("L", "D"),
    "Wq": ("p_k", "D"),
    "Wk": ("p_kv", "D"),
    "Wv": ("p_v", "D"),
    "Wo": ("D_o", "p_o"),
}
TOKEN_AXES = ("L", "Lq")        # row axes counted in tokens (1..MAX_TOKENS); every other axis is a width
# Axes that are one and the same unless the session says otherwise: without query_tokens the queries are
# the tokens (self-attention); without grouped K/V heads K is as wide as Q and W_o takes V's width.
SELF_ATTENTION_AXES = {"Lq": "L"}
UNGROUPED_AXES = {"d_kv": "d_k", "p_kv": "p_k", "p_o": "p_v"}
REQUIRED_MATRICES = ("Q", "K", "V")
PROJECTION_MATRICES = ("X", "Wq", "Wk", "Wv", "Wo")
SOURCE_MATRIX = "X_src"         # cross-attention and projected only: the keys' token vectors
AXIS_TEXT = {axis: QT_TRANSLATE_NOOP("Session", text) for axis, text in (
    ("d_k", "the Q/K width"), ("d_v", "the V width"), ("D", "the token-vector width"),
    ("p_k", "the projected Q/K width"), ("p_v", "the projected V width"), ("D_o", "the output width"),
    ("d_kv", "the K width"), ("p_kv", "the projected K width"), ("p_o", "the width of the concatenated heads"),
    ("Lq", "the query tokens"), ("L", "the tokens"))}


def matrix_axes(*, cross: bool = False, grouped: bool = False) -> dict[str, tuple[str, str]]:
    """MATRIX_AXES with the axes that are one merged: "Lq" into "L" unless ``cross``, K's and W_o's own
    widths into Q's and V's unless ``grouped`` (K/V heads shared, H_kv < H)."""
    same = {**({} if cross else SELF_ATTENTION_AXES), **({} if grouped else UNGROUPED_AXES)}
    return {name: tuple(same.get(axis, axis) for axis in axes) for name, axes in MATRIX_AXES.items()}


# The fields of a file, in the order the writer writes them. Since version 3 only the first four
# must be there; a missing title is "", missing settings take Settings() defaults, layout null;
# query_tokens (version 4) is there only in a cross-attention session, model_head (version 6) only in a
# session made from a real model's head.
TOP_FIELDS = ("format", "version", "title", "tokens", "query_tokens", "settings", "model_head", "matrices",
              "layout")
REQUIRED_TOP_FIELDS = ("format", "version", "tokens", "matrices")
