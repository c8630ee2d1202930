"""What a session file may hold: its format name and version, its size limits, its matrices and axes.

The one table of numbers every other ``session_*`` module checks against (the settings' own ranges
live with the settings, in ``session_settings``).
"""
from __future__ import annotations

FORMAT_NAME = "attention-explorer-session"
VERSION = 3

MAX_TOKENS = 8192               # tokens per session (= rows of every matrix)
MAX_DIM = 4096                  # columns of a matrix
MAX_CELLS = 2 ** 24             # cells of one matrix (4096 x 4096)
MAX_FILE_BYTES = 256 * 2 ** 20  # a session file is refused above this size, before it is read
MAX_TOKEN_CHARS = 100           # characters of one token
MAX_ABS_VALUE = 1e6             # |cell| bound, the same cap as the matrix editor's
MAX_TITLE_CHARS = 200           # characters of the title (may be empty)
MAX_LAYOUT_BYTES = 2 ** 20      # UTF-8 bytes of all layout keys and values together
MAX_NUMBER_CHARS = 100          # a JSON number literal longer than this is refused while parsing

# The matrices and their axes. "L" is the number of tokens; any other axis must have the same
# length in every matrix that names it. Q, K, V are always there; the projection group (token
# vectors X and W_q, W_k, W_v, W_o: Q = X·W_qᵀ …, output = concat·W_oᵀ) is there as a whole or not
# at all, and must be there when settings.source is "projected".
MATRIX_AXES: dict[str, tuple[str, str]] = {
    "Q": ("L", "d_k"),
    "K": ("L", "d_k"),
    "V": ("L", "d_v"),
    "X": ("L", "D"),
    "Wq": ("p_k", "D"),
    "Wk": ("p_k", "D"),
    "Wv": ("p_v", "D"),
    "Wo": ("D_o", "p_v"),
}
REQUIRED_MATRICES = ("Q", "K", "V")
PROJECTION_MATRICES = ("X", "Wq", "Wk", "Wv", "Wo")
AXIS_TEXT = {"d_k": "the Q/K width", "d_v": "the V width", "D": "the token-vector width",
             "p_k": "the projected Q/K width", "p_v": "the projected V width",
             "D_o": "the output width"}

# The fields of a file, in the order the writer writes them. Since version 3 only the first four
# must be there; a missing title is "", missing settings take Settings() defaults, layout null.
TOP_FIELDS = ("format", "version", "title", "tokens", "settings", "matrices", "layout")
REQUIRED_TOP_FIELDS = ("format", "version", "tokens", "matrices")
