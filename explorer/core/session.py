"""The session file: a versioned, validated, human-readable JSON snapshot of what the user set.

A session holds the tokens, the matrices Q, K, V, the settings of the controls (F6) and an opaque
UI layout. ``save_session`` refuses to write an invalid session; ``load_session`` refuses any file
that is not a valid one and raises only :class:`SessionError`, whose message starts with the file
name and names the place (``demo.json: matrices.K row 2 has 2 numbers but row 0 has 3``). The
format is described in ``docs/session-format.md``.
"""
from __future__ import annotations

import codecs
import difflib
import itertools
import json
import math
import os
import re
import stat
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any, Callable, Mapping

import numpy as np

from .atomic import atomic_write_bytes, file_name, remove_stale_temporaries
from .errors import SessionError

__all__ = [
    "FORMAT_NAME", "VERSION", "UPGRADES", "SCALE_MODES", "SOURCES", "POSITIONS", "ROPE_STYLES",
    "ROPE_BASE_MIN", "ROPE_BASE_MAX", "ROPE_OFFSET_MAX", "MATRIX_AXES",
    "REQUIRED_MATRICES", "PROJECTION_MATRICES",
    "TEMPERATURE_MIN", "TEMPERATURE_MAX", "SCALE_MAX",
    "MAX_TOKENS", "MAX_DIM", "MAX_CELLS", "MAX_FILE_BYTES", "MAX_TOKEN_CHARS", "MAX_ABS_VALUE",
    "MAX_TITLE_CHARS", "MAX_LAYOUT_BYTES",
    "Settings", "Session", "validate_session",
    "session_to_json", "session_from_json", "save_session", "load_session",
]

FORMAT_NAME = "attention-explorer-session"
VERSION = 2

SCALE_MODES = ("inv_sqrt_d", "none", "custom")
SOURCES = ("direct", "projected")   # edit Q, K, V themselves, or X and the projections W
POSITIONS = ("none", "sinusoidal")  # what is added to X before the projections
ROPE_STYLES = ("half", "interleaved")  # GPT-NeoX/Llama rotate_half, or GPT-J/RoFormer pairs
ROPE_BASE_MIN, ROPE_BASE_MAX = 100.0, 1e6
ROPE_OFFSET_MAX = 1_000_000
TEMPERATURE_MIN, TEMPERATURE_MAX = 0.05, 20.0
SCALE_MAX = 1e3                 # a custom scale lies in (0, SCALE_MAX]

MAX_TOKENS = 8192               # tokens per session (= rows of every matrix)
MAX_DIM = 4096                  # columns of a matrix
MAX_CELLS = 2 ** 24             # cells of one matrix (4096 x 4096)
MAX_FILE_BYTES = 256 * 2 ** 20  # a session file is refused above this size, before it is read
MAX_TOKEN_CHARS = 100           # characters of one token
MAX_ABS_VALUE = 1e6             # |cell| bound, the same cap as the matrix editor's
MAX_TITLE_CHARS = 200           # characters of the title (may be empty)
MAX_LAYOUT_BYTES = 2 ** 20      # UTF-8 bytes of all layout keys and values together
_MAX_NUMBER_CHARS = 100         # a JSON number literal longer than this is refused while parsing

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
_AXIS_TEXT = {"d_k": "the Q/K width", "d_v": "the V width", "D": "the token-vector width",
              "p_k": "the projected Q/K width", "p_v": "the projected V width",
              "D_o": "the output width"}
# settings.heads must divide each of these widths, by source
_HEAD_AXES = {"direct": ("d_k", "d_v"), "projected": ("p_k", "p_v")}

def _upgrade_v1(data: dict) -> dict:
    """Version 2 adds settings.source, positions and the RoPE settings (and optional projections)."""
    settings = data.get("settings")
    if isinstance(settings, dict):
        settings = {**settings, "source": "direct", "positions": "none", "rope": False,
                    "rope_base": 10000.0, "rope_style": "half", "rope_offset": 0}
    return {**data, "settings": settings}


# UPGRADES[n] turns the dict of a version-n file into a version-(n + 1) dict. load applies them one
# step at a time, so a file of any past version keeps loading.
UPGRADES: dict[int, Callable[[dict], dict]] = {1: _upgrade_v1}

_TOP_FIELDS = ("format", "version", "title", "tokens", "settings", "matrices", "layout")

# Cc (C0, DEL, C1), line/paragraph separators, and unpaired surrogates (not valid Unicode).
_BAD_TEXT_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_SURROGATES = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Settings:
    """The controls (F6) a session restores."""

    scale_mode: str = "inv_sqrt_d"   # 1/sqrt(d_k) ("inv_sqrt_d"), no scale ("none"), or "custom"
    scale: float = 1.0               # the custom scale, used when scale_mode == "custom"; (0, 1e3]
    temperature: float = 1.0         # divides the scores; TEMPERATURE_MIN..TEMPERATURE_MAX
    causal: bool = False
    heads: int = 1                   # must divide the Q/K width and the V width
    selected_row: int = 0            # the query row the readout shows; 0 <= row < L
    selected_head: int = 0           # 0 <= head < heads
    source: str = "direct"           # "direct": Q, K, V as edited; "projected": from X and W (v2)
    positions: str = "none"          # "sinusoidal": PE(L, D) added to X before projecting (v2)
    rope: bool = False               # rotate q and k of every head by position before the scores (v2)
    rope_base: float = 10000.0       # θ_i = base^(−2i/d_h); ROPE_BASE_MIN..ROPE_BASE_MAX (v2)
    rope_style: str = "half"         # "half" (GPT-NeoX/Llama) or "interleaved" (GPT-J/RoFormer) (v2)
    rope_offset: int = 0             # positions are offset, offset+1, …; 0..ROPE_OFFSET_MAX (v2)


