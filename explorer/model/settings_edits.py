"""Edits of the settings (F6): one setting at a time, checked, undoable; the head counts offered."""
from dataclasses import replace

import numpy as np

from explorer.core import head_count_options
from explorer.core.session import (POSITIONS, ROPE_BASE_MAX, ROPE_BASE_MIN, ROPE_OFFSET_MAX, ROPE_STYLES,
                                   SCALE_MODES, SOURCES, TEMPERATURE_MAX, TEMPERATURE_MIN)
from explorer.core.structure import projections_reproducing

PARAM_LABELS = {"scale_mode": "scale mode", "scale": "scale", "temperature": "temperature",
                "causal": "causal mask", "heads": "heads", "source": "source of Q, K, V",
                "positions": "positions", "rope": "RoPE", "rope_base": "RoPE base",
                "rope_style": "RoPE convention", "rope_offset": "RoPE offset"}


class SettingsEdits:
    """``set_param`` and what it needs; mixed into ``AttentionModel`` through ``Edits``."""

    def set_param(self, name, value):
        """Change one setting; checked, undoable. True, or a Refusal saying why."""
        try:
            value = self._check_param(name, value)
        except (TypeError, ValueError) as exc:
            return self._refuse(f"{PARAM_LABELS.get(name, name)}: {exc}")
        if getattr(self.settings, name) == value:
            return True
        state = self._state.with_settings(**{name: value})
        if name == "source":
            state = self._switch_source(state, value)
        self._push_state(state, f"Set {PARAM_LABELS[name]} to {value}")
        return True

    def head_options(self):
        """The head counts that divide both the Q/K width and the V width (and leave d_h even under RoPE)."""
        options = head_count_options(*self.widths())
        if self.settings.rope:
            options = [h for h in options if (self.widths()[0] // h) % 2 == 0]
        return options

    def rope_problem(self, heads=None):
        """Why RoPE cannot be on with ``heads`` heads (odd d_h), or None."""
        d_head = self.widths()[0] // (heads or self.settings.heads)
        if d_head % 2:
            return (f"RoPE rotates pairs of dimensions, but each head's Q/K width d_h = {d_head} is odd: "
                    f"choose another number of heads or an even width")
        return None

    def _switch_source(self, state, source):
        """Projected for the first time: X and W that reproduce the current Q, K, V exactly."""
        mats = state.matrices
        if source == "projected" and "X" not in mats:
            mats = {**mats, **projections_reproducing(mats["Q"], mats["K"], mats["V"])}
        if source == "direct":
            state = state.with_settings(positions="none")
        return self._with_heads_fitting(replace(state, matrices=mats))

    def _check_param(self, name, value):
        """The value to set, or ValueError saying what is allowed."""
        if name == "scale_mode":
            if value not in SCALE_MODES:
                raise ValueError(f"scale mode must be one of {', '.join(SCALE_MODES)}")
            return value
        if name == "causal":
            return bool(value)
        if name == "rope":
            value = bool(value)
            if value and self.rope_problem():
                raise ValueError(self.rope_problem())
            return value
        if name == "rope_style":
            if value not in ROPE_STYLES:
                raise ValueError(f"must be one of {', '.join(ROPE_STYLES)}")
            return value
        if name == "rope_offset":
            value = int(value)
            if not 0 <= value <= ROPE_OFFSET_MAX:
                raise ValueError(f"must lie in 0..{ROPE_OFFSET_MAX}")
            return value
        if name == "source":
            if value not in SOURCES:
                raise ValueError(f"must be one of {', '.join(SOURCES)}")
            return value
        if name == "positions":
            if value not in POSITIONS:
                raise ValueError(f"must be one of {', '.join(POSITIONS)}")
            if value != "none" and not self.projected:
                raise ValueError("positions are added to the token vectors X: switch the source "
                                 "to 'projected' first")
            return value
        if name == "heads":
            value = int(value)
            if value not in self.head_options():
                raise ValueError(f"{value} heads do not divide the widths (Q/K {self.widths()[0]}, "
                                 f"V {self.widths()[1]}); choose one of "
                                 f"{', '.join(map(str, self.head_options()))}")
            return value
        value = float(value)
        if name == "temperature" and not TEMPERATURE_MIN <= value <= TEMPERATURE_MAX:
            raise ValueError(f"temperature must be between {TEMPERATURE_MIN} and {TEMPERATURE_MAX}")
        if name == "scale" and not (np.isfinite(value) and 0 < value <= 1e3):
            raise ValueError("a custom scale must be a number above 0 and at most 1000")
        if name == "rope_base" and not ROPE_BASE_MIN <= value <= ROPE_BASE_MAX:
            raise ValueError(f"must lie in {ROPE_BASE_MIN:g}..{ROPE_BASE_MAX:g}")
        if name not in ("temperature", "scale", "rope_base"):
            raise ValueError(f"unknown setting {name!r}")
        return value
