"""The settings' one description: the Settings fields, the session's checks and the messages come from it."""
from dataclasses import fields

import pytest

from explorer.core.session import Settings
from explorer.core.settings_schema import SCHEMA, SETTINGS, allowed, check_together, check_value


def test_settings_fields_and_defaults_are_the_schema():
    assert [(f.name, f.default) for f in fields(Settings)] == [(s.name, s.default) for s in SETTINGS]


@pytest.mark.parametrize("name, value, message", [
    ("temperature", 25.0, "settings.temperature is 25.0; it must lie in 0.05..20"),
    ("scale", 0, "settings.scale is 0.0; it must be above 0 and at most 1000"),
    ("heads", 0, "settings.heads is 0; it must be at least 1"),
    ("rope_offset", -1, "settings.rope_offset is -1; it must lie in 0..1000000"),
    ("causal", "yes", "settings.causal must be true or false, not a string ('yes')"),
    ("positions", "learned", "settings.positions must be one of 'none', 'sinusoidal', 'alibi', not a string"),
    ("heads", 2.0, "settings.heads must be an integer, not a number (2.0)"),
])
def test_each_value_is_refused_with_what_is_allowed(name, value, message):
    with pytest.raises(ValueError) as info:
        check_value(name, value)
    assert str(info.value).startswith(message)


def test_values_within_the_rules_pass_as_their_type():
    assert check_value("temperature", 2) == 2.0 and isinstance(check_value("temperature", 2), float)
    assert check_value("heads", 4) == 4 and check_value("causal", True) is True
    assert allowed(SCHEMA["scale_mode"]) == "one of 'inv_sqrt_d', 'none', 'custom'"


def base(**changes):
    return {**{s.name: s.default for s in SETTINGS}, **changes}


def test_rules_between_settings_name_what_is_wrong():
    widths = {"qk": 6, "v": 4, "L": 3}
    check_together(base(heads=2, positions="alibi"), widths, projected_matrices=False)  # ALiBi needs no X
    with pytest.raises(ValueError, match=r"heads is 3, which does not divide the V width 4 .*; these fit: 1, 2\)"):
        check_together(base(heads=3), widths, projected_matrices=False)
    with pytest.raises(ValueError, match=r"does not divide the Q/K width 3 .*; only 1 head fits\)"):  # 3 and 4: only 1
        check_together(base(heads=2), {"qk": 3, "v": 4, "L": 3}, projected_matrices=False)
    with pytest.raises(ValueError, match="only the 'projected' source has"):
        check_together(base(positions="sinusoidal"), widths, projected_matrices=False)
    with pytest.raises(ValueError, match="d_h = 3 is odd"):
        check_together(base(heads=2, rope=True), widths, projected_matrices=False)
    with pytest.raises(ValueError, match="selected_row is 3; with 3 tokens"):
        check_together(base(selected_row=3), widths, projected_matrices=False)


def test_the_rope_rule_says_what_would_be_allowed():
    with pytest.raises(ValueError, match=r"d_h = 1 is odd.*RoPE.*heads must be one of 1, 3\b"):
        check_together(base(heads=6, rope=True), {"qk": 6, "v": 6, "L": 3}, projected_matrices=False)
    with pytest.raises(ValueError, match=r"d_h = 3 is odd.*an even Q/K width"):
        check_together(base(heads=1, rope=True), {"qk": 3, "v": 3, "L": 3}, projected_matrices=False)