_SETTINGS_FIELDS = tuple(f.name for f in fields(Settings))


def _frozen_array(value: Any) -> Any:
    """A read-only copy of ``value`` as an array (real numbers become float64); else ``value``."""
    if isinstance(value, np.ndarray):
        if (value.dtype == np.float64 and not value.flags.writeable and value.base is None
                and value.flags.c_contiguous):
            return value
    elif not isinstance(value, (list, tuple)):
        return value
    try:
        array = np.array(value, copy=True, order="C")
        if array.dtype.kind in "iuf" and array.dtype != np.float64:
            array = array.astype(np.float64)
        array.flags.writeable = False
    except Exception:  # ragged lists and the like: validate_session says what is wrong
        return value
    return array


@dataclass(frozen=True, eq=False)
class Session:
    """Everything a session file holds. Arrays are stored as read-only float64 copies."""

    tokens: tuple[str, ...]
    matrices: Mapping[str, np.ndarray]   # "Q", "K" (L, d_k) and "V" (L, d_v)
    settings: Settings = Settings()
    layout: Mapping[str, str] | None = None   # opaque UI layout, strings only, <= 1 MiB
    title: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.tokens, list):
            object.__setattr__(self, "tokens", tuple(self.tokens))
        if isinstance(self.matrices, Mapping):
            object.__setattr__(self, "matrices", MappingProxyType(
                {name: _frozen_array(value) for name, value in self.matrices.items()}))
        if isinstance(self.layout, Mapping):
            object.__setattr__(self, "layout", MappingProxyType(dict(self.layout)))

    def __eq__(self, other: object) -> bool:
        """Equal fields, and matrices equal bit for bit (so -0.0 differs from 0.0)."""
        if not isinstance(other, Session):
            return NotImplemented
        return (self.tokens == other.tokens and self.settings == other.settings
                and self.title == other.title and _plain(self.layout) == _plain(other.layout)
                and _matrices_identical(self.matrices, other.matrices))


def _plain(mapping: Any) -> Any:
    return dict(mapping) if isinstance(mapping, Mapping) else mapping


def _matrices_identical(a: Any, b: Any) -> bool:
    if not (isinstance(a, Mapping) and isinstance(b, Mapping)):
        return a is b
    if set(a) != set(b):
        return False
    for name in a:
        x, y = a[name], b[name]
        if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray)):
            if x is not y:
                return False
        elif x.shape != y.shape or x.dtype != y.dtype:
            return False
        elif x.dtype == np.float64:
            if not np.array_equal(np.ascontiguousarray(x).view(np.int64),
                                  np.ascontiguousarray(y).view(np.int64)):
                return False
        elif not np.array_equal(x, y):
            return False
    return True


# ----------------------------------------------------------------------------------------------
# Validation (shared by load and save)

def _short(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _describe(value: Any) -> str:
    """What a value is, in JSON words, without ever printing something huge or deeply nested."""
    if value is None:
        return "null"
    if isinstance(value, (bool, np.bool_)):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, (int, np.integer)):
        text = str(int(value)) if abs(int(value)) < 10 ** 30 else "a very large integer"
        return f"a number ({text})"
    if isinstance(value, (float, np.floating)):
        return f"a number ({float(value)!r})"
    if isinstance(value, str):
        return f"a string ({_short(value)})"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, np.ndarray):
        return f"an array of {value.dtype}"
    return f"a {type(value).__name__}"


def _check_fields(obj: Mapping, expected: tuple[str, ...], place: str, where: str) -> None:
    """Refuse unknown and missing fields, naming the first and suggesting a near miss."""
    prefix = f"{where}: {place}: " if place else f"{where}: "
    missing = [name for name in expected if name not in obj]
    for key in obj:
        if key not in expected:
            text = key if isinstance(key, str) else repr(key)
            near = difflib.get_close_matches(text, missing or list(expected), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise SessionError(f"{prefix}unknown field {_short(text)}{hint}")
    if missing:
        raise SessionError(f"{prefix}missing field {missing[0]!r}")


def _check_text(value: Any, place: str, where: str, *, min_chars: int, max_chars: int) -> str:
    if not isinstance(value, str):
        raise SessionError(f"{where}: {place} must be a string, not {_describe(value)}")
    if len(value) < min_chars:
        raise SessionError(f"{where}: {place} is empty")
    if len(value) > max_chars:
        raise SessionError(f"{where}: {place} has {len(value)} characters; the most is {max_chars}")
    bad = _BAD_TEXT_CHARS.search(value)
    if bad:
        char = ord(bad.group())
        kind = ("an unpaired surrogate, which is not valid Unicode" if 0xD800 <= char <= 0xDFFF
                else "a control character")
        raise SessionError(f"{where}: {place} contains {kind} (U+{char:04X} at character "
                           f"{bad.start()})")
    return value


def _check_tokens(tokens: Any, where: str) -> tuple[str, ...]:
    if not isinstance(tokens, (tuple, list)):
        raise SessionError(f"{where}: tokens must be a list of strings, not {_describe(tokens)}")
    if not tokens:
        raise SessionError(f"{where}: tokens is empty; a session needs at least one token")
    if len(tokens) > MAX_TOKENS:
        raise SessionError(f"{where}: tokens has {len(tokens)} entries; the most is {MAX_TOKENS}")
    for i, token in enumerate(tokens):
        _check_text(token, f"tokens[{i}]", where, min_chars=1, max_chars=MAX_TOKEN_CHARS)
    return tuple(tokens)


def _first_bad(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(mask)), mask.shape))


