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

from .heads import head_count_options, kv_head_count, kv_head_options
from .plural import count
from .session_words import describe
from .translatable import QT_TRANSLATE_NOOP


@dataclass(frozen=True)
class Setting:
    """One setting. ``choices`` are (value, label) pairs; ``low``/``high`` bound a number (``low_open``:
    strictly above ``low``); ``divides`` names the widths it must divide; ``view`` marks the view
    selection (saved, never an undo step); ``results``: changing it changes the results (a recompute);
    ``since`` is the session format version that added it; ``snap``: the significant digits a value set by
    dragging its slider is rounded to (0: the slider's own resolution; a typed value is kept as typed);
    ``why``: what its control says of the values it offers (translated, context "Settings")."""

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
    results: bool = True
    since: int = 1
    snap: int = 0
    why: str = ""  # the control's own say of which values it offers and why ({…} filled in by the control)

    def values(self):
        return tuple(value for value, _ in self.choices)

    def choice_label(self, value):
        return dict(self.choices).get(value, str(value))

    def value_text(self, value) -> str:
        """``value`` as an undo step says it: a choice's label, a number without trailing zeros (20, 0.087)."""
        if self.choices:
            return self.choice_label(value)
        return _bound(self, value) if self.kind in (int, float) else str(value)


SETTINGS = (
    Setting("scale_mode", str, "inv_sqrt_d", "scale mode",
            "What multiplies QKᵀ: 1/√d keeps the spread of the scores near 1 whatever d is",
            choices=(("inv_sqrt_d", "1/√d  (standard)"), ("none", "none (× 1)"), ("custom", "custom value"))),
    Setting("scale", float, 1.0, "scale", "The custom scale (used when the scale mode is 'custom value')",
            low=0.0, high=1e3, low_open=True),
    Setting("temperature", float, 1.0, "temperature",
            "Temperature T divides the scores before the softmax: low T → one key takes all, high T → uniform",
            low=0.05, high=20.0, log=True, snap=2),
    Setting("causal", bool, False, "causal mask",
            "Set the upper triangle (j > i) of the scores to −∞ before the softmax"),
    Setting("heads", int, 1, "heads", "Number of heads H: only divisors of the widths of Q/K and V are offered",
            low=1, divides=("qk", "v"),
            why="Each head takes d / H whole columns of Q and K (and d_v / H of V), so only head counts that divide "
                "d = {d} and d_v = {dv} are offered: {options}"),
    Setting("selected_row", int, 0, "query row",
            "The query row the other panels highlight (or click a row in a heatmap)", low=0, view=True,
            results=False),
    Setting("selected_head", int, 0, "shown head", "The head the Scores and Weights panels show",
            low=0, view=True, results=False),
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
    Setting("rope_base", float, 10000.0, "RoPE base",
            "θ_i = base^(−2i/d_h): a larger base turns the slow pairs even more slowly (Llama 2: 10 000; "
            "Llama 3: 500 000)",
            low=100.0, high=1e8, log=True, since=2),
    Setting("rope_style", str, "half", "RoPE convention",
            "Which dimensions form a pair: half pairs i with i + d_h/2 (rotate_half), interleaved pairs 2i with "
            "2i + 1. The same rotation, a different order of dimensions.",
            choices=(("half", "half — GPT-NeoX / Llama"), ("interleaved", "interleaved — GPT-J / RoFormer")),
            since=2),
    Setting("rope_offset", int, 0, "RoPE offset",
            "The pipeline rotates token t by offset + t. Shifting every position by the same amount changes no "
            "score: only distances count.",
            low=0, high=1_000_000, since=2),
    Setting("rope_scaling", str, "none", "RoPE scaling",
            "How θ_i is stretched for a context longer than the model was first trained on. llama3 (Llama 3.1 / "
            "3.2): pairs too slow to turn within the original context turn 'factor' times slower, fast pairs keep "
            "their speed, the pairs between are blended",
            choices=(("none", "none — θ_i as the base gives it"), ("llama3", "llama3 — Llama 3.1 / 3.2")), since=5),
    Setting("rope_factor", float, 8.0, "scaling factor",
            "llama3: the slow pairs (wavelength 2π/θ_i above original context / low_freq_factor) turn this many "
            "times slower, θ_i / factor (Llama 3.1: 8, Llama 3.2: 32)",
            low=1.0, high=1000.0, log=True, since=5),
    Setting("rope_low_freq_factor", float, 1.0, "low_freq_factor",
            "llama3: pairs whose wavelength 2π/θ_i exceeds original context / low_freq_factor are slowed by the "
            "whole factor; a larger value slows more pairs (Llama 3.1: 1)",
            low=0.0, high=1000.0, low_open=True, since=5),
    Setting("rope_high_freq_factor", float, 4.0, "high_freq_factor",
            "llama3: pairs whose wavelength 2π/θ_i is below original context / high_freq_factor keep their speed; "
            "between the two bounds the speed is blended (Llama 3.1: 4; above low_freq_factor)",
            low=0.0, high=1000.0, low_open=True, since=5),
    Setting("rope_original_max_position_embeddings", int, 8192, "original context",
            "llama3: the context length the model was first trained on (original_max_position_embeddings, Llama "
            "3.1: 8192); the wavelengths are measured against it",
            low=1, high=10_000_000, since=5),
    Setting("kv_heads", int, 0, "K/V heads",
            "How many K/V heads H_kv the query heads share: 0 = as many as heads (ordinary multi-head), 1 = "
            "multi-query (MQA), a divisor of heads = grouped-query (GQA); query head h reads K/V head "
            "⌊h / (heads / H_kv)⌋", low=0, divides=("heads", "v"), since=4),
    Setting("decode_prefill", int, 1, "prefill",
            "Tokens the prompt puts in the K/V cache in one step before decoding one token at a time "
            "(more than the session has: all of them)", low=1, high=8192, results=False, since=4),
    Setting("decode_t", int, 0, "decode step t",
            "Tokens in the K/V cache at the step shown (0, or more than the session has: all of them)",
            low=0, high=8192, results=False, since=4),
)
SCHEMA: Mapping[str, Setting] = {s.name: s for s in SETTINGS}
COMPUTED = tuple(s.name for s in SETTINGS if not s.view)  # what undo restores (the selection is apart)
RESULTS = tuple(s.name for s in SETTINGS if s.results)  # what the results depend on


