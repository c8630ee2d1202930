"""The settings a session restores (the controls, F6): their fields, defaults, ranges and checks.

Self-contained on purpose: the Settings dataclass, the allowed values and ``_check_settings`` are
the one place a setting is described, so a new setting is an entry here and its mathematics.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Mapping

import numpy as np

from .errors import SessionError
from .session_limits import AXIS_TEXT
from .session_words import describe

SCALE_MODES = ("inv_sqrt_d", "none", "custom")
SOURCES = ("direct", "projected")   # edit Q, K, V themselves, or X and the projections W
POSITIONS = ("none", "sinusoidal")  # what is added to X before the projections
ROPE_STYLES = ("half", "interleaved")  # GPT-NeoX/Llama rotate_half, or GPT-J/RoFormer pairs
ROPE_BASE_MIN, ROPE_BASE_MAX = 100.0, 1e6
ROPE_OFFSET_MAX = 1_000_000
TEMPERATURE_MIN, TEMPERATURE_MAX = 0.05, 20.0
SCALE_MAX = 1e3                 # a custom scale lies in (0, SCALE_MAX]

# settings.heads must divide each of these widths (axes of session_limits.MATRIX_AXES), by source
HEAD_AXES = {"direct": ("d_k", "d_v"), "projected": ("p_k", "p_v")}


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


SETTINGS_FIELDS = tuple(f.name for f in fields(Settings))   # in the order the writer writes them


def _real(value: Any, place: str, where: str) -> float:
    """A finite real number (an int is fine; a bool is not) as a float, or SessionError."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                        np.floating)):
        raise SessionError(f"{where}: {place} must be a number, not {describe(value)}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise SessionError(f"{where}: {place} must be a finite number, not {describe(value)}")
    return number


def _integer(value: Any, place: str, where: str) -> int:
    """An integer (not a bool, not 2.0) as an int, or SessionError."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise SessionError(f"{where}: {place} must be an integer, not {describe(value)}")
    return int(value)


def _choice(value: Any, allowed: tuple[str, ...], place: str, where: str) -> str:
    """One of the ``allowed`` words, or SessionError listing them."""
    if not isinstance(value, str) or value not in allowed:
        raise SessionError(f"{where}: {place} must be one of {', '.join(map(repr, allowed))}, "
                           f"not {describe(value)}")
    return value


def _flag(value: Any, place: str, where: str) -> bool:
    """true or false (a NumPy bool too) as a bool, or SessionError."""
    if not isinstance(value, (bool, np.bool_)):
        raise SessionError(f"{where}: {place} must be true or false, not {describe(value)}")
    return bool(value)


def _check_settings(settings: Any, widths: Mapping[str, int], where: str) -> Settings:
    """Every setting's type and range, and how the settings fit the matrices' ``widths`` (axis ->
    length, "L" the tokens); a normalised copy (plain float/int/bool), or SessionError."""
    if not isinstance(settings, Settings):
        raise SessionError(f"{where}: settings must be a Settings, not {describe(settings)}")
    mode = _choice(settings.scale_mode, SCALE_MODES, "settings.scale_mode", where)
    scale = _real(settings.scale, "settings.scale", where)
    if not 0.0 < scale <= SCALE_MAX:
        raise SessionError(f"{where}: settings.scale is {scale!r}; it must be above 0 and at "
                           f"most {SCALE_MAX:.0f}")
    temperature = _real(settings.temperature, "settings.temperature", where)
    if not TEMPERATURE_MIN <= temperature <= TEMPERATURE_MAX:
        raise SessionError(f"{where}: settings.temperature is {temperature!r}; it must lie in "
                           f"{TEMPERATURE_MIN:g}..{TEMPERATURE_MAX:g}")
    causal = _flag(settings.causal, "settings.causal", where)
    source = _choice(settings.source, SOURCES, "settings.source", where)
    if source == "projected" and "D" not in widths:
        raise SessionError(f"{where}: settings.source is 'projected' but the matrices X, Wq, Wk, "
                           f"Wv and Wo are missing")
    positions = _choice(settings.positions, POSITIONS, "settings.positions", where)
    if positions != "none" and source != "projected":
        raise SessionError(f"{where}: settings.positions is {positions!r}, but positions are added "
                           f"to the token vectors X, which only the 'projected' source has")
    heads = _integer(settings.heads, "settings.heads", where)
    if heads < 1:
        raise SessionError(f"{where}: settings.heads is {heads}; it must be at least 1")
    rope = _flag(settings.rope, "settings.rope", where)
    rope_base = _real(settings.rope_base, "settings.rope_base", where)
    if not ROPE_BASE_MIN <= rope_base <= ROPE_BASE_MAX:
        raise SessionError(f"{where}: settings.rope_base is {rope_base!r}; it must lie in "
                           f"{ROPE_BASE_MIN:g}..{ROPE_BASE_MAX:g}")
    rope_style = _choice(settings.rope_style, ROPE_STYLES, "settings.rope_style", where)
    rope_offset = _integer(settings.rope_offset, "settings.rope_offset", where)
    if not 0 <= rope_offset <= ROPE_OFFSET_MAX:
        raise SessionError(f"{where}: settings.rope_offset is {rope_offset}; it must lie in "
                           f"0..{ROPE_OFFSET_MAX}")
    qk_width = widths[HEAD_AXES[source][0]]
    if rope and (qk_width % heads == 0) and (qk_width // heads) % 2:
        raise SessionError(f"{where}: settings.rope is on but each head's Q/K width d_h = "
                           f"{qk_width // heads} is odd; RoPE rotates pairs of dimensions")
    for axis in HEAD_AXES[source]:
        width = widths[axis]
        if width % heads:
            raise SessionError(f"{where}: settings.heads is {heads}, which does not divide "
                               f"{AXIS_TEXT.get(axis, axis)} {width} (heads must divide "
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
    return Settings(scale_mode=mode, scale=scale, temperature=temperature, causal=causal,
                    heads=heads, selected_row=row, selected_head=head, source=source,
                    positions=positions, rope=rope, rope_base=rope_base, rope_style=rope_style,
                    rope_offset=rope_offset)