def _check_matrix_names(names: Any, where: str) -> None:
    for name in names:
        if name not in MATRIX_AXES:
            text = name if isinstance(name, str) else repr(name)
            raise SessionError(f"{where}: matrices: unknown matrix {_short(text)} (version "
                               f"{VERSION} holds {', '.join(MATRIX_AXES)})")
    for name in REQUIRED_MATRICES:
        if name not in names:
            raise SessionError(f"{where}: matrices: missing matrix {name!r}")
    present = [n for n in PROJECTION_MATRICES if n in names]
    if present and len(present) < len(PROJECTION_MATRICES):
        missing = [n for n in PROJECTION_MATRICES if n not in names]
        raise SessionError(f"{where}: matrices: the projections come together; "
                           f"{', '.join(present)} without {', '.join(missing)}")


def _check_matrices(matrices: Any, n_tokens: int, where: str
                    ) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """Names, dtypes, shapes (axes that must agree), sizes and values; returns arrays and widths."""
    if not isinstance(matrices, Mapping):
        raise SessionError(f"{where}: matrices must be an object of named matrices, "
                           f"not {_describe(matrices)}")
    _check_matrix_names(matrices, where)
    lengths: dict[str, tuple[int, str]] = {"L": (n_tokens, "")}   # axis -> (length, first matrix)
    result: dict[str, np.ndarray] = {}
    for name, axes in MATRIX_AXES.items():
        if name not in matrices:
            continue
        place = f"matrices.{name}"
        array = matrices[name]
        if not isinstance(array, np.ndarray):
            raise SessionError(f"{where}: {place} must be a 2-D array of numbers, "
                               f"not {_describe(array)}")
        if array.dtype != np.float64:
            raise SessionError(f"{where}: {place} holds {array.dtype} values; it must hold real "
                               f"numbers")
        if array.ndim != 2:
            raise SessionError(f"{where}: {place} is {array.ndim}-D; it must be 2-D")
        rows, cols = array.shape
        if cols < 1:
            raise SessionError(f"{where}: {place} has no columns")
        if cols > MAX_DIM:
            raise SessionError(f"{where}: {place} has {cols} columns; the most is {MAX_DIM}")
        if rows * cols > MAX_CELLS:
            raise SessionError(f"{where}: {place} has {rows}×{cols} = {rows * cols} cells; the "
                               f"most is {MAX_CELLS}")
        if axes[0] != "L" and rows > MAX_DIM:  # p_k, p_v, D_o are widths too: 1..MAX_DIM
            raise SessionError(f"{where}: {place} has {rows} rows; the most is {MAX_DIM} (its rows "
                               f"are {_AXIS_TEXT.get(axes[0], axes[0])}, {axes[0]})")
        for axis_index, (axis, size) in enumerate(zip(axes, array.shape)):
            what = "rows" if axis_index == 0 else "columns"
            if axis not in lengths:
                lengths[axis] = (size, name)
                continue
            expected, first = lengths[axis]
            if size == expected:
                continue
            if axis == "L":
                raise SessionError(f"{where}: {place} has {size} rows but there are {expected} "
                                   f"tokens")
            first_what = "rows" if MATRIX_AXES[first].index(axis) == 0 else "columns"
            raise SessionError(
                f"{where}: {place} has {size} {what} but matrices.{first} has {expected} "
                f"{first_what} (both are {_AXIS_TEXT.get(axis, axis)}, {axis})")
        with np.errstate(invalid="ignore"):
            bad = ~(np.abs(array) <= MAX_ABS_VALUE)
        if bad.any():
            r, c = _first_bad(bad)
            value = float(array[r, c])
            reason = ("values must be finite" if not math.isfinite(value)
                      else f"values must lie within ±{MAX_ABS_VALUE:.0f}")
            raise SessionError(f"{where}: {place} row {r} col {c} is {value!r}; {reason}")
        result[name] = array
    widths = {axis: size for axis, (size, _) in lengths.items()}
    return result, widths


