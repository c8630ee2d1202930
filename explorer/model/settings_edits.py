"""Edits of the settings (F6): one setting at a time, checked, undoable; the head counts offered."""
from dataclasses import replace

import numpy as np

from explorer.core.grouping import regroup_matrices
from explorer.core.heads import kv_head_options
from explorer.core.settings_schema import (COMPUTED, SCHEMA, check_together, check_value, head_options,
                                           implied_kv_heads)
from explorer.core.structure import projection_shapes, projections_reproducing
from explorer.i18n import shown_error, translate


class SettingsEdits:
    """``set_param`` and what it needs; mixed into ``AttentionModel`` through ``Edits``."""

    def set_param(self, name, value):
        """Change one setting; checked, undoable. True, or a Refusal saying why."""
        try:
            value = self._check_param(name, value)
        except (TypeError, ValueError) as exc:
            return self._refuse(shown_error(exc))
        s = self._state.settings
        if name == "kv_heads" and value == s.heads:
            value = 0  # as many K/V heads as heads: ordinary multi-head attention
        if getattr(self.settings, name) == value:
            return True
        state = self._state.with_settings(**{name: value})
        if name == "source":
            if value == "projected" and "X" not in state.matrices:
                mats = state.matrices
                too_big = self._too_big(translate("Edits", "cannot switch to projected mode"), projection_shapes(
                    mats["Q"], mats["K"], mats["V"], cross=state.cross, concat_width=self._concat_width(state)))
                if too_big is not None:  # a Refusal (falsy)
                    return too_big
            state = self._switch_source(state, value)
        if name == "kv_heads":  # K and V (or W_k and W_v) pooled into fewer K/V heads, or repeated into more
            if value and s.heads % value:
                try:
                    self._check_state(state)  # says which counts divide the heads
                except ValueError as exc:
                    return self._refuse(shown_error(exc))
            state = replace(state, matrices=regroup_matrices(state.matrices, s.source, s.heads, s.kv_heads, value))
        if name == "heads" and self._state.shape()["grouped"]:  # K keeps its width: H_kv follows d_h
            kv = implied_kv_heads(value, state.widths()[0], state.kv_width())
            state = state.with_settings(kv_heads=0 if kv == value else (kv or 0))
        try:
            self._check_state(state)
        except ValueError as exc:
            return self._refuse(shown_error(exc))
        setting = SCHEMA[name]
        said = setting.value_text(value)
        self._push_state(state, translate("Edits", "Set {setting} to {value}").format(
            setting=translate("Settings", setting.label), value=translate("Settings", said) if setting.choices else said))
        return True

    def head_options(self):
        """The head counts that divide both the Q/K width and the V width (and leave d_h even under RoPE)."""
        state = self._state
        kv = state.kv_width() if state.shape()["grouped"] else None
        return head_options(*state.widths(), rope=state.settings.rope, kv_width=kv)

    def kv_head_options(self):
        """The K/V head counts the ``kv_heads`` setting offers: the divisors of H (K and V are pooled or
        repeated to fit; H itself is stored as 0, "as many as heads")."""
        return kv_head_options(self.settings.heads)

    def setting_problem(self, name, value):
        """Why ``name`` cannot be ``value`` now, or None: the settings' own rules (check_together) asked, nothing
        changed. For a switch, whose change changes nothing else (a control is disabled by it, saying why)."""
        try:
            self._check_state(self._state.with_settings(**{name: value}))
        except ValueError as exc:
            return shown_error(exc)
        return None

    def rope_problem(self):
        """Why RoPE cannot be on (an odd d_h), or None."""
        return self.setting_problem("rope", True)

    def _switch_source(self, state, source):
        """Projected for the first time: X and W that reproduce the current Q, K, V exactly."""
        mats = state.matrices
        if source == "projected" and "X" not in mats:
            mats = {**mats, **projections_reproducing(mats["Q"], mats["K"], mats["V"], cross=state.cross,
                                                      concat_width=self._concat_width(state))}
        if source == "direct" and state.settings.positions == "sinusoidal":
            state = state.with_settings(positions="none")  # sinusoidal PE is added to X; ALiBi needs no X
        return self._with_heads_fitting(replace(state, matrices=mats))

    @staticmethod
    def _concat_width(state):
        """The width of the heads side by side: H·(V width / H_kv)."""
        return state.settings.heads * (state.matrices["V"].shape[1] // state.kv_heads)

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
        check_together(values, state.check_widths(), projected_matrices="X" in state.matrices, prefix="",
                       cross=state.cross)