def _bound(setting: Setting, x: float) -> str:
    return str(int(x)) if setting.kind is int else f"{x:g}"


def allowed(setting: Setting) -> str:
    """What a setting allows, in words: "one of 'a', 'b'", "in 0.05..20", "at least 1"."""
    if setting.choices:
        return QT_TRANSLATE_NOOP("SettingsCheck", "one of {values}").format(values=", ".join(map(repr, setting.values())))
    low, high = (None if x is None else _bound(setting, x) for x in (setting.low, setting.high))
    if low is not None and high is not None:
        if setting.low_open:
            return QT_TRANSLATE_NOOP("SettingsCheck", "above {low} and at most {high}").format(low=low, high=high)
        return QT_TRANSLATE_NOOP("SettingsCheck", "in {low}..{high}").format(low=low, high=high)
    if low is not None:
        return QT_TRANSLATE_NOOP("SettingsCheck", "at least {low}").format(low=low)
    return QT_TRANSLATE_NOOP("SettingsCheck", "true or false") if setting.kind is bool else f"a {setting.kind.__name__}"


def check_value(name: str, value: Any, place: str | None = None) -> Any:
    """``value`` as the setting's type, or ValueError: "<place> is 25.0; it must lie in 0.05..20"."""
    s = SCHEMA[name]
    place = place or f"settings.{name}"
    if s.kind is bool:
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{place} must be true or false, not {value}").format(
                                 place=place, value=describe(value)))
        return bool(value)
    if s.kind is str:
        if not isinstance(value, str) or value not in s.values():
            raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{place} must be {allowed}, not {value}").format(
                                 place=place, allowed=allowed(s), value=describe(value)))
        return value
    if isinstance(value, (bool, np.bool_)):
        raise ValueError((QT_TRANSLATE_NOOP("SettingsCheck", "{place} must be an integer, not {value}") if s.kind is int
                          else QT_TRANSLATE_NOOP("SettingsCheck", "{place} must be a number, not {value}")).format(
                             place=place, value=describe(value)))
    if s.kind is int:
        if not isinstance(value, (int, np.integer)):
            raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{place} must be an integer, not {value}").format(
                                 place=place, value=describe(value)))
        value = int(value)
    else:
        if not isinstance(value, (int, float, np.integer, np.floating)):
            raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{place} must be a number, not {value}").format(
                                 place=place, value=describe(value)))
        try:
            value = float(value)
        except OverflowError:
            value = math.inf
        if not math.isfinite(value):
            raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{place} must be a finite number, not {value}").format(
                                 place=place, value=describe(value)))
    low_bad = s.low is not None and (value <= s.low if s.low_open else value < s.low)
    if low_bad or (s.high is not None and value > s.high):
        lie = s.high is not None and not s.low_open
        raise ValueError((QT_TRANSLATE_NOOP("SettingsCheck", "{place} is {value}; it must lie {allowed}") if lie
                          else QT_TRANSLATE_NOOP("SettingsCheck", "{place} is {value}; it must be {allowed}")).format(
                             place=place, value=repr(value), allowed=allowed(s)))
    return value