def _real(value: Any, place: str, where: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                        np.floating)):
        raise SessionError(f"{where}: {place} must be a number, not {_describe(value)}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise SessionError(f"{where}: {place} must be a finite number, not {_describe(value)}")
    return number


def _integer(value: Any, place: str, where: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise SessionError(f"{where}: {place} must be an integer, not {_describe(value)}")
    return int(value)


def _check_settings(settings: Any, widths: Mapping[str, int], where: str) -> Settings:
    if not isinstance(settings, Settings):
        raise SessionError(f"{where}: settings must be a Settings, not {_describe(settings)}")
    mode = settings.scale_mode
    if not isinstance(mode, str) or mode not in SCALE_MODES:
        raise SessionError(f"{where}: settings.scale_mode must be one of "
                           f"{', '.join(map(repr, SCALE_MODES))}, not {_describe(mode)}")
    scale = _real(settings.scale, "settings.scale", where)
    if not 0.0 < scale <= SCALE_MAX:
        raise SessionError(f"{where}: settings.scale is {scale!r}; it must be above 0 and at "
                           f"most {SCALE_MAX:.0f}")
    temperature = _real(settings.temperature, "settings.temperature", where)
    if not TEMPERATURE_MIN <= temperature <= TEMPERATURE_MAX:
        raise SessionError(f"{where}: settings.temperature is {temperature!r}; it must lie in "
                           f"{TEMPERATURE_MIN:g}..{TEMPERATURE_MAX:g}")
    causal = settings.causal
    if not isinstance(causal, (bool, np.bool_)):
        raise SessionError(f"{where}: settings.causal must be true or false, "
                           f"not {_describe(causal)}")
    source = settings.source
    if not isinstance(source, str) or source not in SOURCES:
        raise SessionError(f"{where}: settings.source must be one of "
                           f"{', '.join(map(repr, SOURCES))}, not {_describe(source)}")
    if source == "projected" and "D" not in widths:
        raise SessionError(f"{where}: settings.source is 'projected' but the matrices X, Wq, Wk, "
                           f"Wv and Wo are missing")
    positions = settings.positions
    if not isinstance(positions, str) or positions not in POSITIONS:
        raise SessionError(f"{where}: settings.positions must be one of "
                           f"{', '.join(map(repr, POSITIONS))}, not {_describe(positions)}")
    if positions != "none" and source != "projected":
        raise SessionError(f"{where}: settings.positions is {positions!r}, but positions are added "
                           f"to the token vectors X, which only the 'projected' source has")
    heads = _integer(settings.heads, "settings.heads", where)
    if heads < 1:
        raise SessionError(f"{where}: settings.heads is {heads}; it must be at least 1")
    rope = settings.rope
    if not isinstance(rope, (bool, np.bool_)):
        raise SessionError(f"{where}: settings.rope must be true or false, not {_describe(rope)}")
    rope_base = _real(settings.rope_base, "settings.rope_base", where)
    if not ROPE_BASE_MIN <= rope_base <= ROPE_BASE_MAX:
        raise SessionError(f"{where}: settings.rope_base is {rope_base!r}; it must lie in "
                           f"{ROPE_BASE_MIN:g}..{ROPE_BASE_MAX:g}")
    rope_style = settings.rope_style
    if not isinstance(rope_style, str) or rope_style not in ROPE_STYLES:
        raise SessionError(f"{where}: settings.rope_style must be one of "
                           f"{', '.join(map(repr, ROPE_STYLES))}, not {_describe(rope_style)}")
    rope_offset = _integer(settings.rope_offset, "settings.rope_offset", where)
    if not 0 <= rope_offset <= ROPE_OFFSET_MAX:
        raise SessionError(f"{where}: settings.rope_offset is {rope_offset}; it must lie in "
                           f"0..{ROPE_OFFSET_MAX}")
    qk_width = widths[_HEAD_AXES[source][0]]
    if rope and (qk_width % heads == 0) and (qk_width // heads) % 2:
        raise SessionError(f"{where}: settings.rope is on but each head's Q/K width d_h = "
                           f"{qk_width // heads} is odd; RoPE rotates pairs of dimensions")
    for axis in _HEAD_AXES[source]:
        width = widths[axis]
        if width % heads:
            raise SessionError(f"{where}: settings.heads is {heads}, which does not divide "
                               f"{_AXIS_TEXT.get(axis, axis)} {width} (heads must divide "
                               f"the Q/K width and the V width)")
    n_tokens = widths["L"]
    row = _integer(settings.selected_row, "settings.selected_row", where)
    if not 0 <= row < n_tokens:
        raise SessionError(f"{where}: settings.selected_row is {row}; with {n_tokens} tokens it "
                           f"must lie in 0..{n_tokens - 1}")
    head = _integer(settings.selected_head, "settings.selected_head", where)
    if not 0 <= head < heads:
        raise SessionError(f"{where}: settings.selected_head is {head}; with {heads} heads it "
                           f"must lie in 0..{heads - 1}")
    return Settings(scale_mode=mode, scale=scale, temperature=temperature, causal=bool(causal),
                    heads=heads, selected_row=row, selected_head=head, source=source,
                    positions=positions, rope=bool(rope), rope_base=rope_base, rope_style=rope_style,
                    rope_offset=rope_offset)


def _check_layout(layout: Any, where: str) -> dict[str, str] | None:
    if layout is None:
        return None
    if not isinstance(layout, Mapping):
        raise SessionError(f"{where}: layout must be null or an object of strings, "
                           f"not {_describe(layout)}")
    total = 0
    for key, value in layout.items():
        _check_text(key, "layout key", where, min_chars=1, max_chars=MAX_TOKEN_CHARS)
        place = f"layout.{key}"
        if not isinstance(value, str):
            raise SessionError(f"{where}: {place} must be a string, not {_describe(value)}")
        bad = _SURROGATES.search(value)
        if bad:
            raise SessionError(f"{where}: {place} contains an unpaired surrogate (U+"
                               f"{ord(bad.group()):04X}), which is not valid Unicode")
        if len(value) > MAX_LAYOUT_BYTES:
            raise SessionError(f"{where}: layout is larger than {MAX_LAYOUT_BYTES} bytes")
        total += len(key.encode("utf-8")) + len(value.encode("utf-8"))
        if total > MAX_LAYOUT_BYTES:
            raise SessionError(f"{where}: layout is larger than {MAX_LAYOUT_BYTES} bytes")
    return dict(layout)


def validate_session(session: Any, where: str = "session") -> Session:
    """Check every rule of the format; a normalised copy, or SessionError naming the place."""
    if not isinstance(session, Session):
        raise SessionError(f"{where}: not a Session but {_describe(session)}")
    title = _check_text(session.title, "title", where, min_chars=0, max_chars=MAX_TITLE_CHARS)
    tokens = _check_tokens(session.tokens, where)
    matrices, widths = _check_matrices(session.matrices, len(tokens), where)
    settings = _check_settings(session.settings, widths, where)
    layout = _check_layout(session.layout, where)
    return Session(tokens=tokens, matrices=matrices, settings=settings, layout=layout,
                   title=title)


# ----------------------------------------------------------------------------------------------
# Writing

def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


# json's C encoder writes floats with float.__repr__ (shortest text that reads back exactly).
_encode_row = json.JSONEncoder(allow_nan=False).encode


def _object_lines(items: list[tuple[str, str]], indent: str) -> str:
    """``{ "key": <already encoded value>, ... }`` with one member per line."""
    if not items:
        return "{}"
    inner = ",\n".join(f"{indent} {_dump(key)}: {text}" for key, text in items)
    return "{\n" + inner + "\n" + indent + "}"


def _matrix_lines(array: np.ndarray, indent: str):
    """The text of a matrix in pieces: one row per line; floats as ``repr`` so they read back bit for bit."""
    yield "[\n"
    last = len(array) - 1
    for i, row in enumerate(array):  # row by row: one tolist() of 2 M floats holds the GIL ~0.1 s
        yield indent + " " + _encode_row(row.tolist()) + (",\n" if i < last else "\n")
    yield indent + "]"


def session_pieces(session: Session, where: str = "session"):
    """The file text of a valid session (validated first) in pieces: indented JSON, a matrix row a
    line. A 4096 × 768 session is ~200 MB of text: made and written a row at a time, never whole."""
    s = validate_session(session, where)
    settings = [(name, _dump(getattr(s.settings, name))) for name in _SETTINGS_FIELDS]
    layout = "null" if s.layout is None else _object_lines(
        [(key, _dump(value)) for key, value in s.layout.items()], " ")
    names = [name for name in MATRIX_AXES if name in s.matrices]
    yield "{\n"
    yield ",\n".join(f' {_dump(key)}: {text}' for key, text in (
        ("format", _dump(FORMAT_NAME)), ("version", _dump(VERSION)), ("title", _dump(s.title)),
        ("tokens", "[" + ", ".join(map(_dump, s.tokens)) + "]"), ("settings", _object_lines(settings, " "))))
    yield ',\n "matrices": ' + ("{\n" if names else "{}")
    for k, name in enumerate(names):
        yield f"  {_dump(name)}: "
        yield from _matrix_lines(s.matrices[name], "  ")
        yield ",\n" if k < len(names) - 1 else "\n }"
    yield f',\n "layout": {layout}\n}}\n'


def session_to_json(session: Session, where: str = "session") -> str:
    """The file text of a valid session (validated first): indented JSON, a matrix row a line."""
    return "".join(session_pieces(session, where))


def _size_text(n: int) -> str:
    return f"{n / 2 ** 20:.1f} MiB" if n >= 2 ** 20 else f"{n} bytes"


def save_session(session: Session, path) -> None:
    """Validate, write atomically (temp file, fsync, os.replace); SessionError names the file."""
    name = file_name(path)
    pieces = session_pieces(session, where=name)
    first = next(pieces)  # validates the session before any file is touched

    def data():
        size = 0
        for piece in itertools.chain([first], pieces):
            chunk = piece.encode("utf-8")
            size += len(chunk)
            if size > MAX_FILE_BYTES:  # the temporary file is removed; the target stays as it was
                size += sum(len(rest.encode("utf-8")) for rest in pieces)
                raise SessionError(f"{name}: the session would be {_size_text(size)}; session files "
                                   f"are limited to {_size_text(MAX_FILE_BYTES)} (export large matrices "
                                   f"as .npy instead)")
            yield chunk

    try:
        atomic_write_bytes(path, data())
    except SessionError:
        raise
    except OSError as e:
        raise SessionError(f"{name}: could not be saved ({e.strerror or e})") from e
    except Exception as e:
        raise SessionError(f"{name}: could not be saved ({type(e).__name__}: {e})") from e


# ----------------------------------------------------------------------------------------------
# Reading

class _Refused(Exception):
    """Raised from inside the JSON parser's hooks; ``literal`` locates it in the text."""

    def __init__(self, message: str, literal: str | None = None):
        super().__init__(message)
        self.message = message
        self.literal = literal


def _parse_constant(name: str) -> float:
    raise _Refused(f"{name} is not allowed; every number must be finite", name)


def _parse_float(text: str) -> float:
    if len(text) > _MAX_NUMBER_CHARS:
        raise _Refused(f"a number {len(text)} characters long is not allowed", text)
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"the number {text} is too large to hold", text)
    return value


def _parse_int(text: str) -> int:
    if len(text) > _MAX_NUMBER_CHARS:
        raise _Refused(f"an integer {len(text)} digits long is not allowed", text)
    return int(text)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"the field {_short(key)} appears twice in one object")
            seen.add(key)
    return result


def _position(text: str, literal: str | None) -> str:
    """' at line L, column C' of the first standalone occurrence of ``literal``, if found."""
    if not literal:
        return ""
    if len(literal) > _MAX_NUMBER_CHARS:
        # A refused over-long number: compiled into a pattern it would take seconds (megabytes of
        # digits) and stay in re's cache; a plain search finds it just as well.
        start = text.find(literal)
        if start < 0:
            return ""
    else:
        pattern = r"(?<![0-9A-Za-z.+\-\"])" + re.escape(literal) + r"(?![0-9A-Za-z.\"])"
        try:
            match = re.search(pattern, text)
        except re.error:
            return ""
        if not match:
            return ""
        start = match.start()
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    return f" at line {line}, column {column}"


def _decode(data: bytes, where: str) -> str:
    offset = 0
    if data.startswith(codecs.BOM_UTF8):
        data, offset = data[3:], 3
    elif data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        raise SessionError(f"{where}: is UTF-16 text; session files are UTF-8")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SessionError(f"{where}: is not UTF-8 text (byte 0x{data[e.start]:02x} at offset "
                           f"{e.start + offset} cannot be decoded)") from None


# The pre-scan. Parsing costs time and memory per value, not per byte: 64 MiB of `{},` is 22 million
# objects (seconds, gigabytes). So before parsing, a few passes over the raw bytes at memory speed
# count what the file holds, and a file holding more than a session ever can is refused unparsed.
# The most a valid session holds, from the format's own limits:
_MAX_ROWS = sum(MAX_TOKENS if axes[0] == "L" else MAX_DIM for axes in MATRIX_AXES.values())


def _most_layout_keys(budget: int = MAX_LAYOUT_BYTES) -> int:
    """How many distinct layout keys fit in ``budget`` UTF-8 bytes, the shortest ones first."""
    count = 0   # 95 printable ASCII keys of 1 byte; 95² ASCII pairs and 1,888 characters
    for size, available in ((1, 95), (2, 95 ** 2 + 0x800 - 0xA0)):  # U+00A0–U+07FF of 2 bytes
        taken = min(available, budget // size)
        count, budget = count + taken, budget - taken * size
    return count + budget // 3      # every other key takes 3 bytes or more


_MAX_LAYOUT_MEMBERS = _most_layout_keys()
_MOST = {
    "objects": 4,                                   # the file, settings, matrices, layout
    "lists": 1 + len(MATRIX_AXES) + _MAX_ROWS,      # the tokens, every matrix and its rows
    "strings": (len(_TOP_FIELDS) + 2 + 2 * len(_SETTINGS_FIELDS) + len(MATRIX_AXES) + MAX_TOKENS
                + 2 * _MAX_LAYOUT_MEMBERS),         # keys, format, title, settings, tokens, layout
    "list values": max(MAX_TOKENS, MAX_DIM),        # the tokens, or one matrix row
    "other values": (len(_TOP_FIELDS) + len(_SETTINGS_FIELDS) + len(MATRIX_AXES) + _MAX_ROWS
                     + _MAX_LAYOUT_MEMBERS),        # fields, matrix rows, layout members
    "string bytes": 6 * MAX_LAYOUT_BYTES,           # a layout value, every byte escaped (\u0001)
    # characters of text (title, tokens, layout, the format's own keys and words): the text can
    # hold any of the characters counted below, so the counts of the raw bytes allow for it
    "text": MAX_TITLE_CHARS + MAX_TOKENS * MAX_TOKEN_CHARS + MAX_LAYOUT_BYTES + 1024,
}
_NUMBERS_AND_SPACE = b"0123456789+-.eE \t\n\r"     # dropped: a matrix row becomes "[,,,]"
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))
_NOT_COUNTED = bytes(sorted(set(range(256)) - set(b'{["')))
_OPENER_RUN = re.compile(rb"[\[{]{65}")             # 65 levels at once; a session nests 4 deep
_PAIRED_QUOTES_MAX = 2 ** 16                        # quotes paired one by one in Python, at most


