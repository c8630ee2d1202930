"""What each session format version added to the written file, so a test can read a frozen older file as
the current writer's output minus those lines."""

# Version 5: the RoPE scaling settings, written after rope_offset (the demo's defaults: scaling off)
V5_SETTINGS = (',\n  "rope_scaling": "none",\n  "rope_factor": 8.0,\n  "rope_low_freq_factor": 1.0,\n'
               '  "rope_high_freq_factor": 4.0,\n  "rope_original_max_position_embeddings": 8192')


def as_version_5(text: str) -> str:
    """A version-6 file of a session that is no model's head, as version 5 wrote it: only its version differs
    (version 6 added model_head, written only for a real model's head)."""
    assert text.count('"version": 6,') == 1 and '"model_head"' not in text
    return text.replace('"version": 6,', '"version": 5,', 1)


def as_version_4(text: str) -> str:
    """A version-6 file with scaling off and no model_head, as version 4 wrote it: its version and the
    scaling settings."""
    text = as_version_5(text)
    assert text.count(V5_SETTINGS) == 1 and text.count('"version": 5,') == 1
    return text.replace('"version": 5,', '"version": 4,', 1).replace(V5_SETTINGS, "", 1)