def implied_kv_heads(heads: int, qk_width: int, kv_width: int) -> int | None:
    """How many K/V heads of d_h = qk_width / heads a K of ``kv_width`` columns holds, or None if not whole."""
    if heads < 1 or qk_width % heads or kv_width % (qk_width // heads):
        return None
    return kv_width // (qk_width // heads)


def head_options(qk_width: int, v_width: int, rope: bool = False, kv_width: int | None = None) -> list[int]:
    """The head counts the ``heads`` setting offers: divisors of both widths, with an even d_h under RoPE.

    With ``kv_width`` (K's width) unlike the Q width (grouped K/V heads), H must divide the Q width and
    K must hold a whole number H_kv of heads of that d_h, H_kv dividing H and the V width."""
    if kv_width is None or kv_width == qk_width:
        return [h for h in head_count_options(qk_width, v_width) if not rope or (qk_width // h) % 2 == 0]
    options = []
    for h in head_count_options(qk_width):
        kv = implied_kv_heads(h, qk_width, kv_width)
        if kv and h % kv == 0 and v_width % kv == 0 and (not rope or (qk_width // h) % 2 == 0):
            options.append(h)
    return options


def _check_kv_heads(values: Mapping[str, Any], widths: Mapping[str, int], prefix: str) -> bool:
    """The rules of grouped K/V heads; True when the session has them (H_kv < H)."""
    heads, kv_setting = values["heads"], values.get("kv_heads", 0)
    if kv_setting and heads % kv_setting:
        options = ", ".join(map(str, kv_head_options(heads)))
        raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{prefix}kv_heads is {kv_setting}, which does "
                                                            "not divide heads {heads} (kv_heads is 0 for as "
                                                            "many K/V heads as heads, or one of {options})").format(
                             prefix=prefix, kv_setting=kv_setting, heads=heads, options=options))
    kv = kv_head_count(heads, kv_setting)
    if kv == heads:
        return False
    qk, v = widths["qk"], widths["v"]
    d_h = qk // heads
    projected = values["source"] == "projected"
    k_text = (QT_TRANSLATE_NOOP("SettingsCheck", "the projected K width (rows of Wk)") if projected
              else QT_TRANSLATE_NOOP("SettingsCheck", "the K width"))
    if "kv" in widths and widths["kv"] != kv * d_h:
        raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{prefix}kv_heads is {kv}, but {k_text} is "
                                                            "{k_width}: {heads} heads of d_h = {d_h} (the Q "
                                                            "width {qk} / {heads}) sharing {kv} K/V heads "
                                                            "need kv_heads·d_h = {k_width_needed}").format(prefix=prefix,
                             kv=kv, k_text=k_text, k_width=widths['kv'], heads=heads, d_h=d_h, qk=qk,
                             k_width_needed=kv * d_h))
    if v % kv:
        raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{prefix}kv_heads is {kv}, which does not divide "
                                                            "the V width {v} (each K/V head takes V width / "
                                                            "kv_heads columns)").format(prefix=prefix, kv=kv, v=v))
    if "o" in widths and widths["o"] != heads * (v // kv):
        raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{prefix}kv_heads is {kv}: the {heads} heads' "
                                                            "outputs side by side are heads·(V width / "
                                                            "kv_heads) = {heads}·{v} = {outputs_width} wide, but Wo "
                                                            "has {o} columns").format(prefix=prefix, kv=kv,
                             heads=heads, v=v // kv, outputs_width=heads * (v // kv), o=widths['o']))
    return True


def check_together(values: Mapping[str, Any], widths: Mapping[str, int], *, projected_matrices: bool,
                   prefix: str = "settings.", cross: bool = False) -> None:
    """The rules between settings and the matrices' widths, or ValueError.

    ``widths``: ``qk`` (Q's width), ``v`` (V's) and ``L`` (the tokens) always; when known, ``kv`` (K's
    width), ``o`` (W_o's columns) and ``Lq`` (the query tokens of a ``cross``-attention session)."""
    source, positions = values["source"], values["positions"]
    if cross and values["causal"]:
        raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{prefix}causal cannot be on in a "
                                                            "cross-attention session (it has query_tokens): "
                                                            "its queries read another sequence, which has no "
                                                            "future to hide; decoder cross-attention has no "
                                                            "causal mask").format(prefix=prefix))
    if source == "projected" and not projected_matrices:
        raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{prefix}source is 'projected' but the matrices "
                                                            "X, Wq, Wk, Wv and Wo are missing").format(
                             prefix=prefix))
    if positions == "sinusoidal" and source != "projected":
        raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{prefix}positions is 'sinusoidal', but "
                                                            "positions are added to the token vectors X, "
                                                            "which only the 'projected' source has").format(
                             prefix=prefix))
    heads, qk = values["heads"], widths["qk"]
    if values["rope"] and qk % heads == 0 and (qk // heads) % 2:
        options = ", ".join(map(str, head_options(qk, widths["v"], rope=True)))
        remedy = (QT_TRANSLATE_NOOP("SettingsCheck", "with RoPE, heads must be one of {options}").format(options=options)
                  if options else QT_TRANSLATE_NOOP("SettingsCheck", "so it needs an even Q/K width"))
        raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{prefix}rope needs an even d_h, but each head's "
                                                            "Q/K width d_h = {qk} is odd ({heads} of the Q/K "
                                                            "width {qk_width}): RoPE turns pairs of dimensions, "
                                                            "{remedy}").format(prefix=prefix, qk=qk // heads,
                             heads=count(heads, 'head'), n_heads=heads, qk_width=qk, remedy=remedy))
    if values["rope_scaling"] == "llama3" and not values["rope_high_freq_factor"] > values["rope_low_freq_factor"]:
        raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{prefix}rope_high_freq_factor is "
                                                            "{rope_high_freq_factor}, not above "
                                                            "rope_low_freq_factor {rope_low_freq_factor}: "
                                                            "llama3 scaling blends the pairs whose "
                                                            "wavelengths lie between original context / "
                                                            "high_freq_factor and original context / "
                                                            "low_freq_factor, so high_freq_factor must be "
                                                            "the larger").format(prefix=prefix,
                             rope_high_freq_factor=repr(values['rope_high_freq_factor']),
                             rope_low_freq_factor=repr(values['rope_low_freq_factor'])))
    grouped = widths["qk"] % heads == 0 and _check_kv_heads(values, widths, prefix)
    for axis, text in (("qk", QT_TRANSLATE_NOOP("SettingsCheck", "the Q/K width")),
                       ("v", QT_TRANSLATE_NOOP("SettingsCheck", "the V width")))[:1 if grouped else 2]:
        if widths[axis] % heads:
            options = ", ".join(map(str, head_options(widths["qk"], widths["v"], values["rope"], widths.get("kv"))))
            rule = (QT_TRANSLATE_NOOP("SettingsCheck", "the Q width") if kv_head_count(heads, values.get("kv_heads", 0))
                    < heads else QT_TRANSLATE_NOOP("SettingsCheck", "the Q/K width and the V width"))
            fit = (QT_TRANSLATE_NOOP("SettingsCheck", "only 1 head fits") if options == "1"
                   else QT_TRANSLATE_NOOP("SettingsCheck", "these fit: {options}").format(options=options))
            raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{prefix}heads is {heads}, which does not "
                                                                "divide {text} {widths} (heads must divide "
                                                                "{rule}; {fit})").format(prefix=prefix,
                                 heads=heads, text=text, widths=widths[axis], rule=rule, fit=fit))
    n_tokens, tokens_noun = (widths["Lq"], "query token") if cross else (widths["L"], "token")
    if not 0 <= values["selected_row"] < n_tokens:
        raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{prefix}selected_row is {selected_row}; with "
                                                            "{tokens} it must lie in 0..{last}").format(
                             prefix=prefix, selected_row=values['selected_row'],
                             tokens=count(n_tokens, tokens_noun), n_tokens=n_tokens, last=n_tokens - 1))
    if not 0 <= values["selected_head"] < heads:
        raise ValueError(QT_TRANSLATE_NOOP("SettingsCheck", "{prefix}selected_head is {selected_head}; with "
                                                            "{heads} it must lie in 0..{last}").format(
                             prefix=prefix, selected_head=values['selected_head'], heads=count(heads, 'head'),
                             n_heads=heads, last=heads - 1))
