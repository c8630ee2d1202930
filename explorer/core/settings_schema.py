"""The one description of the settings (F6): name, type, choices or range, default, label, tooltip,
which widths it must divide. The session reader, the model's edits and the controls all work from it.

``check_value`` checks one value on its own; ``check_together`` the rules between settings and the
widths of the matrices. Both raise ValueError with a sentence naming the place, the value and what
is allowed (the caller puts the file name in front).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from .heads import head_count_options
from .session_words import describe


@dataclass(frozen=True)
class Setting:
    """One setting. ``choices`` are (value, label) pairs; ``low``/``high`` bound a number (``low_open``:
    strictly above ``low``); ``divides`` names the widths it must divide; ``view`` marks the view
    selection (saved, never an undo step); ``since`` is the session format version that added it."""

    name: str
    kind: type
    default: Any
    label: str
    tooltip: str
    choices: tuple = ()
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    log: bool = False
    divides: tuple = ()
    view: bool = False
    since: int = 1

    def values(self):
        return tuple(value for value, _ in self.choices)

    def choice_label(self, value):
        return dict(self.choices).get(value, str(value))


SETTINGS = (
    Setting("scale_mode", str, "inv_sqrt_d", "scale mode",
            "What multiplies QKᵀ: 1/√d keeps the spread of the scores near 1 whatever d is",
            choices=(("inv_sqrt_d", "1/√d  (standard)"), ("none", "none (× 1)"), ("custom", "custom value"))),
    Setting("scale", float, 1.0, "scale", "The custom scale (used when the scale mode is 'custom value')",
            low=0.0, high=1e3, low_open=True),
    Setting("temperature", float, 1.0, "temperature",
            "Temperature T divides the scores before the softmax: low T → one key takes all, high T → uniform",
            low=0.05, high=20.0, log=True),
    Setting("causal", bool, False, "causal mask",
            "Set the upper triangle (j > i) of the scores to −∞ before the softmax"),
    Setting("heads", int, 1, "heads", "Number of heads H: only divisors of the widths of Q/K and V are offered",
            low=1, divides=("qk", "v")),
    Setting("selected_row", int, 0, "query row",
            "The query row the other panels highlight (or click a row in a heatmap)", low=0, view=True),
    Setting("selected_head", int, 0, "shown head", "The head the Scores and Weights panels show",
            low=0, view=True),
    Setting("source", str, "direct", "source of Q, K, V",
            "Where Q, K and V come from: edited directly, or projected from token vectors X by W_q, W_k, "
            "W_v (the chapter's three personalities)",
            choices=(("direct", "edit Q, K, V directly"),
                     ("projected", "project X:  Q = X·W_qᵀ, K = X·W_kᵀ, V = X·W_vᵀ")), since=2),
    Setting("positions", str, "none", "positions",
            "What tells attention where each token is: the sinusoidal PE(L, D) added to X before "
            "projecting (projected mode), or ALiBi's per-head linear bias −m_h·|i − j| on the scores",
            choices=(("none", "none (order is invisible)"), ("sinusoidal", "sinusoidal PE added to X"),
                     ("alibi", "ALiBi: bias −m·distance on the scores")), since=2),
    Setting("rope", bool, False, "RoPE", "Rotate q and k of every head by position before the scores",
            since=2),
    Setting("rope_base", float, 10000.0, "RoPE base", "θ_i = base^(−2i/d_h): a larger base turns slower",
            low=100.0, high=1e8, log=True, since=2),
    Setting("rope_style", str, "half", "RoPE convention",
            "Which dimensions form the rotated pairs",
            choices=(("half", "half (GPT-NeoX/Llama: i and i + d/2)"),
                     ("interleaved", "interleaved (GPT-J/RoFormer: 2i and 2i + 1)")), since=2),
    Setting("rope_offset", int, 0, "RoPE offset", "Positions are offset, offset + 1, …",
            low=0, high=1_000_000, since=2),
)
SCHEMA: Mapping[str, Setting] = {s.name: s for s in SETTINGS}
COMPUTED = tuple(s.name for s in SETTINGS if not s.view)  # what the recompute reads and undo restores


def _bound(setting: Setting, x: float) -> str:
    return str(int(x)) if setting.kind is int else f"{x:g}"


def allowed(setting: Setting) -> str:
    """What a setting allows, in words: "one of 'a', 'b'", "in 0.05..20", "at least 1"."""
    if setting.choices:
        return "one of " + ", ".join(map(repr, setting.values()))
    if setting.low is not None and setting.high is not None:
        if setting.low_open:
            return f"above {_bound(setting, setting.low)} and at most {_bound(setting, setting.high)}"
        return f"in {_bound(setting, setting.low)}..{_bound(setting, setting.high)}"
    if setting.low is not None:
        return f"at least {_bound(setting, setting.low)}"
    return "true or false" if setting.kind is bool else f"a {setting.kind.__name__}"


def check_value(name: str, value: Any, place: str | None = None) -> Any:
    """``value`` as the setting's type, or ValueError: "<place> is 25.0; it must lie in 0.05..20"."""
    s = SCHEMA[name]
    place = place or f"settings.{name}"
    if s.kind is bool:
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{place} must be true or false, not {describe(value)}")
        return bool(value)
    if s.kind is str:
        if not isinstance(value, str) or value not in s.values():
            raise ValueError(f"{place} must be {allowed(s)}, not {describe(value)}")
        return value
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{place} must be {'an integer' if s.kind is int else 'a number'}, "
                         f"not {describe(value)}")
    if s.kind is int:
        if not isinstance(value, (int, np.integer)):
            raise ValueError(f"{place} must be an integer, not {describe(value)}")
        value = int(value)
    else:
        if not isinstance(value, (int, float, np.integer, np.floating)):
            raise ValueError(f"{place} must be a number, not {describe(value)}")
        try:
            value = float(value)
        except OverflowError:
            value = math.inf
        if not math.isfinite(value):
            raise ValueError(f"{place} must be a finite number, not {describe(value)}")
    low_bad = s.low is not None and (value <= s.low if s.low_open else value < s.low)
    if low_bad or (s.high is not None and value > s.high):
        verb = "it must lie" if s.high is not None and not s.low_open else "it must be"
        raise ValueError(f"{place} is {value!r}; {verb} {allowed(s)}")
    return value