def _prescan_limit(kind: str) -> int:
    """A quarter over the most a session holds, plus 64: near misses get the validator's message."""
    return _MOST[kind] + _MOST[kind] // 4 + 64


def _prescan(data: bytes, where: str) -> None:
    """Refuse, unparsed, a file holding more objects, lists, strings or values than a session can.

    C-speed passes over the bytes (count, find, translate, split): well under a second at the
    256 MiB cap, where json.loads takes seconds and gigabytes for a flood of small values.
    """
    def refuse(detail: str, text: bytes = b"") -> SessionError:
        """The error; "nested too deeply" if the first MiB of ``text`` opens 65 levels at once."""
        head = text[:2 ** 20].replace(b"\\\\", b"").replace(b'\\"', b"")
        head = b"".join(head.split(b'"')[0::2])   # outside strings
        if _OPENER_RUN.search(head.translate(None, _NOT_BRACKETS)):
            return SessionError(f"{where}: is nested too deeply to be a session file")
        return SessionError(f"{where}: is not a session file ({detail})")

    # 1. The raw bytes, counted in one pass: floods of objects, lists or strings stop here. Text
    #    can hold these characters too, so the limits add all the text a session holds.
    counted = data.translate(None, _NOT_COUNTED)  # one pass; small unless it is a flood
    for char, most in ((b"{", _prescan_limit("objects")), (b"[", _prescan_limit("lists")),
                       (b'"', 2 * _prescan_limit("strings"))):
        most += _prescan_limit("text")
        count = counted.count(char)
        if count > most:
            raise refuse(f"it holds {count:,} '{char.decode()}' characters; a session holds at "
                         f"most {most:,}, its text included", data)
    del counted
    # 2. Drop escaped backslashes and quotes: every '"' left opens or ends a string. With few
    #    strings, pair the quotes here: a huge string stops before any copy of the file.
    quotes = count
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")  # no copy when there are none
        quotes = data.count(b'"')
    if quotes <= _PAIRED_QUOTES_MAX:
        end = -1
        for _ in range(quotes // 2):
            start = data.find(b'"', end + 1)
            end = data.find(b'"', start + 1)
            if end - start - 1 > _prescan_limit("string bytes"):
                raise refuse(f"it holds a string of {_size_text(end - start - 1)}; the longest "
                             f"text in a session is the layout, at most "
                             f"{_size_text(MAX_LAYOUT_BYTES)}")
    if quotes > 2 * _prescan_limit("strings"):
        raise refuse(f"it holds {quotes // 2:,} strings; a session holds at most "
                     f"{_MOST['strings']:,}")
    # 3. The structure outside strings. Numbers and spaces carry none: dropped, a matrix cell is
    #    left as its comma (an escape's backslash keeps its letter, so no new escapes appear).
    skeleton = data.translate(None, _NUMBERS_AND_SPACE)
    del data
    if quotes:
        parts = skeleton.split(b'"')
        longest = max(map(len, parts[1::2]))  # without its digits and spaces
        if longest > _prescan_limit("string bytes"):
            raise refuse(f"it holds a string of {_size_text(longest)} or more; the longest text "
                         f"in a session is the layout, at most {_size_text(MAX_LAYOUT_BYTES)}")
        outside = b"".join(parts[0::2])
        del parts
    else:
        outside = skeleton
    del skeleton
    objects, lists = outside.count(b"{"), outside.count(b"[")
    if objects > _prescan_limit("objects"):
        raise refuse(f"it holds {objects:,} objects; a session holds {_MOST['objects']}", outside)
    if lists > _prescan_limit("lists"):
        raise refuse(f"it holds {lists:,} lists; a session holds at most {_MOST['lists']:,} (the "
                     f"tokens, and every matrix and its rows)", outside)
    # 4. Values: a list holding no other list (the tokens, a matrix row) holds its commas + 1;
    #    every other comma separates fields, rows or layout members. At most `lists` steps here.
    in_lists = 0
    start = outside.find(b"[")
    while start >= 0:
        following = outside.find(b"[", start + 1)
        end = outside.find(b"]", start + 1, len(outside) if following < 0 else following)
        if end >= 0:  # (a session has no object in a list, so any one inside is counted too)
            commas = outside.count(b",", start + 1, end)
            if commas >= _prescan_limit("list values"):
                raise refuse(f"it holds a list of {commas + 1:,} values; the longest list in a "
                             f"session is the tokens, at most {MAX_TOKENS:,}")
            in_lists += commas
        start = following
    other = outside.count(b",") - in_lists
    if other > _prescan_limit("other values"):
        raise refuse(f"it holds {other:,} values outside its lists of numbers and tokens; a "
                     f"session holds at most {_MOST['other values']:,} (fields, matrix rows, "
                     f"layout members)")


def _parse(text: str, where: str) -> Any:
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text or text.isspace():
        raise SessionError(f"{where}: is empty")
    try:
        return json.loads(text, parse_constant=_parse_constant, parse_float=_parse_float,
                          parse_int=_parse_int, object_pairs_hook=_no_duplicates)
    except _Refused as e:
        raise SessionError(f"{where}: {e.message}{_position(text, e.literal)}") from None
    except json.JSONDecodeError as e:
        cut = e.pos >= len(text.rstrip()) or (e.msg.startswith("Unterminated string")
                                              and "\n" not in text[e.pos:].rstrip())
        ending = " (the file ends too early; is it truncated?)" if cut else ""
        raise SessionError(f"{where}: is not valid JSON: {e.msg} at line {e.lineno}, column "
                           f"{e.colno}{ending}") from None
    except RecursionError:
        raise SessionError(f"{where}: is nested too deeply to be a session file") from None


def _matrix_from_json(rows: Any, place: str, where: str) -> Any:
    """A list of equally long rows of JSON numbers -> a read-only float64 array."""
    if not isinstance(rows, list):
        raise SessionError(f"{where}: {place} must be a list of rows, not {_describe(rows)}")
    if not rows:
        raise SessionError(f"{where}: {place} has no rows")
    width = None
    kinds: set[type] = set()
    for i, row in enumerate(rows):
        if not isinstance(row, list):
            raise SessionError(f"{where}: {place} row {i} must be a list of numbers, "
                               f"not {_describe(row)}")
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise SessionError(f"{where}: {place} row {i} has {len(row)} numbers but row 0 has "
                               f"{width}")
        kinds.update(map(type, row))
        if not kinds <= {float, int}:
            for j, value in enumerate(row):
                if type(value) not in (float, int):
                    raise SessionError(f"{where}: {place} row {i} col {j} is "
                                       f"{_describe(value)}; it must be a number")
    if not width:
        raise SessionError(f"{where}: {place} has no columns")
    if len(rows) * width > MAX_CELLS:
        raise SessionError(f"{where}: {place} has {len(rows)}×{width} = {len(rows) * width} "
                           f"cells; the most is {MAX_CELLS}")
    array = np.array(rows, dtype=np.float64)
    array.flags.writeable = False
    return array


def _session_from_data(data: Any, where: str) -> Session:
    if not isinstance(data, dict):
        raise SessionError(f"{where}: is not a session file (it holds {_describe(data)}, "
                           f"not an object)")
    if "format" not in data:
        raise SessionError(f"{where}: is not an Attention Explorer session (it has no "
                           f"\"format\" field)")
    if data["format"] != FORMAT_NAME:
        raise SessionError(f"{where}: is not an Attention Explorer session (format is "
                           f"{_describe(data['format'])}, expected {FORMAT_NAME!r})")
    if "version" not in data:
        raise SessionError(f"{where}: has no \"version\" field")
    version = data["version"]
    if isinstance(version, bool) or not isinstance(version, int):
        raise SessionError(f"{where}: version must be an integer, not {_describe(version)}")
    if version < 1:
        raise SessionError(f"{where}: version {version} is not valid (versions start at 1)")
    if version > VERSION:
        raise SessionError(f"{where}: written by a newer version of Attention Explorer (version "
                           f"{version}; this one reads up to {VERSION})")
    while version < VERSION:
        step = UPGRADES.get(version)
        if step is None:
            raise SessionError(f"{where}: no upgrade from version {version} to {version + 1}")
        try:
            data = step(data)
        except Exception as e:
            raise SessionError(f"{where}: could not upgrade it from version {version} to "
                               f"{version + 1} ({type(e).__name__}: {str(e)[:200]})") from e
        if not isinstance(data, dict):
            raise SessionError(f"{where}: upgrading from version {version} gave "
                               f"{_describe(data)}")
        version += 1
        data["version"] = version

    _check_fields(data, _TOP_FIELDS, "", where)
    tokens = data["tokens"]
    if not isinstance(tokens, list):
        raise SessionError(f"{where}: tokens must be a list of strings, not {_describe(tokens)}")
    settings = data["settings"]
    if not isinstance(settings, dict):
        raise SessionError(f"{where}: settings must be an object, not {_describe(settings)}")
    _check_fields(settings, _SETTINGS_FIELDS, "settings", where)
    matrices = data["matrices"]
    if not isinstance(matrices, dict):
        raise SessionError(f"{where}: matrices must be an object of named matrices, "
                           f"not {_describe(matrices)}")
    layout = data["layout"]
    if layout is not None and not isinstance(layout, dict):
        raise SessionError(f"{where}: layout must be null or an object of strings, "
                           f"not {_describe(layout)}")
    _check_tokens(tokens, where)     # before the matrices, whose rows are counted against it
    _check_matrix_names(matrices, where)
    arrays = {name: _matrix_from_json(matrices[name], f"matrices.{name}", where)
              for name in MATRIX_AXES if name in matrices}
    session = Session(tokens=tuple(tokens), matrices=arrays, settings=Settings(**settings),
                      layout=layout, title=data["title"])
    return validate_session(session, where)


def _from_json(text: Any, where: str) -> Session:
    if isinstance(text, (bytes, bytearray, memoryview)):
        raw = bytes(text)
        text = _decode(raw, where)
    elif isinstance(text, str):
        raw = text.encode("utf-8", "surrogatepass")
    else:
        raise SessionError(f"{where}: expected the text of a session file, not "
                           f"{_describe(text)}")
    _prescan(raw, where)
    del raw
    data = _parse(text, where)
    del text
    return _session_from_data(data, where)


def session_from_json(text: str | bytes, where: str = "<string>") -> Session:
    """Parse and validate a session's text (str, or UTF-8 bytes). Only SessionError escapes."""
    where = str(where)
    try:
        return _from_json(text, where)
    except SessionError:
        raise
    except RecursionError:
        raise SessionError(f"{where}: is nested too deeply to be a session file") from None
    except MemoryError:
        raise SessionError(f"{where}: is too large to load (out of memory)") from None
    except Exception as e:  # a bug or an input nobody foresaw: still a message, never a crash
        raise SessionError(f"{where}: could not be read ({type(e).__name__}: "
                           f"{str(e)[:200]})") from e


def load_session(path) -> Session:
    """Read, parse and validate a session file; refuses huge files before reading them.

    Also removes the temporaries that killed saves of this file left beside it.
    """
    name = file_name(path)
    try:
        file_path = os.fspath(path)
        info = os.stat(file_path)
    except FileNotFoundError:
        raise SessionError(f"{name}: no such file") from None
    except OSError as e:
        raise SessionError(f"{name}: cannot be opened ({e.strerror or e})") from None
    except (TypeError, ValueError) as e:
        raise SessionError(f"{name}: is not a usable file path ({e})") from None
    if stat.S_ISDIR(info.st_mode):
        raise SessionError(f"{name}: is a folder, not a session file")
    if not stat.S_ISREG(info.st_mode):
        raise SessionError(f"{name}: is not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise SessionError(f"{name}: is {_size_text(info.st_size)}; session files are limited "
                           f"to {_size_text(MAX_FILE_BYTES)}")
    remove_stale_temporaries(file_path)  # of saves of this file killed mid-way; never raises
    try:
        with open(file_path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise SessionError(f"{name}: cannot be read ({e.strerror or e})") from None
    except MemoryError:
        raise SessionError(f"{name}: is too large to load (out of memory)") from None
    if len(data) > MAX_FILE_BYTES:
        raise SessionError(f"{name}: is larger than {_size_text(MAX_FILE_BYTES)}, the limit "
                           f"for session files")
    return session_from_json(data, where=name)
