"""Edits of the settings (F6): one setting at a time, checked, undoable; the head counts offered."""
from dataclasses import replace

import numpy as np

from explorer.core.settings_schema import COMPUTED, SCHEMA, check_together, check_value, head_options
from explorer.core.structure import projections_reproducing


class SettingsEdits:
    """``set_param`` and what it needs; mixed into ``AttentionModel`` through ``Edits``."""

    def set_param(self, name, value):
        """Change one setting; checked, undoable. True, or a Refusal saying why."""
        try:
            value = self._check_param(name, value)
        except (TypeError, ValueError) as exc:
            return self._refuse(str(exc))
        if getattr(self.settings, name) == value:
            return True
        state = self._state.with_settings(**{name: value})
        if name == "source":
            state = self._switch_source(state, value)
        try:
            self._check_state(state)
        except ValueError as exc:
            return self._refuse(str(exc))
        self._push_state(state, f"Set {SCHEMA[name].label} to {value}")
        return True

    def head_options(self):
        """The head counts that divide both the Q/K width and the V width (and leave d_h even under RoPE)."""
        return head_options(*self.widths(), rope=self.settings.rope)

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
        if source == "direct" and state.settings.positions == "sinusoidal":
            state = state.with_settings(positions="none")  # sinusoidal PE is added to X; ALiBi needs no X
        return self._with_heads_fitting(replace(state, matrices=mats))

    def _check_param(self, name, value):
        """The value to set, checked against the settings' one description; ValueError says what is allowed."""
        setting = SCHEMA.get(name)
        if setting is None or setting.view:
            raise ValueError(f"unknown setting {name!r}")
        if setting.kind is bool:
            value = bool(value)  # a check box's state, 0/1 from a script
        elif setting.kind is int and isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)  # a spin box's or slider's whole number
        return check_value(name, value, place=setting.label)  # "RoPE base is 5.0; it must lie in …"

    def _check_state(self, state):
        """The rules between settings and widths, for the state an edit would make (ValueError if broken)."""
        values = {**{n: getattr(state.settings, n) for n in COMPUTED},
                  "selected_row": 0, "selected_head": 0}
        qk, v = state.widths()
        check_together(values, {"qk": qk, "v": v, "L": len(state.tokens)},
                       projected_matrices="X" in state.matrices, prefix="")