def head_options(qk_width: int, v_width: int, rope: bool = False) -> list[int]:
    """The head counts the ``heads`` setting offers: divisors of both widths, with an even d_h under RoPE."""
    return [h for h in head_count_options(qk_width, v_width) if not rope or (qk_width // h) % 2 == 0]


def check_together(values: Mapping[str, Any], widths: Mapping[str, int], *, projected_matrices: bool,
                   prefix: str = "settings.") -> None:
    """The rules between settings and the matrices' widths (``qk``, ``v`` and ``L``), or ValueError."""
    source, positions = values["source"], values["positions"]
    if source == "projected" and not projected_matrices:
        raise ValueError(f"{prefix}source is 'projected' but the matrices X, Wq, Wk, Wv and Wo are missing")
    if positions == "sinusoidal" and source != "projected":
        raise ValueError(f"{prefix}positions is 'sinusoidal', but positions are added to the token vectors "
                         f"X, which only the 'projected' source has")
    heads, qk = values["heads"], widths["qk"]
    if values["rope"] and qk % heads == 0 and (qk // heads) % 2:
        raise ValueError(f"{prefix}rope is on but each head's Q/K width d_h = {qk // heads} is odd; RoPE "
                         f"rotates pairs of dimensions")
    for axis, text in (("qk", "the Q/K width"), ("v", "the V width")):
        if widths[axis] % heads:
            options = ", ".join(map(str, head_options(widths["qk"], widths["v"], values["rope"])))
            raise ValueError(f"{prefix}heads is {heads}, which does not divide {text} {widths[axis]} (heads "
                             f"must divide the Q/K width and the V width: {options})")
    n_tokens = widths["L"]
    if not 0 <= values["selected_row"] < n_tokens:
        raise ValueError(f"{prefix}selected_row is {values['selected_row']}; with {n_tokens} tokens it must "
                         f"lie in 0..{n_tokens - 1}")
    if not 0 <= values["selected_head"] < heads:
        raise ValueError(f"{prefix}selected_head is {values['selected_head']}; with {heads} heads it must "
                         f"lie in 0..{heads - 1}")
