"""The settings a session restores (the controls, F6), made from their one description in
``settings_schema``: the Settings dataclass, the allowed values, and ``_check_settings``.

A new setting is an entry in ``settings_schema.SETTINGS`` (and its mathematics); nothing here changes.
"""
from __future__ import annotations

from dataclasses import field, make_dataclass
from typing import Any, Mapping

from .errors import SessionError
from .session_words import describe
from .settings_schema import SCHEMA, SETTINGS, check_together, check_value
from .translatable import QT_TRANSLATE_NOOP, message_of

SCALE_MODES = SCHEMA["scale_mode"].values()
SOURCES = SCHEMA["source"].values()          # edit Q, K, V themselves, or X and the projections W
POSITIONS = SCHEMA["positions"].values()     # sinusoidal PE added to X, or ALiBi's bias on the scores
ROPE_STYLES = SCHEMA["rope_style"].values()  # GPT-NeoX/Llama rotate_half, or GPT-J/RoFormer pairs
ROPE_BASE_MIN, ROPE_BASE_MAX = SCHEMA["rope_base"].low, SCHEMA["rope_base"].high
ROPE_OFFSET_MAX = SCHEMA["rope_offset"].high
TEMPERATURE_MIN, TEMPERATURE_MAX = SCHEMA["temperature"].low, SCHEMA["temperature"].high
SCALE_MAX = SCHEMA["scale"].high             # a custom scale lies in (0, SCALE_MAX]

# settings.heads must divide each of these widths (axes of session_limits.MATRIX_AXES), by source
HEAD_AXES = {"direct": ("d_k", "d_v"), "projected": ("p_k", "p_v")}
# K's width and W_o's columns: axes of their own only with grouped K/V heads (session_limits.matrix_axes)
KV_AXES = {"direct": "d_kv", "projected": "p_kv"}

Settings = make_dataclass(
    "Settings", [(s.name, s.kind, field(default=s.default)) for s in SETTINGS], frozen=True,
    namespace={"__doc__": "The controls (F6) a session restores; see settings_schema.SETTINGS.",
               "__module__": __name__})

SETTINGS_FIELDS = tuple(s.name for s in SETTINGS)   # in the order the writer writes them


def _check_settings(settings: Any, widths: Mapping[str, int], where: str, cross: bool = False) -> Settings:
    """Every setting's type and range, and how the settings fit the matrices' ``widths`` (axis ->
    length, "L" the tokens, "Lq" the query tokens of a ``cross`` session); a normalised copy (plain
    float/int/bool), or SessionError."""
    if not isinstance(settings, Settings):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: settings must be a Settings, not {settings}").format(
                               where=where, settings=describe(settings)))
    try:
        values = {s.name: check_value(s.name, getattr(settings, s.name)) for s in SETTINGS}
        source = values["source"]
        qk, v = (widths[axis] for axis in HEAD_AXES[source])
        known = {"qk": qk, "v": v, "L": widths["L"], "Lq": widths.get("Lq"), "kv": widths.get(KV_AXES[source]),
                 "o": widths.get("p_o") if source == "projected" else None}
        check_together(values, {k: n for k, n in known.items() if n is not None},
                       projected_matrices="D" in widths, cross=cross)
    except ValueError as exc:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {why}").format(where=where, why=message_of(exc))) from None
    return Settings(**values)
